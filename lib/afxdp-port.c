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

/* The registry of afxdp ports: finds a port's 'struct afxdp_port' from its
 * netdev, its id or its name.  lib/netdev-afxdp.c adds and removes the
 * ports (construct, destruct) and walks them (the rtnetlink notifier, the
 * fatal signal hook) under 'afxdp_ports_mutex'.  Lock order: that mutex is
 * never held while taking a netdev's mutex. */

#include <config.h>

#include "afxdp-port-private.h"

#include <string.h>

/* OVS's header defines its casts as static, not static inline, functions;
 * this file uses netdev_linux_cast() only. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "netdev-linux-private.h"
#pragma GCC diagnostic pop
#include "coverage.h"
#include "netdev-provider.h"
#include "packets.h"
#include "openvswitch/hmap.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_port);

COVERAGE_DEFINE(afxdp_ring_grow);

struct ovs_mutex afxdp_ports_mutex = OVS_MUTEX_INITIALIZER;
struct hmap afxdp_ports OVS_GUARDED_BY(afxdp_ports_mutex)
    = HMAP_INITIALIZER(&afxdp_ports);

struct afxdp_port *
afxdp_port_lookup(const struct netdev *netdev)
{
    struct afxdp_port *port;

    ovs_mutex_lock(&afxdp_ports_mutex);
    HMAP_FOR_EACH_WITH_HASH (port, node, hash_pointer(netdev, 0),
                             &afxdp_ports) {
        if (port->netdev == netdev) {
            ovs_mutex_unlock(&afxdp_ports_mutex);
            return port;
        }
    }
    ovs_mutex_unlock(&afxdp_ports_mutex);
    return NULL;
}

/* Returns an array of references to every afxdp netdev, or only to the one
 * named 'name' if nonnull, and its size in '*n'.  The caller closes each
 * netdev and frees the array. */
struct netdev **
afxdp_port_ref_all(const char *name, size_t *n)
{
    struct netdev **netdevs = NULL;
    size_t allocated = 0;
    struct afxdp_port *port;

    *n = 0;
    ovs_mutex_lock(&afxdp_ports_mutex);
    HMAP_FOR_EACH (port, node, &afxdp_ports) {
        if (!name || !strcmp(netdev_get_name(port->netdev), name)) {
            if (*n >= allocated) {
                netdevs = x2nrealloc(netdevs, &allocated, sizeof *netdevs);
            }
            netdevs[(*n)++] = netdev_ref(port->netdev);
        }
    }
    ovs_mutex_unlock(&afxdp_ports_mutex);
    return netdevs;
}

/* Returns the name of the port with 'id' (malloc'd), or NULL if it is
 * gone. */
char *
afxdp_port_name_by_id(uint32_t id)
{
    struct afxdp_port *port;
    char *name = NULL;

    ovs_mutex_lock(&afxdp_ports_mutex);
    HMAP_FOR_EACH (port, node, &afxdp_ports) {
        if (port->id == id) {
            name = xstrdup(netdev_get_name(port->netdev));
            break;
        }
    }
    ovs_mutex_unlock(&afxdp_ports_mutex);
    return name;
}

/* Flow offload is on for 'netdev' (OVS gave the port to our offload
 * provider): if its XDP program was loaded without the lookup in offloaded
 * flows, because offload was still off then, asks for a reconfigure, which
 * loads the full program (the sockets are opened anew: frames in flight are
 * lost, once).  Any thread. */
void
afxdp_port_offload_turned_on(struct netdev *netdev)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    bool lean;

    if (!port) {
        return;
    }
    atomic_read_relaxed(&port->xdp_lean, &lean);
    if (lean) {
        VLOG_INFO("%s: flow offload is on: the XDP program will be loaded "
                  "again with the lookup in offloaded flows",
                  netdev_get_name(netdev));
        netdev_request_reconfigure(netdev);
    }
}

/* The rings of 'q' are small and were found busy: half the rx ring
 * waiting, or the tx ring full.  Asks reconfigure for the larger rings
 * (afxdp_config_ring_for()), once.  Any thread: the PMD polling or sending
 * on 'q'. */
void
afxdp_queue_ring_busy(struct afxdp_queue *q)
{
    bool asked;

    atomic_read_relaxed(q->ring_grow, &asked);
    if (!asked) {
        /* Two threads may both ask: harmless. */
        atomic_store_relaxed(q->ring_grow, true);
        COVERAGE_INC(afxdp_ring_grow);
        netdev_request_reconfigure(q->netdev);
    }
}

/* Whether 'port' runs small rings that a queue found busy: reconfigure
 * then opens it again with the larger ones. */
bool
afxdp_port_ring_grow_due(const struct afxdp_port *port)
{
    bool grow;

    atomic_read_relaxed(&CONST_CAST(struct afxdp_port *, port)->ring_grow,
                        &grow);
    if (grow && port->ring_can_grow) {
        VLOG_INFO("%s: busy: its rings grow from %"PRIu32" to %d entries",
                  netdev_get_name(port->netdev), port->ring_size,
                  AFXDP_CONFIG_VETH_RING);
        return true;
    }
    return false;
}

