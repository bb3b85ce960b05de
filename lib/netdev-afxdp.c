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

/* The afxdp netdev provider: glue between OVS and our modules, one concept
 * and one prefix each (lib/NAME.c and .h; a .h alone where marked):
 * The port
 *   netdev-afxdp             this file: OVS's entry points, life cycle
 *   afxdp-port               the registry of ports (afxdp-port-private.h)
 *   afxdp-link               link changes of the ports' devices (notifier)
 *   afxdp-config             options: parsing, checks, defaults (pure logic)
 *   afxdp-mode.h             enum afxdp_mode, the XDP mode (a leaf header)
 *   afxdp-mode-plan          where best-effort tries XDP, per device, and why
 *   afxdp-device             a device's driver and rx queues, from ethtool
 *   afxdp-stats              statistics, status, the netdev-afxdp/ commands
 *   afxdp-counters.h         the counters, one X-macro list per family
 *   afxdp-compat.h           kernel and OVS interfaces that differ (probes)
 * Memory, sockets, the XDP program
 *   netdev-afxdp-pool        UMEM memory, frame allocator, frame accounting
 *   afxdp-xsk                AF_XDP sockets of a port sharing its UMEM
 *   afxdp-xsk-umem           UMEM and sockets of our own, with TX metadata
 *   afxdp-xdp                our XDP program: load, attach, XSKMAP, counters
 *   afxdp-xdp-features       devices' XDP features, from netlink, kept current
 * The fast path
 *   afxdp-rxtx               the receive and send fast paths
 *   afxdp-big-packet         a multi-buffer packet copied into one allocation
 *   xdp-hints                XDP hints: layouts from BTF, decoded per frame
 *   afxdp-clock              CLOCK_MONOTONIC read cheaply, for latencies
 *   afxdp-latency            latency histograms, per-flow table (pure logic)
 *   afxdp-l4hdrs             finds a packet's TCP or UDP header (pure logic)
 *   afxdp-csum               the Internet checksum a 64-bit word at a time
 *   afxdp-rxcsum             received pseudo-header-only checksums
 *   afxdp-txcsum             TX checksums: TX metadata request or software
 *   afxdp-txseg              TCP packets over the MTU cut into UMEM frames
 *   afxdp-txgso              TCP packets over the MTU sent whole, kernel GSO
 * Limits
 *   afxdp-police             ingress policing's meters, in the XDP program
 *   afxdp-qos                egress-policer in the send path; the classes'
 *                            set_policing and QoS functions
 * Flow offload into the XDP program
 *   afxdp-offload            its core: a port's offloaded flows
 *   afxdp-offload-egress     their egress devices; which take redirects
 *   afxdp-offload-translate  a megaflow into an XDP flow table entry
 *   afxdp-offload-marks      marks of partially offloaded flows, to OVS's
 *   afxdp-offload-rank       the order of the masks, busiest first
 *   afxdp-flow-table         the XDP flow table's maps, written by protocol
 *   afxdp-offload-netdev     glue to OVS up to 3.6: the netdev flow API
 *   afxdp-offload-dpif       glue to OVS 3.7+: the dpif-offload provider
 *
 * The classes.  lib/netdev-linux.c defines the "afxdp" and "afxdp-nonpmd"
 * classes from the functions of lib/netdev-afxdp.h, with our init and our
 * get_status on every OVS version we support (a version's patch series
 * adds what it lacks: Documentation/internals/build.rst).  Nothing is
 * copied or swapped at run time.
 *
 * Lock order: 'afxdp_ports_mutex' is never held while taking a netdev's
 * mutex.  All control-path entry points run in the main thread. */

#include <config.h>

#include "netdev-afxdp.h"

#include <time.h>
#include <errno.h>
#include <linux/if_xdp.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <xdp/xsk.h>

#include "afxdp-compat.h"
#include "afxdp-config.h"
#include "afxdp-device.h"
#include "afxdp-link.h"
#include "afxdp-mode-plan.h"
#include "afxdp-offload.h"
#include "afxdp-police.h"
#include "afxdp-port-private.h"
#include "afxdp-qos.h"
#include "afxdp-stats.h"
#include "afxdp-txgso.h"
#include "afxdp-xdp.h"
#include "afxdp-xsk.h"
#include "afxdp-xsk-umem.h"
#include "coverage.h"
#include "dirs.h"
#include "dp-packet.h"
#include "fatal-signal.h"
#include "netdev-afxdp-pool.h"
#include "timeval.h"
#include "netdev-linux-private.h"
#include "netdev-provider.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "openvswitch/shash.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "rtnetlink.h"
#include "socket-util.h"
#include "smap.h"
#include "unixctl.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_afxdp);

COVERAGE_DEFINE(afxdp_frames_lost);
COVERAGE_DEFINE(afxdp_frames_kernel_kept);

static int afxdp_plan_queues(const char *name, const struct afxdp_config *,
                             int n_dev, char **errp);
static void netdev_afxdp_fatal_hook(void *aux);
static void afxdp_port_left_datapath(struct netdev *);
static void afxdp_port_mark_gone(struct afxdp_port *port,
                                 struct netdev_linux *dev)
    OVS_REQUIRES(dev->mutex);
static void afxdp_port_close(struct afxdp_port *port,
                             struct netdev_linux *dev)
    OVS_REQUIRES(dev->mutex);

/* The 'init' of both afxdp classes, once per class lib/netdev.c adds. */
int
netdev_afxdp_init(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        afxdp_xdp_init();
        /* Probes by registering a page: once, before any port opens. */
        afxdp_xsk_umem_txmd_supported();
        afxdp_offload_register();
        fatal_signal_add_hook(netdev_afxdp_fatal_hook, NULL, NULL, true);
        /* Never destroyed: lives as long as the classes. */
        rtnetlink_notifier_create(afxdp_link_changed, NULL);
        afxdp_offload_set_port_left_cb(afxdp_port_left_datapath);
        afxdp_stats_register_commands();
        ovsthread_once_done(&once);
    }
    return 0;
}

