/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

#include <config.h>

#include "afxdp-device.h"

#include <dirent.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>

#include "socket-util.h"
#include "util.h"

int
afxdp_device_ethtool(const char *name, void *cmd)
{
    struct ifreq ifr;

    memset(&ifr, 0, sizeof ifr);
    ovs_strzcpy(ifr.ifr_name, name, sizeof ifr.ifr_name);
    ifr.ifr_data = cmd;
    return af_inet_ioctl(SIOCETHTOOL, &ifr);
}

bool
afxdp_device_driver_is(const char *name, const char *driver)
{
    struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };

    return (!afxdp_device_ethtool(name, &drv)
            && !strncmp(drv.driver, driver, sizeof drv.driver));
}

int
afxdp_device_n_rxq(const char *name)
{
    static const char sysfs_net[] = "/sys/class/net";
    struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
    struct dirent *de;
    char *path;
    int n = 0;
    DIR *dir;

    if (!afxdp_device_ethtool(name, &ch) && ch.rx_count + ch.combined_count) {
        return ch.rx_count + ch.combined_count;
    }

    path = xasprintf("%s/%s/queues", sysfs_net, name);
    dir = opendir(path);
    free(path);
    if (!dir) {
        return 0;
    }
    while ((de = readdir(dir))) {
        if (!strncmp(de->d_name, "rx-", 3)) {
            n++;
        }
    }
    closedir(dir);
    return n;
}