/* Whether 'args' are the options that set_config last accepted for
 * 'port'.  The bridge sets every port's options again whenever it adds or
 * changes any port: the same options need no parsing nor the device's
 * queries (with 200 pods, 600 ioctls an added pod). */
bool
afxdp_port_args_same(struct afxdp_port *port, const struct smap *args)
{
    bool same;

    ovs_mutex_lock(port->mutex);
    same = port->set_args_valid && smap_equal(args, &port->set_args);
    ovs_mutex_unlock(port->mutex);
    return same;
}

/* Records 'args' as the options set_config accepted for 'port', with the
 * port's mutex held. */
void
afxdp_port_args_keep(struct afxdp_port *port, const struct smap *args)
{
    smap_destroy(&port->set_args);
    smap_clone(&port->set_args, args);
    port->set_args_valid = true;
}

struct netdev_afxdp_tx_lock *
afxdp_port_queues(const struct netdev *netdev)
{
    return netdev_linux_cast(netdev)->tx_locks;
}

void
afxdp_port_linux_status(const struct netdev *netdev, struct smap *smap)
{
    netdev_linux_get_status(netdev, smap);
}

/* MTU limits.
 *
 * Without multi-buffer a packet must fit in one UMEM frame after the
 * kernel's headroom: 4096 - 256 bytes, less an Ethernet and a VLAN
 * header, gives 3822.  With multi-buffer (sockets bound with XDP_USE_SG)
 * a packet spans frames: the limit is then Linux's own, ETH_MAX_MTU
 * (65535), the most any device takes; such a frame, headers included, is
 * sent in 17 descriptors, within the 18 the kernel takes per packet in
 * copy mode, and received in as many as it needs. */
#define AFXDP_MTU_MAX_MULTI_BUFFER 65535
BUILD_ASSERT_DECL(AFXDP_MTU_MAX_MULTI_BUFFER + ETH_HEADER_LEN
                  + VLAN_HEADER_LEN
                  <= AFXDP_XSK_TX_MAX_FRAGS * AFXDP_CONFIG_FRAME_SIZE);

/* Largest MTU whose frames, with an Ethernet and a VLAN header, fit in a
 * UMEM frame after the kernel's headroom. */
static int
afxdp_single_frame_mtu(void)
{
    return (AFXDP_CONFIG_FRAME_SIZE - AFXDP_RX_HEADROOM
            - ETH_HEADER_LEN - VLAN_HEADER_LEN);
}

/* True if every socket of 'port' is bound with multi-buffer.  The caller
 * holds the port's mutex. */
bool
afxdp_port_multi_buffer(const struct afxdp_port *port)
{
    if (!port->xsks || !port->xsks->n) {
        return false;
    }
    for (int i = 0; i < port->xsks->n; i++) {
        if (!port->xsks->xsks[i]->sg) {
            return false;
        }
    }
    return true;
}

/* Returns the largest MTU 'port' can carry: with its sockets as they are
 * bound, or, before it has any, as they will be on this kernel.  If 'why'
 * is nonnull, stores there a static string saying what sets the limit.
 * The caller holds the port's mutex. */
int
afxdp_port_max_mtu(const struct afxdp_port *port, const char **why)
{
    const char *reason;
    int max;

    if (!afxdp_xsk_sg_supported()) {
        reason = "the kernel has no AF_XDP multi-buffer (XDP_USE_SG, Linux "
                 "6.6), so a packet must fit in one UMEM frame";
        max = afxdp_single_frame_mtu();
    } else if (port && port->xsks && !afxdp_port_multi_buffer(port)) {
        reason = "the driver has no multi-buffer in zero-copy mode, so a "
                 "packet must fit in one UMEM frame; copy mode "
                 "(options:xdp-mode=native) has it";
        max = afxdp_single_frame_mtu();
    } else {
        reason = "AF_XDP multi-buffer: Linux's largest MTU";
        max = AFXDP_MTU_MAX_MULTI_BUFFER;
    }
    if (why) {
        *why = reason;
    }
    return max;
}

/* True if the afxdp port on device 'ifindex' polices its egress in its
 * send path (afxdp-qos.h), which frames that XDP redirects bypass. */
bool
afxdp_port_egress_policed(int ifindex)
{
    struct afxdp_port *port;
    bool policed = false;

    if (ifindex <= 0) {
        return false;
    }
    ovs_mutex_lock(&afxdp_ports_mutex);
    HMAP_FOR_EACH (port, node, &afxdp_ports) {
        int i;

        atomic_read_relaxed(&port->link_ifindex, &i);
        if (i == ifindex) {
            atomic_read_relaxed(&port->egress_policed, &policed);
            break;
        }
    }
    ovs_mutex_unlock(&afxdp_ports_mutex);
    return policed;
}