int
netdev_afxdp_construct(struct netdev *netdev_)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev_);
    struct afxdp_port *port;
    int error;

    error = netdev_linux_construct(netdev_);
    if (error) {
        return error;
    }

    /* netdev_linux_construct() copies the device's checksum and TSO
     * abilities into 'ol_flags' (OVS 3.3 and later, with
     * userspace-tso-enable).  Our send path implements none of them, so
     * OVS must finish every packet in software before handing it to us. */
    netdev_->ol_flags = 0;

    /* No queues until reconfigure has created the sockets.  Of the AF_XDP
     * members that lib/netdev-linux-private.h gives every afxdp netdev we
     * use 'tx_locks' (see afxdp-port-private.h); OVS reads none of the
     * others, so they stay as netdev_linux_alloc() zeroed them. */
    netdev_->n_rxq = 0;
    netdev_->n_txq = 0;
    dev->tx_locks = NULL;

    static atomic_uint32_t next_id = 1;

    port = xzalloc(sizeof *port);
    atomic_add_relaxed(&next_id, 1, &port->id);
    port->netdev = netdev_;
    port->mutex = &dev->mutex;
    port->queues = &dev->tx_locks;
    afxdp_config_init(&port->requested);
    smap_init(&port->set_args);
    atomic_init(&port->ifindex_for_signal, 0);
    atomic_init(&port->link_ifindex, 0);
    atomic_init(&port->link_max_mtu, INT_MAX);
    atomic_init(&port->link_gone, false);
    atomic_init(&port->xdp_lean, false);
    atomic_init(&port->ring_grow, false);
    atomic_init(&port->egress_policed, false);
    port->tx_gso_fd = -1;
    port->offload = afxdp_offload_create(netdev_get_name(netdev_));
    port->qos = afxdp_qos_create();

    ovs_mutex_lock(&afxdp_ports_mutex);
    hmap_insert(&afxdp_ports, &port->node, hash_pointer(netdev_, 0));
    ovs_mutex_unlock(&afxdp_ports_mutex);

    netdev_request_reconfigure(netdev_);
    return 0;
}

void
netdev_afxdp_destruct(struct netdev *netdev_)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev_);
    struct afxdp_port *port = afxdp_port_lookup(netdev_);

    if (port) {
        /* Out of the registry first: the link notifier and the fatal
         * signal hook reach ports only through it, holding
         * 'afxdp_ports_mutex', and the notifier writes into the queue
         * array that afxdp_port_close() frees.  This may run in any thread
         * that drops the last reference to the netdev. */
        ovs_mutex_lock(&afxdp_ports_mutex);
        hmap_remove(&afxdp_ports, &port->node);
        ovs_mutex_unlock(&afxdp_ports_mutex);

        ovs_mutex_lock(&dev->mutex);
        afxdp_port_close(port, dev);
        ovs_mutex_unlock(&dev->mutex);

        /* Other ports' flows must not send to a port OVS no longer has. */
        afxdp_offload_device_gone(port->ifindex);
        afxdp_offload_destroy(port->offload);
        free(port->zc_fallback);
        free(port->tx_gso_why);
        free(port->mtu_refused);
        free(port->error);
        free(port->police_error);
        afxdp_qos_destroy(port->qos);
        smap_destroy(&port->set_args);
        free(port);
    }
    ovs_mutex_destroy(&dev->mutex);
}

/* Called through afxdp_offload_port_left() by OVS 3.7+'s dpif-offload glue
 * (lib/afxdp-offload-dpif.c), in the main thread, when the datapath has
 * removed 'netdev': no PMD thread polls or sends on it any more.  Closes
 * its sockets and XDP program now rather than when the last reference
 * goes, which the glue's own reference delays by an RCU grace period: the
 * link changes of that teardown (the program leaving the device) would
 * otherwise reach the bridge tens of milliseconds later, where each makes
 * it retry every interface that failed, logging the same error again.
 * Should the datapath take the netdev back (the bridge re-adds an
 * interface for another OpenFlow port number), the reconfiguration
 * requested here opens it again. */
static void
afxdp_port_left_datapath(struct netdev *netdev_)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev_);
    struct afxdp_port *port = afxdp_port_lookup(netdev_);

    if (port) {
        ovs_mutex_lock(&dev->mutex);
        afxdp_port_close(port, dev);
        ovs_mutex_unlock(&dev->mutex);
        netdev_request_reconfigure(netdev_);
    }
}

/* If the MTU of the device of 'port' (NULL: of a port 'name' yet to be
 * opened) is larger than the port can carry, returns EMSGSIZE with a
 * message in '*errp'; else 0.  A device MTU set outside OVS (container
 * runtimes set their veths' MTU themselves) would otherwise let the
 * kernel drop every frame larger than a UMEM frame, unseen. */
static int
afxdp_check_device_mtu(const char *name, const struct afxdp_port *port,
                       char **errp)
{
    int mtu = afxdp_link_mtu(name);
    const char *why;
    int max = afxdp_port_max_mtu(port, &why);

    if (mtu <= max) {
        return 0;
    }
    *errp = xasprintf("%s: the device's MTU %d is larger than the port can "
                      "carry: the maximum is %d (%s); lower the device's "
                      "MTU (for veth, also its peer's)", name, mtu, max, why);
    return EMSGSIZE;
}

/* Called by lib/netdev-linux.c, with the netdev's mutex held, before it
 * sets the MTU that the Interface's mtu_request asks for.  OVS keeps the
 * device's MTU as it is, so the port goes on with what it carries; the
 * refusal shows in the port's status ("mtu-refused") until an MTU is
 * accepted, and the bridge copies that key into the Interface's error
 * column (patches/common/bridge-mtu-request-error.patch). */
