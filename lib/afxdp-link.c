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

/* Link changes of the devices of afxdp ports: see afxdp-link.h. */

#include <config.h>

#include "afxdp-link.h"

#include <string.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/ioctl.h>

#include "afxdp-config.h"
#include "afxdp-port-private.h"
#include "afxdp-xsk.h"
#include "netdev-afxdp-pool.h"
#include "coverage.h"
#include "netdev-provider.h"
#include "packets.h"
#include "openvswitch/hmap.h"
#include "openvswitch/thread.h"
#include "ovs-atomic.h"
#include "rtnetlink.h"
#include "socket-util.h"
#include "util.h"

COVERAGE_DEFINE(afxdp_link_events_lost);

int
afxdp_link_mtu(const char *name)
{
    struct ifreq ifr;

    memset(&ifr, 0, sizeof ifr);
    ovs_strzcpy(ifr.ifr_name, name, sizeof ifr.ifr_name);
    return af_inet_ioctl(SIOCGIFMTU, &ifr) ? 0 : ifr.ifr_mtu;
}

void
afxdp_link_set_mtu(struct afxdp_port *port, int mtu)
{
    struct netdev_afxdp_tx_lock *queues = *port->queues;
    uint32_t len = (mtu > 0
                    ? mtu + ETH_HEADER_LEN + 2 * VLAN_HEADER_LEN
                    : AFXDP_XSK_TX_MAX_FRAGS * AFXDP_CONFIG_FRAME_SIZE);

    for (int i = 0; queues && i < port->netdev->n_txq; i++) {
        atomic_store_relaxed(&queues[i].q.tx_max_len, len);
        atomic_store_relaxed(&queues[i].q.tx_mtu, mtu > 0 ? mtu : 0);
    }
    if (port->pool) {
        afxdp_pool_set_rx_mtu(port->pool, mtu > 0 ? mtu : 0);
    }
}

/* After lost events: looks at the device of 'port' (index 'ifindex', gone
 * if 'gone', 'max_mtu' the largest MTU the port carries), updates the
 * port's MTU, and returns true if the port must be reconfigured. */
static bool
afxdp_link_recheck(struct afxdp_port *port, int ifindex, bool gone,
                   int max_mtu)
    OVS_REQUIRES(afxdp_ports_mutex)
{
    const char *name = netdev_get_name(port->netdev);
    int now = if_nametoindex(name);
    int mtu;

    if (gone || now != ifindex) {
        /* Back, or gone or replaced; still gone is nothing new. */
        return gone ? now != 0 : true;
    }
    mtu = afxdp_link_mtu(name);
    if (mtu > 0) {
        afxdp_link_set_mtu(port, mtu);
    }
    return mtu > max_mtu;
}

/* 'change' is a link change, or NULL if some were lost.  Ports without
 * sockets ('link_ifindex' 0) are left alone: they have nothing to check. */
void
afxdp_link_changed(const struct rtnetlink_change *change,
                   void *aux OVS_UNUSED)
{
    struct afxdp_port *port;

    if (change && (!change->ifname
                   || (change->nlmsg_type != RTM_NEWLINK
                       && change->nlmsg_type != RTM_DELLINK))) {
        return;
    }
    if (!change) {
        COVERAGE_INC(afxdp_link_events_lost);
    }
    ovs_mutex_lock(&afxdp_ports_mutex);
    HMAP_FOR_EACH (port, node, &afxdp_ports) {
        int ifindex, max_mtu;
        bool gone, reconf;

        if (change && strcmp(change->ifname, netdev_get_name(port->netdev))) {
            continue;
        }
        atomic_read_relaxed(&port->link_ifindex, &ifindex);
        atomic_read_relaxed(&port->link_gone, &gone);
        atomic_read_relaxed(&port->link_max_mtu, &max_mtu);
        if (!ifindex) {
            continue;
        }
        if (!change) {
            reconf = afxdp_link_recheck(port, ifindex, gone, max_mtu);
        } else if (change->nlmsg_type == RTM_DELLINK) {
            reconf = !gone && change->if_index == ifindex;
        } else {
            if (change->mtu > 0) {
                /* The MTU is set by OVS (mtu_request) or from outside. */
                afxdp_link_set_mtu(port, change->mtu);
            }
            reconf = (gone || change->if_index != ifindex
                      || change->mtu > max_mtu);
        }
        if (reconf) {
            /* Gone, back, replaced, or given an MTU larger than the port
             * carries: reconfigure finds out which. */
            netdev_request_reconfigure(port->netdev);
        }
    }
    ovs_mutex_unlock(&afxdp_ports_mutex);
}
