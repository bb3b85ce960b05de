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

/* Unit tests of an afxdp port's lifetime (lib/netdev-afxdp.c).
 *
 * Usage: ovstest test-afxdp-port destroy [DEVICE]
 *
 *   destroy: the last reference to an afxdp netdev dropped in another
 *   thread than the main one (as a revalidator, an offload thread or an
 *   RCU callback may drop it) takes the port out of the registry through
 *   which the link notifier reaches ports before the port's queues are
 *   torn down.  The test holds the netdev's mutex, which the tear-down
 *   takes, so the other thread stops right there; the port must already
 *   be out of the registry then, and the notifier, run meanwhile, must not
 *   reach it.  DEVICE (default "lo") only has to exist: no socket is
 *   opened, so no privilege is needed.
 *
 * Aborts on the first failed check. */

#include <config.h>
#undef NDEBUG

#include <stdio.h>
#include <string.h>

#include "afxdp-link.h"
#include "afxdp-port-private.h"
#include "netdev.h"
#include "openvswitch/util.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "ovstest.h"
#include "timeval.h"
#include "util.h"

/* How long the tear-down may take to leave the registry: far more than it
 * needs, so that only a tear-down that does not leave it first fails. */
#define TEST_DEADLINE_MS 10000

static void *
close_main(void *netdev_)
{
    netdev_close(netdev_);
    return NULL;
}

static void
test_destroy(const char *name)
{
    struct afxdp_port *port;
    struct netdev *netdev;
    long long int deadline;
    pthread_t thread;
    int error;

    error = netdev_open(name, "afxdp", &netdev);
    if (error) {
        ovs_fatal(error, "%s: cannot open as an afxdp netdev", name);
    }
    port = afxdp_port_lookup(netdev);
    ovs_assert(port);

    /* The netdev's own mutex (netdev_linux's). */
    ovs_mutex_lock(port->mutex);
    thread = ovs_thread_create("afxdp-close", close_main, netdev);
    deadline = time_msec() + TEST_DEADLINE_MS;
    /* Neither 'netdev' nor 'port' can be freed while the mutex is held
     * here: the lookup only compares the pointer. */
    while (afxdp_port_lookup(netdev)) {
        if (time_msec() > deadline) {
            ovs_fatal(0, "%s: the port is still in the registry while its "
                      "tear-down waits for the netdev's mutex: the link "
                      "notifier could write into its queues as they are "
                      "freed", name);
        }
        xnanosleep(1000 * 1000);
    }
    /* Events lost: the notifier looks at every port it can reach. */
    afxdp_link_changed(NULL, NULL);
    ovs_mutex_unlock(port->mutex);
    xpthread_join(thread, NULL);
    printf("destroy in another thread: ok\n");
}

static void
test_afxdp_port_main(int argc, char *argv[])
{
    if (argc < 2 || strcmp(argv[1], "destroy")) {
        ovs_fatal(0, "usage: %s destroy [DEVICE]", argv[0]);
    }
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_WARN);
    test_destroy(argc > 2 ? argv[2] : "lo");
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-port", test_afxdp_port_main);