int
netdev_afxdp_verify_mtu_size(const struct netdev *netdev, int mtu)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    const char *why;
    int max = afxdp_port_max_mtu(port, &why);

    if (mtu > max) {
        char *msg = xasprintf("%s: mtu_request %d refused: the maximum is "
                              "%d (%s)", netdev_get_name(netdev), mtu, max,
                              why);

        VLOG_WARN("%s", msg);
        if (port) {
            free(port->mtu_refused);
            port->mtu_refused = msg;
            netdev_change_seq_changed(netdev);
        } else {
            free(msg);
        }
        return EINVAL;
    }
    if (port && port->mtu_refused) {
        free(port->mtu_refused);
        port->mtu_refused = NULL;
        netdev_change_seq_changed(netdev);
    }
    return 0;
}

int
netdev_afxdp_set_config(struct netdev *netdev, const struct smap *args,
                        char **errp)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev);
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    struct afxdp_config cfg;
    int error;

    if (port && afxdp_port_args_same(port, args)) {
        return 0;
    }

    error = afxdp_config_parse(netdev_get_name(netdev), args, &cfg, errp);
    if (!error) {
        /* The queue geometry depends on the device, and whether the UMEM
         * can be pinned on the process's limits: check them here too, so
         * that they are reported like any bad value, before anything
         * touches the device, instead of failing the port in reconfigure
         * (where the bridge would retry it on every link change). */
        const char *name = netdev_get_name(netdev);
        int n = afxdp_plan_queues(name, &cfg, afxdp_device_n_rxq(name),
                                  errp);

        if (!n) {
            error = EINVAL;
        } else {
            struct afxdp_config sized = cfg;

            /* The largest it may grow to. */
            sized.ring_size = afxdp_config_ring_for(
                &cfg, afxdp_device_driver_is(name, "veth"), true);
            error = afxdp_xsk_check_memlock(
                name, ((uint64_t) afxdp_config_n_frames(&sized, n)
                       * AFXDP_CONFIG_FRAME_SIZE), false, errp);
        }
        if (!error && !afxdp_xsk_sg_supported()) {
            /* What this kernel can carry is known now; with multi-buffer
             * it can depend on the driver, which reconfigure finds out. */
            error = afxdp_check_device_mtu(name, NULL, errp);
        }
    }
    if (error) {
        /* OVS puts the message in the Interface's error column and logs
         * only "could not set configuration"; log what is wrong too. */
        VLOG_WARN("%s", *errp);
        return error;
    }
    if (!port) {
        return ENODEV;
    }

    ovs_mutex_lock(&dev->mutex);
    if (!afxdp_config_equals(&cfg, &port->requested)) {
        port->requested = cfg;
        netdev_request_reconfigure(netdev);
    }
    afxdp_port_args_keep(port, args);
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

int
netdev_afxdp_get_config(const struct netdev *netdev, struct smap *args)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev);
    struct afxdp_port *port = afxdp_port_lookup(netdev);

    if (!port) {
        return ENODEV;
    }
    ovs_mutex_lock(&dev->mutex);
    afxdp_config_to_smap(port->xsks ? &port->active : &port->requested,
                         args);
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

/* Tears down whatever 'port' runs: XSKMAP entries, sockets, UMEM pool and
 * XDP program, and the per-queue array of 'dev'. */
static void
afxdp_port_close(struct afxdp_port *port, struct netdev_linux *dev)
    OVS_REQUIRES(dev->mutex)
{
    afxdp_stats_retire(port, !port->keep_xdp);
    if (port->xsks) {
        uint32_t n_held;
        bool dropped;

        for (int i = 0; i < port->xsks->n && port->xdp; i++) {
            afxdp_xdp_clear_xsk(port->xdp, port->xsks->xsks[i]->queue_id);
        }
        dropped = afxdp_xsk_set_kernel_dropped(port->xsks);
        n_held = afxdp_xsk_set_close(port->xsks);
        port->xsks = NULL;
        if (n_held && dropped) {
            /* The kernel keeps the frames of the packets it dropped (rx
             * ring full) for its next ones, out of every ring: with the
             * sockets gone the memory is ours again. */
            COVERAGE_ADD(afxdp_frames_kernel_kept, n_held);
            VLOG_INFO("%s: %"PRIu32" UMEM frames were with the kernel at "
                      "close (it keeps those of the packets it dropped)",
                      netdev_get_name(port->netdev), n_held);
        } else if (n_held) {
            /* Frames that the kernel never dropped and that are not in
             * any ring: we lost track of them. */
            COVERAGE_ADD(afxdp_frames_lost, n_held);
            VLOG_INFO("%s: %"PRIu32" UMEM frames were not in any ring at "
                      "close", netdev_get_name(port->netdev), n_held);
        }
    }
    afxdp_pool_release(port->pool);
    port->pool = NULL;
    if (port->tx_gso_fd >= 0) {
        close(port->tx_gso_fd);
        port->tx_gso_fd = -1;
    }
    free(port->tx_gso_why);
    port->tx_gso_why = NULL;

    atomic_store_relaxed(&port->ifindex_for_signal, 0);
    atomic_store_relaxed(&port->link_ifindex, 0);
    atomic_store_relaxed(&port->link_gone, false);
    if (!port->keep_xdp) {
        afxdp_offload_detach(port->offload);
        xdp_hints_decoder_destroy(port->hints_dec);
        port->hints_dec = NULL;
        afxdp_xdp_detach(port->xdp);
        port->xdp = NULL;
    }

    if (dev->tx_locks) {
        for (int i = 0; i < port->netdev->n_txq; i++) {
            ovs_spin_destroy(&dev->tx_locks[i].q.lock);
            free_cacheline(dev->tx_locks[i].q.k2p);
            afxdp_latency_flows_destroy(dev->tx_locks[i].q.flows);
            free_cacheline(dev->tx_locks[i].q.pairs);
            free(dev->tx_locks[i].q.tx_train);
        }
        free_cacheline(dev->tx_locks);
        dev->tx_locks = NULL;
    }
    port->netdev->n_rxq = 0;
    port->netdev->n_txq = 0;
    port->netdev->ol_flags = 0;
    port->tx_csum = NULL;
    port->mode_in_use = AFXDP_MODE_UNSPEC;
    port->mode_reason = NULL;
}

/* Declares to OVS the TX offloads of 'port', whose sockets are open, and
 * records in its status whether checksum offload is in use and why not:
 * TCP and UDP checksums, only while every socket keeps TX metadata (see
 * lib/afxdp-txcsum.h), or always where OVS has no software fallback; TCP
 * segmentation (TSO) always, since the port cuts a TCP packet over its
 * MTU into segments itself, straight into UMEM frames (afxdp-txseg.h),
 * which saves OVS's software segmentation a buffer and a copy per
 * segment; with the checksums, on OVS 3.3 to 3.5, the outer UDP checksum
 * of VXLAN and Geneve (AFXDP_OVS_OUTER_UDP_CSUM); never IPv4 header, SCTP
 * or tunnel segmentation offloads, so that OVS still segments tunneled TSO
 * packets itself. */
static void
afxdp_port_set_tx_offloads(struct afxdp_port *port)
{
    bool all = true;

    for (int i = 0; i < port->xsks->n; i++) {
        all = all && port->xsks->xsks[i]->tx_metadata_len != 0;
    }
    port->netdev->ol_flags = 0;
    if (!port->requested.tx_csum_offload) {
        port->tx_csum = "off";
    } else if (afxdp_xsk_umem_txmd_supported()) {
        port->tx_csum = "off (kernel lacks TX metadata)";
    } else if (!all) {
        port->tx_csum = "off (zero-copy queues keep no TX metadata)";
    } else {
        port->tx_csum = "on";
        port->netdev->ol_flags = (NETDEV_TX_OFFLOAD_TCP_CKSUM
                                  | NETDEV_TX_OFFLOAD_UDP_CKSUM);
#if AFXDP_OVS_OUTER_UDP_CSUM
        port->netdev->ol_flags |= NETDEV_TX_OFFLOAD_OUTER_UDP_CKSUM;
#endif
    }
    if (!AFXDP_OVS_CSUM_FALLBACK) {
        /* This OVS would drop the packets instead of finishing their
         * checksums: take them, finished in software where the sockets
         * keep no TX metadata (afxdp_tx_csum_software). */
        port->netdev->ol_flags = (NETDEV_TX_OFFLOAD_TCP_CKSUM
                                  | NETDEV_TX_OFFLOAD_UDP_CKSUM);
    }
    port->netdev->ol_flags |= NETDEV_TX_OFFLOAD_TCP_TSO;
}

/* Opens the packet socket through which 'port' sends TCP packets over its
 * MTU whole, if options:tx-segmentation says so (afxdp-txgso.h).  Without
 * it the port cuts them itself, and its status says why. */
static void
afxdp_port_open_gso(struct afxdp_port *port)
{
    char *msg = NULL;
    int fd;

    if (!port->requested.tx_seg_kernel) {
        return;
    }
    fd = afxdp_txgso_open(port->ifindex, &msg);
    if (fd < 0) {
        VLOG_WARN("%s: TCP packets over the MTU will be cut by the port "
                  "(options:tx-segmentation=kernel needs a %s)",
                  netdev_get_name(port->netdev), msg);
        port->tx_gso_why = msg;
        return;
    }
    port->tx_gso_fd = fd;
}

/* Creates the sockets of 'port' for its 'n' queues, with the program
 * already attached in 'xdp_mode', and points the XSKMAP at them.  Returns 0
 * or an errno with a message in '*errp'. */
static int
afxdp_port_open_sockets(struct afxdp_port *port, enum afxdp_xdp_mode xdp_mode,
                        int n, char **errp)
{
    const char *name = netdev_get_name(port->netdev);
    const struct afxdp_config *cfg = &port->requested;
    struct afxdp_xsk_params params = {
        .ring_size = port->ring_size,
        .need_wakeup = cfg->use_need_wakeup,
        .sg = afxdp_xsk_sg_supported(),
        .tx_metadata = (cfg->tx_csum_offload
                        && !afxdp_xsk_umem_txmd_supported()),
    };
    struct afxdp_xsk_queue_params *qp = xcalloc(n, sizeof *qp);
    int error;

    for (int i = 0; i < n; i++) {
        qp[i].device_queue = port->start_queue + i;
        qp[i].mode = afxdp_config_queue_mode(cfg, i);
        if (xdp_mode == AFXDP_XDP_GENERIC && qp[i].mode == AFXDP_XSK_AUTO) {
            qp[i].mode = AFXDP_XSK_COPY;
        }
        afxdp_config_queue_busy_poll(cfg, i, &qp[i].busy_poll);
    }
    error = afxdp_xsk_set_open(name, port->pool, n, &params, qp,
                               &port->xsks, errp);
    free(qp);
    if (error) {
        return error;
    }
    for (int i = 0; i < n; i++) {
        const struct afxdp_xsk *xsk = port->xsks->xsks[i];

        error = afxdp_xdp_set_xsk(port->xdp, xsk->queue_id, xsk->fd);
        if (error) {
            *errp = xasprintf("%s: queue %"PRIu32": cannot add the socket "
                              "to the XSKMAP: %s", name, xsk->queue_id,
                              ovs_strerror(error));
            afxdp_xsk_set_close(port->xsks);
            port->xsks = NULL;
            return error;
        }
    }
    return 0;
}

/* Works out which device queues a port 'name' with configuration 'cfg'
 * binds on a device with 'n_dev' rx queues (0 if unknown).  Returns the
 * number of queues, or 0 with a message in '*errp'.  Pure: set_config uses
 * it to reject a bad geometry, reconfigure to act on a good one. */
static int
afxdp_plan_queues(const char *name, const struct afxdp_config *cfg,
                  int n_dev, char **errp)
{
    int start = cfg->start_queue, n;

    if (cfg->n_rxq) {
        n = cfg->n_rxq;
    } else if (n_dev > start) {
        n = MIN(n_dev - start, AFXDP_CONFIG_MAX_RXQ);
    } else {
        n = 1;
    }
    if (n_dev && start + n > n_dev) {
        if (start) {
            *errp = xasprintf("%s: options:start-queue=%d and n_rxq=%d need "
                              "device rx queues %d to %d, but the device "
                              "has %d (0 to %d)", name, start, n, start,
                              start + n - 1, n_dev, n_dev - 1);
        } else {
            /* Begins like OVS's own provider's message for a too big
             * n_rxq, so that log filters written for it match ours. */
            *errp = xasprintf("%s: Too big 'n_rxq': options:n_rxq=%d but "
                              "the device has only %d rx queue%s", name, n,
                              n_dev, n_dev > 1 ? "s" : "");
        }
        return 0;
    }
    for (int q = n; q < AFXDP_CONFIG_MAX_RXQ; q++) {
        const char *key = (cfg->rxq_mode[q] != AFXDP_XSK_DEFAULT
                           ? "rxq-xsk-mode"
                           : cfg->rxq_busy_poll[q] >= 0 ? "rxq-busy-poll"
                           : NULL);
        if (key) {
            *errp = xasprintf("%s: options:%s names queue %d but the port "
                              "has %d rx queue%s", name, key, q, n,
                              n > 1 ? "s" : "");
            return 0;
        }
    }
    if (cfg->umem_frames && cfg->umem_frames < afxdp_config_min_frames(cfg,
                                                                       n)) {
        *errp = xasprintf("%s: options:umem-frames=%"PRIu32" is too few for "
                          "%d rx queue(s) with xsk-ring-size=%"PRIu32": at "
                          "least %"PRIu32" are needed", name,
                          cfg->umem_frames, n, cfg->ring_size,
                          afxdp_config_min_frames(cfg, n));
        return 0;
    }
    return n;
}

/* Makes sure our program is attached to 'port' in 'mode', writing the
 * hints the configuration asks for, and that the hints decoder matches. */
static int
afxdp_port_attach(struct afxdp_port *port, enum afxdp_xdp_mode mode,
                  char **errp)
{
    const struct afxdp_config *cfg = &port->requested;
    struct afxdp_xdp_opts opts = {
        .hints = cfg->hints,
        .dev_bound = cfg->hints_dev_bound,
        .offload = afxdp_offload_ovs_enabled(),
    };
    int error;

    if (port->xdp && afxdp_xdp_get_mode(port->xdp) == mode
        && afxdp_xdp_hints_mode(port->xdp) == cfg->hints
        && port->active.hints_dev_bound == cfg->hints_dev_bound
        && afxdp_xdp_has_offload(port->xdp) == opts.offload) {
        return 0;
    }
    if (port->xdp) {
        /* A program kept over a reopen ('keep_xdp') that does not fit. */
        afxdp_stats_retire(port, true);
        afxdp_offload_detach(port->offload);
        port->keep_xdp = false;
    }
    xdp_hints_decoder_destroy(port->hints_dec);
    port->hints_dec = NULL;
    afxdp_xdp_detach(port->xdp);
    port->xdp = NULL;
    error = afxdp_xdp_attach_ex(netdev_get_name(port->netdev), port->ifindex,
                                mode, &opts, &port->xdp, errp);
    if (!error) {
        /* A new program's meters start empty, with the port's limits. */
        afxdp_qos_ingress_apply(port);
    }
    atomic_store_relaxed(&port->xdp_lean, !error && !opts.offload);
    if (!error && afxdp_xdp_hints_mode(port->xdp) != XDP_HINTS_OFF
        && xdp_hints_decoder_create(afxdp_xdp_btf(port->xdp),
                                    &port->hints_dec)) {
        /* Our object always has layouts: this would be a build problem. */
        VLOG_WARN("%s: no XDP hints layouts in the program's BTF; latency "
                  "statistics are off", netdev_get_name(port->netdev));
        port->hints_dec = NULL;
    }
    return error;
}

/* Sets the effective mode of 'port' from its sockets, why it runs that
 * mode ('plan' is what it tried) and, for best-effort, why zero-copy is not
 * in use. */
static void
afxdp_port_note_modes(struct afxdp_port *port,
                      const struct afxdp_mode_plan *plan)
{
    enum afxdp_xdp_mode xdp_mode = afxdp_xdp_get_mode(port->xdp);
    bool all_zc = true;

    free(port->zc_fallback);
    port->zc_fallback = NULL;
    for (int i = 0; i < port->xsks->n; i++) {
        const struct afxdp_xsk *xsk = port->xsks->xsks[i];

        all_zc &= xsk->zero_copy;
        if (!port->zc_fallback && xsk->mode_reason) {
            port->zc_fallback = xasprintf("queue %"PRIu32": %s",
                                          xsk->queue_id, xsk->mode_reason);
        }
    }
    port->mode_reason = afxdp_mode_plan_reason(plan, xdp_mode);
    if (xdp_mode == AFXDP_XDP_GENERIC) {
        port->mode_in_use = AFXDP_MODE_GENERIC;
        if (!port->zc_fallback
            && port->requested.xdp_mode == AFXDP_MODE_BEST_EFFORT) {
            port->zc_fallback = xstrdup(plan->veth
                                        ? "a veth has no zero-copy; generic "
                                          "XDP and copy mode"
                                        : "native XDP is not available, "
                                          "using generic XDP and copy mode");
        }
    } else {
        port->mode_in_use = all_zc ? AFXDP_MODE_NATIVE_ZC : AFXDP_MODE_NATIVE;
    }
}

static int
afxdp_port_open(struct afxdp_port *port, struct netdev_linux *dev,
                int numa_id, char **errp)
    OVS_REQUIRES(dev->mutex)
{
    const char *name = netdev_get_name(port->netdev);
    const struct afxdp_config *cfg = &port->requested;
    struct afxdp_pool_params pp = {
        .frame_size = AFXDP_CONFIG_FRAME_SIZE,
        .numa_id = numa_id,
        .hugepages = cfg->umem_hugepages,
    };
    struct afxdp_mode_plan plan;
    struct afxdp_config sized;
    char *pool_err = NULL;
    uint32_t zc_max_segs;
    int error = 0, n;
    bool veth, grown;

    *errp = NULL;
    port->ifindex = if_nametoindex(name);
    if (!port->ifindex) {
        error = errno;
        *errp = xasprintf("%s: cannot find the device: %s", name,
                          ovs_strerror(error));
        return error;
    }
    port->n_dev_rxq = afxdp_device_n_rxq(name);
    veth = afxdp_device_driver_is(name, "veth");
    afxdp_mode_plan_make(cfg->xdp_mode, veth, &plan);
    port->start_queue = cfg->start_queue;
    n = afxdp_plan_queues(name, cfg, port->n_dev_rxq, errp);
    if (!n) {
        return EINVAL;
    }

    sized = *cfg;
    atomic_read_relaxed(&port->ring_grow, &grown);
    port->ring_can_grow = afxdp_config_ring_can_grow(cfg, veth) && !grown;
    port->ring_grown = afxdp_config_ring_can_grow(cfg, veth) && grown;
    sized.ring_size = port->ring_size = afxdp_config_ring_for(cfg, veth,
                                                              grown);
    pp.n_frames = port->n_frames = afxdp_config_n_frames(&sized, n);
    error = afxdp_pool_create(&pp, &port->pool, &pool_err);
    if (error) {
        *errp = xasprintf("%s: %s", name, pool_err);
        free(pool_err);
        return error;
    }
    afxdp_pool_set_owner(port->pool, port->id);

    for (size_t i = 0; i < plan.n_modes; i++) {
        char *msg = NULL;

        error = afxdp_port_attach(port, plan.modes[i], &msg);
        if (!error) {
            error = afxdp_port_open_sockets(port, plan.modes[i], n, &msg);
        }
        free(*errp);
        *errp = msg;
        if (!error) {
            break;
        }
        VLOG_INFO("%s", msg);
    }
    if (!error) {
        /* Only now is it known whether the sockets took multi-buffer. */
        char *msg = NULL;

        error = afxdp_check_device_mtu(name, port, &msg);
        if (error) {
            free(*errp);
            *errp = msg;
        }
    }
    if (error) {
        if (cfg->xdp_mode == AFXDP_MODE_NATIVE_ZC) {
            char *hinted = xasprintf("%s; options:xdp-mode=best-effort "
                                     "uses zero-copy where the driver has "
                                     "it and copy mode elsewhere", *errp);

            free(*errp);
            *errp = hinted;
        }
        port->keep_xdp = false;
        afxdp_port_close(port, dev);
        return error;
    }

    afxdp_port_note_modes(port, &plan);
    port->rx_csum_src = (veth ? AFXDP_RX_CSUM_VETH
                         : afxdp_device_driver_is(name, "tun")
                         ? AFXDP_RX_CSUM_TAP
                         : afxdp_xdp_get_mode(port->xdp) == AFXDP_XDP_GENERIC
                         ? AFXDP_RX_CSUM_GENERIC
                         : AFXDP_RX_CSUM_NIC);
    port->rx_csum = afxdp_config_rx_csum_for(cfg, port->rx_csum_src);
    afxdp_port_set_tx_offloads(port);
    afxdp_port_open_gso(port);
    zc_max_segs = afxdp_xsk_set_zc_max_segs(port->xsks, port->ifindex);
    atomic_store_relaxed(&port->ifindex_for_signal, port->ifindex);
    atomic_store_relaxed(&port->link_ifindex, port->ifindex);
    atomic_store_relaxed(&port->link_max_mtu,
                         afxdp_port_max_mtu(port, NULL));
    port->active = *cfg;
    port->n_rxq = n;
    dev->tx_locks = xzalloc_cacheline(n * sizeof *dev->tx_locks);
    for (int i = 0; i < n; i++) {
        struct afxdp_queue *q = &dev->tx_locks[i].q;

        q->xsk = port->xsks->xsks[i];
        q->pool = port->pool;
        q->layout = afxdp_pool_layout(port->pool);
        q->frame_size = AFXDP_CONFIG_FRAME_SIZE;
        q->tx_headroom = q->xsk->tx_metadata_len;
        q->tx_room = q->frame_size - q->tx_headroom;
        q->tx_max_descs = (q->xsk->zero_copy ? zc_max_segs
                           : AFXDP_XSK_TX_MAX_FRAGS);
        q->tx_gso_fd = port->tx_gso_fd;
        q->hints = port->hints_dec;
        q->rx_csum_fix = port->rx_csum;
        q->rx_gro = cfg->rx_gro;
        q->marks = afxdp_offload_serials(port->offload);
        q->netdev = port->netdev;
        q->ring_grow = port->ring_can_grow ? &port->ring_grow : NULL;
        q->ring_busy = port->ring_size / 2;
        afxdp_clock_init(&q->rx_clock);
        afxdp_clock_init(&q->tx_clock);
        q->qos = port->qos;
        if (q->hints) {
            q->k2p = xzalloc_cacheline(sizeof *q->k2p);
            afxdp_latency_hist_init(q->k2p);
            q->flows = afxdp_latency_flows_create(0);
            afxdp_latency_sampler_init(&q->sampler, cfg->latency_sample);
        }
        q->pairs = xzalloc_cacheline(AFXDP_MAX_PAIRS * sizeof *q->pairs);
        for (int k = 0; k < AFXDP_MAX_PAIRS; k++) {
            afxdp_latency_hist_init(&q->pairs[k].hist);
        }
        atomic_init(&q->dev_gone, false);
        ovs_spin_init(&q->lock);
    }
    port->netdev->n_rxq = n;
    port->netdev->n_txq = n;
    afxdp_link_set_mtu(port, afxdp_link_mtu(name));
    if (afxdp_xdp_has_offload(port->xdp) && !port->keep_xdp) {
        /* Without, OVS's flow offload was off when it was loaded: the
         * port asks for the full program when it goes on
         * (afxdp_port_offload_turned_on()). */
        afxdp_offload_attach(port->offload, port->xdp,
                             port->hints_dec
                             && afxdp_xdp_hints_mode(port->xdp)
                                == XDP_HINTS_TS_HASH);
    }
    return 0;
}

/* Failed openings, by device name.  A port that fails in reconfigure after
 * attaching its XDP program (e.g. zero-copy refused by the driver) makes
 * link changes (attach, detach); the bridge's interface notifier answers
 * each link change by trying to add the failed port again, which would
 * fail the same way, for ever.  So the same device and configuration are
 * not tried again for AFXDP_FAILURE_HOLD_MS: the attempt fails at once,
 * with the same message, touching nothing.  A changed configuration, a new
 * device of the name, or the time passing lets the next attempt through.
 * The record outlives the netdev, which the bridge destroys and creates
 * again between attempts.  Main thread only, like reconfigure. */
#define AFXDP_FAILURE_HOLD_MS 5000

struct afxdp_failure {
    int ifindex;                    /* Device index at the attempt. */
    struct afxdp_config cfg;        /* Requested configuration. */
    int error;                      /* Positive errno. */
    char *msg;                      /* Its message. */
    long long int when;             /* time_msec() of the attempt. */
};

static struct shash afxdp_failures = SHASH_INITIALIZER(&afxdp_failures);

/* Records the outcome 'error' (0: success) of opening device 'name', index
 * 'ifindex', with 'cfg', and its message 'msg' (copied). */
static void
afxdp_failure_record(const char *name, int ifindex,
                     const struct afxdp_config *cfg, int error,
                     const char *msg)
{
    struct afxdp_failure *f = shash_find_and_delete(&afxdp_failures, name);

    if (f) {
        free(f->msg);
        free(f);
    }
    if (error) {
        f = xzalloc(sizeof *f);
        f->ifindex = ifindex;
        f->cfg = *cfg;
        f->error = error;
        f->msg = xstrdup(msg ? msg : "");
        f->when = time_msec();
        shash_add(&afxdp_failures, name, f);
    }
}

/* If opening device 'name', index 'ifindex', with 'cfg' failed less than
 * AFXDP_FAILURE_HOLD_MS ago, returns its errno and a copy of its message in
 * '*msgp'; otherwise returns 0. */
static int
afxdp_failure_recall(const char *name, int ifindex,
                     const struct afxdp_config *cfg, char **msgp)
{
    struct afxdp_failure *f = shash_find_data(&afxdp_failures, name);

    if (f && f->ifindex == ifindex && afxdp_config_equals(&f->cfg, cfg)
        && time_msec() - f->when < AFXDP_FAILURE_HOLD_MS) {
        *msgp = xstrdup(f->msg);
        return f->error;
    }
    return 0;
}

int
netdev_afxdp_reconfigure(struct netdev *netdev)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev);
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    int error, numa_id, ifindex, old_ifindex, replaced_ifindex = 0;
    char *msg = NULL;

    if (!port) {
        return ENODEV;
    }

    /* Takes the netdev's mutex itself. */
    numa_id = netdev_get_numa_id(netdev);

    ovs_mutex_lock(&dev->mutex);
    if (port->xsks) {
        ifindex = if_nametoindex(netdev_get_name(netdev));
        if (!ifindex) {
            /* Keep the port as it is, queues and all, until a device of
             * its name appears (see "Device removal" at the top). */
            bool was_gone = port->dev_gone;

            if (!was_gone) {
                afxdp_port_mark_gone(port, dev);
            }
            old_ifindex = port->ifindex;
            ovs_mutex_unlock(&dev->mutex);
            if (!was_gone) {
                /* The kernel took the device out of every devmap: flows
                 * of other ports that XDP redirected to it would drop
                 * every frame, unseen, and count them as forwarded. */
                afxdp_offload_device_gone(old_ifindex);
            }
            return 0;
        }
        if (ifindex == port->ifindex && !port->dev_gone
            && afxdp_config_equals(&port->active, &port->requested)
            && afxdp_xdp_has_offload(port->xdp)
               == afxdp_offload_ovs_enabled()) {
            if (afxdp_port_ring_grow_due(port)) {
                /* New sockets and UMEM; the program stays. */
                port->keep_xdp = true;
            } else if (afxdp_link_mtu(netdev_get_name(netdev))
                       <= afxdp_port_max_mtu(port, NULL)) {
                ovs_mutex_unlock(&dev->mutex);
                return 0;
            }
        }
        if (port->dev_gone || ifindex != port->ifindex) {
            VLOG_INFO("%s: the device is back (index %d, was %d); reopening "
                      "the port on it", netdev_get_name(netdev), ifindex,
                      port->ifindex);
            if (ifindex != port->ifindex) {
                /* Re-created while we did not look (a container
                 * restarted): the flows to the old device must go. */
                replaced_ifindex = port->ifindex;
            }
        }
    }

    afxdp_port_close(port, dev);
    port->dev_gone = false;
    free(port->zc_fallback);
    port->zc_fallback = NULL;
    free(port->error);
    port->error = NULL;

    ifindex = if_nametoindex(netdev_get_name(netdev));
    error = afxdp_failure_recall(netdev_get_name(netdev), ifindex,
                                 &port->requested, &msg);
    if (error) {
        VLOG_DBG("%s (not tried again: it failed so moments ago)", msg);
        port->error = msg;
    } else {
        error = afxdp_port_open(port, dev, numa_id, &msg);
        afxdp_failure_record(netdev_get_name(netdev), ifindex,
                             &port->requested, error, msg);
    }
    port->keep_xdp = false;
    if (error) {
        if (!port->error) {
            VLOG_ERR("%s", msg);
            port->error = msg;
        }
    } else {
        VLOG_INFO("%s: AF_XDP %s mode, %d queue(s), need_wakeup %s, "
                  "multi-buffer %s, "
                  "%"PRIu32" UMEM frames, XDP program attached as %s",
                  netdev_get_name(netdev),
                  afxdp_mode_to_string(port->mode_in_use),
                  netdev->n_rxq, port->active.use_need_wakeup ? "on" : "off",
                  afxdp_port_multi_buffer(port) ? "on" : "off",
                  port->n_frames,
                  afxdp_xdp_attach_desc(port->xdp));
        if (port->n_dev_rxq > netdev->n_rxq) {
            VLOG_INFO("%s: the device has %d rx queues and the port binds "
                      "%d to %d: frames arriving on the others go to the "
                      "kernel, not to OVS", netdev_get_name(netdev),
                      port->n_dev_rxq, port->start_queue,
                      port->start_queue + netdev->n_rxq - 1);
        }
    }
    netdev_change_seq_changed(netdev);
    ovs_mutex_unlock(&dev->mutex);
    if (replaced_ifindex) {
        afxdp_offload_device_gone(replaced_ifindex);
    }
    return error;
}

int
netdev_afxdp_rxq_construct(struct netdev_rxq *rxq_)
{
    struct netdev_rxq_linux *rx = netdev_rxq_linux_cast(rxq_);
    struct netdev_linux *dev = netdev_linux_cast(rxq_->netdev);
    int error = 0;

    /* The queue's AF_XDP socket belongs to the port since reconfigure, and
     * rxq_recv finds it by queue id.  The rxq only borrows its descriptor
     * for the Linux class's rxq_wait, which afxdp-nonpmd ports need: the
     * main thread sleeps in poll() until the rx ring has a frame. */
    ovs_mutex_lock(&dev->mutex);
    if (dev->tx_locks && rxq_->queue_id < rxq_->netdev->n_rxq) {
        rx->fd = dev->tx_locks[rxq_->queue_id].q.xsk->fd;
    } else {
        rx->fd = -1;
        error = ENODEV;
    }
    ovs_mutex_unlock(&dev->mutex);
    return error;
}

void
netdev_afxdp_rxq_destruct(struct netdev_rxq *rxq OVS_UNUSED)
{
}

/* Device removal.  A device can disappear under a port: its veth peer or
 * the peer's namespace deleted, the device moved to another namespace, a
 * driver unloaded.  The kernel then unbinds our sockets; OVS keeps the
 * port.  An rtnetlink notifier (run by the bridge's interface notifier, in
 * the main thread) asks for a reconfiguration when the device of a port
 * goes or one of its name appears.  Reconfigure then compares the device
 * index with the port's: with no device, the port keeps its queues and
 * sockets but stops receiving and drops what it is given to send
 * (counted), and its status says what happened; with a new device, it
 * opens the port on it. */

/* Marks 'port', whose device is gone, as such: its queues stop receiving
 * and sending, its status says why.  The sockets, UMEM and XDP handle stay
 * until the next reconfiguration, which needs a device again. */
static void
afxdp_port_mark_gone(struct afxdp_port *port, struct netdev_linux *dev)
    OVS_REQUIRES(dev->mutex)
{
    const char *name = netdev_get_name(port->netdev);

    port->dev_gone = true;
    atomic_store_relaxed(&port->link_gone, true);
    /* The kernel took the program away with the device. */
    atomic_store_relaxed(&port->ifindex_for_signal, 0);
    for (int i = 0; dev->tx_locks && i < port->netdev->n_rxq; i++) {
        atomic_store_relaxed(&dev->tx_locks[i].q.dev_gone, true);
    }
    free(port->error);
    port->error = xasprintf("%s: the device is gone (deleted, or moved to "
                            "another network namespace); the port resumes "
                            "when a device named %s appears", name, name);
    VLOG_WARN("%s", port->error);
    netdev_change_seq_changed(port->netdev);
}

/* Removes our XDP programs from every device on exit or a fatal signal,
 * so that no device keeps redirecting to sockets that are gone. */
static void
netdev_afxdp_fatal_hook(void *aux OVS_UNUSED)
{
    struct afxdp_port *port;

    if (ovs_mutex_trylock(&afxdp_ports_mutex)) {
        return;
    }
    HMAP_FOR_EACH (port, node, &afxdp_ports) {
        int ifindex;

        atomic_read_relaxed(&port->ifindex_for_signal, &ifindex);
        if (ifindex) {
            afxdp_xdp_remove_ours(ifindex);
        }
    }
    ovs_mutex_unlock(&afxdp_ports_mutex);
}

void
signal_remove_xdp(struct netdev *netdev)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    int ifindex;

    if (port) {
        atomic_read_relaxed(&port->ifindex_for_signal, &ifindex);
        if (ifindex) {
            afxdp_xdp_remove_ours(ifindex);
        }
    }
}
