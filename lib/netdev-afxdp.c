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

/* The afxdp netdev provider: glue between OVS and our modules.
 *
 *   afxdp-config     options: parsing, defaults (pure logic)
 *   netdev-afxdp-pool  UMEM memory, frame allocator, frame accounting
 *   afxdp-xsk        AF_XDP sockets of a port sharing its UMEM
 *   afxdp-xdp        our XDP program: load, attach, XSKMAP
 *
 * This file owns a port's life cycle (construct, set_config, reconfigure,
 * destruct), the receive and send fast paths, statistics and status.
 *
 * Per-queue state.  lib/netdev-linux-private.h gives every afxdp netdev an
 * array 'tx_locks' of 'struct netdev_afxdp_tx_lock', a type it leaves to
 * us.  We make each entry the whole state of one queue: its socket, the
 * lock that serializes senders when OVS shares the tx queue, and the
 * queue's counters, rx and tx halves on separate cache lines.  The array is
 * replaced only by reconfigure, when no thread polls or sends on the port.
 *
 * Port state that only the control path needs lives in 'struct afxdp_port',
 * found from the netdev through a small registry.
 *
 * Status.  lib/netdev-linux.c fills the class's get_status with its own
 * function, which knows nothing of AF_XDP.  To report the mode in use per
 * queue, the attach method and the like in "ovs-vsctl get interface X
 * status", construct() points the netdev at a copy of its class whose
 * get_status (and set_mtu, see below) are ours and which otherwise is the
 * very same class; the registered class, its type name and everything
 * OVS does with it are unchanged.  Because lib/netdev-linux.c recognizes
 * afxdp netdevs by comparing the class pointer when changing the MTU, our
 * set_mtu performs that MTU check itself before calling the original.
 *
 * Lock order: 'afxdp_ports_mutex' is never held while taking a netdev's
 * mutex.  All control-path entry points run in the main thread. */

#include <config.h>

#include "netdev-afxdp.h"

#include <dirent.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <errno.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <xdp/xsk.h>

#include "afxdp-config.h"
#include "afxdp-xdp.h"
#include "afxdp-xsk.h"
#include "coverage.h"
#include "dirs.h"
#include "dp-packet.h"
#include "fatal-signal.h"
#include "netdev-afxdp-pool.h"
#include "netdev-linux-private.h"
#include "netdev-provider.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "socket-util.h"
#include "smap.h"
#include "unixctl.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_afxdp);

COVERAGE_DEFINE(afxdp_frames_lost);
COVERAGE_DEFINE(afxdp_rx_wakeup);
COVERAGE_DEFINE(afxdp_tx_wakeup);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Bytes the kernel keeps in front of a received packet in its frame
 * (XDP_PACKET_HEADROOM), which also leaves OVS room to push headers. */
#define AFXDP_RX_HEADROOM 256

/* State of one queue of a port.  See the comment at the top. */
struct netdev_afxdp_tx_lock {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        /* Receive half: used by the thread polling rx queue 'queue_id'. */
        struct afxdp_xsk *xsk;                  /* The queue's socket. */
        struct afxdp_pool *pool;                /* The port's UMEM. */
        const struct afxdp_pool_layout *layout; /* Of 'pool'. */
        uint32_t frame_size;                    /* Of 'pool'. */
        atomic_uint64_t rx_packets;             /* Given to OVS. */
        atomic_uint64_t rx_bytes;               /* Given to OVS. */
        atomic_uint64_t rx_fill_starved;        /* Fill refills cut short
                                                 * by an empty pool. */
    );
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        /* Send half: used by whoever sends on tx queue 'queue_id', under
         * 'lock' when OVS says the queue is shared. */
        struct ovs_spin lock;                   /* Serializes senders. */
        atomic_uint64_t tx_packets;             /* Put on the tx ring. */
        atomic_uint64_t tx_bytes;               /* Put on the tx ring. */
        atomic_uint64_t tx_drop_no_frame;       /* Pool empty. */
        atomic_uint64_t tx_drop_ring_full;      /* Tx ring full. */
        atomic_uint64_t tx_drop_oversize;       /* Larger than a frame. */
        atomic_uint64_t tx_kick_errors;         /* sendto() failures. */
    );
};

/* Control-path state of a port. */
struct afxdp_port {
    struct hmap_node node;          /* In 'afxdp_ports', by netdev. */
    struct netdev *netdev;          /* The netdev (not a reference). */

    /* Guarded by the netdev_linux mutex of 'netdev'. */
    struct afxdp_config requested;  /* From set_config. */
    struct afxdp_config active;     /* In effect, valid if 'xsks'. */
    int ifindex;                    /* Device index when configured. */
    int n_dev_rxq;                  /* Device rx queues, 0 if unknown. */
    int n_rxq;                      /* Queues bound, if 'xsks'. */
    int start_queue;                /* First device queue bound. */
    struct afxdp_pool *pool;        /* UMEM pool, or NULL. */
    struct afxdp_xsk_set *xsks;     /* Sockets, or NULL. */
    struct afxdp_xdp *xdp;          /* Our XDP program, or NULL. */
    enum afxdp_mode mode_in_use;    /* Effective mode, if 'xsks'. */
    char *zc_fallback;              /* Why zero-copy is not in use. */
    char *error;                    /* Why the port is not working. */
    atomic_int ifindex_for_signal;  /* 'ifindex' for the fatal signal
                                     * hook, 0 if no program attached. */
};

static struct ovs_mutex afxdp_ports_mutex = OVS_MUTEX_INITIALIZER;
static struct hmap afxdp_ports OVS_GUARDED_BY(afxdp_ports_mutex)
    = HMAP_INITIALIZER(&afxdp_ports);

/* Copies of the "afxdp" and "afxdp-nonpmd" classes with our get_status and
 * set_mtu (see the comment at the top).  Written once, by netdev_afxdp_init,
 * before any afxdp netdev exists. */
static struct netdev_class afxdp_class_pmd;
static struct netdev_class afxdp_class_nonpmd;

static int netdev_afxdp_get_status(const struct netdev *, struct smap *);
static int afxdp_device_n_rxq(const char *name);
static int afxdp_plan_queues(const char *name, const struct afxdp_config *,
                             int n_dev, char **errp);
static int netdev_afxdp_set_mtu(struct netdev *, int mtu);
static void netdev_afxdp_unixctl_show(struct unixctl_conn *, int argc,
                                      const char *argv[], void *aux);
static void netdev_afxdp_fatal_hook(void *aux);
static void afxdp_port_close(struct afxdp_port *port,
                             struct netdev_linux *dev)
    OVS_REQUIRES(dev->mutex);

static struct afxdp_port *
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

/* The netdev_class 'init' of both afxdp classes.  Called once per class
 * while lib/netdev.c registers it. */
int
netdev_afxdp_init(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        afxdp_class_pmd = netdev_afxdp_class;
        afxdp_class_pmd.get_status = netdev_afxdp_get_status;
        afxdp_class_pmd.set_mtu = netdev_afxdp_set_mtu;
        afxdp_class_pmd.rxq_drain = NULL;   /* Would read from our socket. */
        afxdp_class_nonpmd = netdev_afxdp_nonpmd_class;
        afxdp_class_nonpmd.get_status = netdev_afxdp_get_status;
        afxdp_class_nonpmd.set_mtu = netdev_afxdp_set_mtu;
        afxdp_class_nonpmd.rxq_drain = NULL;

        afxdp_xdp_init();
        fatal_signal_add_hook(netdev_afxdp_fatal_hook, NULL, NULL, true);
        unixctl_command_register("netdev-afxdp/show", "[port]", 0, 1,
                                 netdev_afxdp_unixctl_show, NULL);
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

    /* Our class copy: see the comment at the top of the file. */
    netdev_->netdev_class = (netdev_->netdev_class == &netdev_afxdp_class
                             ? &afxdp_class_pmd : &afxdp_class_nonpmd);

    /* No queues until reconfigure has created the sockets. */
    netdev_->n_rxq = 0;
    netdev_->n_txq = 0;
    dev->xsks = NULL;
    dev->tx_locks = NULL;
    dev->requested_n_rxq = 1;
    dev->requested_xdp_mode = AFXDP_MODE_BEST_EFFORT;
    dev->xdp_mode = AFXDP_MODE_UNSPEC;
    dev->xdp_mode_in_use = AFXDP_MODE_UNSPEC;
    dev->requested_need_wakeup = true;
    dev->use_need_wakeup = false;

    port = xzalloc(sizeof *port);
    port->netdev = netdev_;
    afxdp_config_init(&port->requested);
    atomic_init(&port->ifindex_for_signal, 0);

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
        ovs_mutex_lock(&dev->mutex);
        afxdp_port_close(port, dev);
        ovs_mutex_unlock(&dev->mutex);

        ovs_mutex_lock(&afxdp_ports_mutex);
        hmap_remove(&afxdp_ports, &port->node);
        ovs_mutex_unlock(&afxdp_ports_mutex);

        free(port->zc_fallback);
        free(port->error);
        free(port);
    }
    ovs_mutex_destroy(&dev->mutex);
}

/* Largest MTU whose frames, with an Ethernet and a VLAN header, fit in a
 * UMEM frame after the kernel's headroom. */
static int
afxdp_max_mtu(void)
{
    return (AFXDP_CONFIG_FRAME_SIZE - AFXDP_RX_HEADROOM
            - ETH_HEADER_LEN - VLAN_HEADER_LEN);
}

int
netdev_afxdp_verify_mtu_size(const struct netdev *netdev, int mtu)
{
    if (mtu > afxdp_max_mtu()) {
        VLOG_WARN("%s: MTU %d is too large for AF_XDP frames of %d bytes: "
                  "the maximum is %d", netdev_get_name(netdev), mtu,
                  AFXDP_CONFIG_FRAME_SIZE, afxdp_max_mtu());
        return EINVAL;
    }
    return 0;
}

static int
netdev_afxdp_set_mtu(struct netdev *netdev, int mtu)
{
    const struct netdev_class *orig
        = (netdev->netdev_class == &afxdp_class_pmd
           ? &netdev_afxdp_class : &netdev_afxdp_nonpmd_class);
    int error = netdev_afxdp_verify_mtu_size(netdev, mtu);

    return error ? error : orig->set_mtu(netdev, mtu);
}

int
netdev_afxdp_set_config(struct netdev *netdev, const struct smap *args,
                        char **errp)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev);
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    struct afxdp_config cfg;
    int error;

    error = afxdp_config_parse(netdev_get_name(netdev), args, &cfg, errp);
    if (!error) {
        /* The queue geometry depends on the device: check it here too, so
         * that a bad one is reported like any bad value instead of failing
         * the port in reconfigure. */
        const char *name = netdev_get_name(netdev);

        if (!afxdp_plan_queues(name, &cfg, afxdp_device_n_rxq(name),
                               errp)) {
            error = EINVAL;
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
        dev->requested_n_rxq = cfg.n_rxq;
        dev->requested_xdp_mode = cfg.xdp_mode;
        dev->requested_need_wakeup = cfg.use_need_wakeup;
        netdev_request_reconfigure(netdev);
    }
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

/* Returns the number of rx queues of device 'name' that AF_XDP sockets can
 * bind: its rx and combined channels as ethtool reports them, or, for a
 * driver without channels, the rx queues in sysfs.  0 if unknown. */
static int
afxdp_device_n_rxq(const char *name)
{
    static const char sysfs_net[] = "/sys/class/net";
    struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
    struct ifreq ifr;
    struct dirent *de;
    char *path;
    int n = 0;
    DIR *dir;

    memset(&ifr, 0, sizeof ifr);
    ovs_strzcpy(ifr.ifr_name, name, sizeof ifr.ifr_name);
    ifr.ifr_data = (void *) &ch;
    if (!af_inet_ioctl(SIOCETHTOOL, &ifr) && ch.rx_count + ch.combined_count) {
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

/* Reads integer 'file' of device 'name' in sysfs, -1 if it cannot. */
static long long int
afxdp_device_sysfs_int(const char *name, const char *file)
{
    static const char sysfs_net[] = "/sys/class/net";
    char *path = xasprintf("%s/%s/%s", sysfs_net, name, file);
    long long int value = -1;
    FILE *f = fopen(path, "r");

    if (f) {
        if (fscanf(f, "%lld", &value) != 1) {
            value = -1;
        }
        fclose(f);
    }
    free(path);
    return value;
}

/* Where to try to run the XDP program for the requested mode, in order. */
static size_t
afxdp_attach_modes(enum afxdp_mode requested, enum afxdp_xdp_mode out[2])
{
    switch (requested) {
    case AFXDP_MODE_NATIVE_ZC:
    case AFXDP_MODE_NATIVE:
        out[0] = AFXDP_XDP_NATIVE;
        return 1;
    case AFXDP_MODE_GENERIC:
        out[0] = AFXDP_XDP_GENERIC;
        return 1;
    case AFXDP_MODE_BEST_EFFORT:
    case AFXDP_MODE_UNSPEC:
    case AFXDP_MODE_MAX:
    default:
        out[0] = AFXDP_XDP_NATIVE;
        out[1] = AFXDP_XDP_GENERIC;
        return 2;
    }
}

/* Tears down whatever 'port' runs: XSKMAP entries, sockets, UMEM pool and
 * XDP program, and the per-queue array of 'dev'. */
static void
afxdp_port_close(struct afxdp_port *port, struct netdev_linux *dev)
    OVS_REQUIRES(dev->mutex)
{
    if (port->xsks) {
        uint32_t n_held;

        for (int i = 0; i < port->xsks->n && port->xdp; i++) {
            afxdp_xdp_clear_xsk(port->xdp, port->xsks->xsks[i]->queue_id);
        }
        n_held = afxdp_xsk_set_close(port->xsks);
        port->xsks = NULL;
        if (n_held) {
            /* Frames the kernel had taken from a ring and not put in the
             * next one (e.g. cached after an rx drop) or that we lost track
             * of: with the sockets gone the memory is ours again, but we
             * cannot tell which frames they are. */
            COVERAGE_ADD(afxdp_frames_lost, n_held);
            VLOG_INFO("%s: %"PRIu32" UMEM frames were not in any ring at "
                      "close", netdev_get_name(port->netdev), n_held);
        }
    }
    afxdp_pool_release(port->pool);
    port->pool = NULL;

    atomic_store_relaxed(&port->ifindex_for_signal, 0);
    afxdp_xdp_detach(port->xdp);
    port->xdp = NULL;

    if (dev->tx_locks) {
        for (int i = 0; i < port->netdev->n_txq; i++) {
            ovs_spin_destroy(&dev->tx_locks[i].lock);
        }
        free_cacheline(dev->tx_locks);
        dev->tx_locks = NULL;
    }
    port->netdev->n_rxq = 0;
    port->netdev->n_txq = 0;
    port->mode_in_use = AFXDP_MODE_UNSPEC;
    dev->xdp_mode_in_use = AFXDP_MODE_UNSPEC;
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
        .ring_size = cfg->ring_size,
        .need_wakeup = cfg->use_need_wakeup,
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
            *errp = xasprintf("%s: options:n_rxq=%d but the device has only "
                              "%d rx queue%s", name, n, n_dev,
                              n_dev > 1 ? "s" : "");
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

/* Makes sure our program is attached to 'port' in 'mode'. */
static int
afxdp_port_attach(struct afxdp_port *port, enum afxdp_xdp_mode mode,
                  char **errp)
{
    if (port->xdp && afxdp_xdp_get_mode(port->xdp) == mode) {
        return 0;
    }
    afxdp_xdp_detach(port->xdp);
    port->xdp = NULL;
    return afxdp_xdp_attach(netdev_get_name(port->netdev), port->ifindex,
                            mode, &port->xdp, errp);
}

/* Sets 'port' up from its requested configuration: pool, program, sockets,
 * per-queue array.  Returns 0 or an errno, with a message for the user in
 * '*errp'. */
/* Sets the effective mode of 'port' from its sockets and, for
 * best-effort, why zero-copy is not in use. */
static void
afxdp_port_note_modes(struct afxdp_port *port)
{
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
    if (afxdp_xdp_get_mode(port->xdp) == AFXDP_XDP_GENERIC) {
        port->mode_in_use = AFXDP_MODE_GENERIC;
        if (!port->zc_fallback
            && port->requested.xdp_mode == AFXDP_MODE_BEST_EFFORT) {
            port->zc_fallback = xstrdup("native XDP is not available, "
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
        .hugepages = false,
    };
    enum afxdp_xdp_mode attach[2];
    size_t n_attach = afxdp_attach_modes(cfg->xdp_mode, attach);
    char *pool_err = NULL;
    int error = 0, n;

    *errp = NULL;
    port->ifindex = if_nametoindex(name);
    if (!port->ifindex) {
        error = errno;
        *errp = xasprintf("%s: cannot find the device: %s", name,
                          ovs_strerror(error));
        return error;
    }
    port->n_dev_rxq = afxdp_device_n_rxq(name);
    port->start_queue = cfg->start_queue;
    n = afxdp_plan_queues(name, cfg, port->n_dev_rxq, errp);
    if (!n) {
        return EINVAL;
    }

    pp.n_frames = afxdp_config_n_frames(cfg, n);
    error = afxdp_pool_create(&pp, &port->pool, &pool_err);
    if (error) {
        *errp = xasprintf("%s: %s", name, pool_err);
        free(pool_err);
        return error;
    }

    for (size_t i = 0; i < n_attach; i++) {
        char *msg = NULL;

        error = afxdp_port_attach(port, attach[i], &msg);
        if (!error) {
            error = afxdp_port_open_sockets(port, attach[i], n, &msg);
        }
        free(*errp);
        *errp = msg;
        if (!error) {
            break;
        }
        VLOG_INFO("%s", msg);
    }
    if (error) {
        if (cfg->xdp_mode == AFXDP_MODE_NATIVE_ZC) {
            char *hinted = xasprintf("%s; options:xdp-mode=best-effort "
                                     "uses zero-copy where the driver has "
                                     "it and copy mode elsewhere", *errp);

            free(*errp);
            *errp = hinted;
        }
        afxdp_port_close(port, dev);
        return error;
    }

    afxdp_port_note_modes(port);
    atomic_store_relaxed(&port->ifindex_for_signal, port->ifindex);
    port->active = *cfg;
    port->n_rxq = n;
    dev->tx_locks = xzalloc_cacheline(n * sizeof *dev->tx_locks);
    for (int i = 0; i < n; i++) {
        struct netdev_afxdp_tx_lock *q = &dev->tx_locks[i];

        q->xsk = port->xsks->xsks[i];
        q->pool = port->pool;
        q->layout = afxdp_pool_layout(port->pool);
        q->frame_size = AFXDP_CONFIG_FRAME_SIZE;
        ovs_spin_init(&q->lock);
    }
    port->netdev->n_rxq = n;
    port->netdev->n_txq = n;
    dev->xdp_mode = cfg->xdp_mode;
    dev->xdp_mode_in_use = port->mode_in_use;
    dev->use_need_wakeup = cfg->use_need_wakeup;
    return 0;
}

int
netdev_afxdp_reconfigure(struct netdev *netdev)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev);
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    char *msg = NULL;
    int error, numa_id;

    if (!port) {
        return ENODEV;
    }

    /* Takes the netdev's mutex itself. */
    numa_id = netdev_get_numa_id(netdev);

    ovs_mutex_lock(&dev->mutex);
    if (port->xsks && afxdp_config_equals(&port->active, &port->requested)) {
        ovs_mutex_unlock(&dev->mutex);
        return 0;
    }

    afxdp_port_close(port, dev);
    free(port->zc_fallback);
    port->zc_fallback = NULL;
    free(port->error);
    port->error = NULL;

    error = afxdp_port_open(port, dev, numa_id, &msg);
    if (error) {
        VLOG_ERR("%s", msg);
        port->error = msg;
    } else {
        VLOG_INFO("%s: AF_XDP %s mode, %d queue(s), need_wakeup %s, "
                  "%"PRIu32" UMEM frames, XDP program attached as %s",
                  netdev_get_name(netdev),
                  afxdp_mode_to_string(port->mode_in_use),
                  netdev->n_rxq, port->active.use_need_wakeup ? "on" : "off",
                  afxdp_config_n_frames(&port->active, netdev->n_rxq),
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
    return error;
}

/* Fast path. */

/* Tops up the fill ring of 'q' after 'n_given' frames went to OVS, and
 * wakes the kernel up if it asked for it. */
static inline void
afxdp_rxq_refill(struct netdev_afxdp_tx_lock *q, uint32_t n_given)
{
    struct afxdp_xsk *xsk = q->xsk;
    uint64_t addrs[NETDEV_MAX_BURST * 2];
    uint32_t n_free, n, idx = 0;

    n_free = xsk_prod_nb_free(&xsk->fill, ARRAY_SIZE(addrs));
    if (n_free < NETDEV_MAX_BURST && !n_given) {
        goto kick;
    }
    n_free = MIN(n_free, ARRAY_SIZE(addrs));
    n = afxdp_pool_to_ovs(q->pool, n_given, addrs, n_free);
    if (n < n_free) {
        uint64_t starved;

        atomic_read_relaxed(&q->rx_fill_starved, &starved);
        atomic_store_relaxed(&q->rx_fill_starved, starved + 1);
    }
    if (n) {
        /* Reserve cannot fail: we are the only producer and checked the
         * free space above. */
        xsk_ring_prod__reserve(&xsk->fill, n, &idx);
        for (uint32_t i = 0; i < n; i++) {
            *xsk_ring_prod__fill_addr(&xsk->fill, idx + i) = addrs[i];
        }
        /* The release barrier in submit (libxdp) pairs with the kernel's
         * acquire of the fill producer: it sees our addresses first. */
        xsk_ring_prod__submit(&xsk->fill, n);
    }

kick:
    if ((!n_given && xsk->busy_poll)
        || (xsk->need_wakeup && xsk_ring_prod__needs_wakeup(&xsk->fill))) {
        /* Busy polling: the kernel runs the queue's NAPI in this call. */
        COVERAGE_INC(afxdp_rx_wakeup);
        recvfrom(xsk->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
    }
}

static inline void
afxdp_counter_add(atomic_uint64_t *c, uint64_t n)
{
    uint64_t v;

    /* Single writer (the queue's owner): no read-modify-write atomic. */
    atomic_read_relaxed(c, &v);
    atomic_store_relaxed(c, v + n);
}

int
netdev_afxdp_rxq_recv(struct netdev_rxq *rxq_, struct dp_packet_batch *batch,
                      int *qfill)
{
    struct netdev_linux *dev = netdev_linux_cast(rxq_->netdev);
    struct netdev_afxdp_tx_lock *q;
    const struct afxdp_pool_layout *l;
    struct afxdp_xsk *xsk;
    uint64_t bytes = 0;
    uint32_t n, idx;

    if (OVS_UNLIKELY(!dev->tx_locks
                     || rxq_->queue_id >= rxq_->netdev->n_rxq)) {
        return EAGAIN;
    }
    q = &dev->tx_locks[rxq_->queue_id];
    xsk = q->xsk;
    l = q->layout;

    n = xsk_ring_cons__peek(&xsk->rx, NETDEV_MAX_BURST, &idx);
    if (!n) {
        afxdp_rxq_refill(q, 0);
        if (qfill) {
            *qfill = 0;
        }
        return EAGAIN;
    }

    for (uint32_t i = 0; i < n; i++) {
        const struct xdp_desc *desc = xsk_ring_cons__rx_desc(&xsk->rx,
                                                             idx + i);
        struct dp_packet_afxdp *xp = afxdp_pool_packet(l, desc->addr);
        uint64_t frame = afxdp_pool_frame_addr(l, desc->addr);

        dp_packet_use_afxdp(&xp->packet, afxdp_pool_ptr(l, desc->addr),
                            q->frame_size, desc->addr - frame);
        dp_packet_set_size(&xp->packet, desc->len);
        dp_packet_batch_add(batch, &xp->packet);
        bytes += desc->len;
    }
    /* The release barrier in libxdp's release pairs with the kernel's
     * acquire of the rx consumer: we are done with the descriptors. */
    xsk_ring_cons__release(&xsk->rx, n);
    afxdp_rxq_refill(q, n);

    afxdp_counter_add(&q->rx_packets, n);
    afxdp_counter_add(&q->rx_bytes, bytes);
    if (qfill) {
        *qfill = xsk_cons_nb_avail(&xsk->rx, UINT32_MAX);
    }
    return 0;
}

/* Returns to their pools, a pool at a time, the frames of the AF_XDP
 * packets of 'batch', and frees the other packets. */
static void
afxdp_free_batch(struct dp_packet_batch *batch)
{
    struct afxdp_pool *cur = NULL;
    uint64_t addrs[NETDEV_MAX_BURST];
    uint32_t n = 0;
    struct dp_packet *packet;

    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        struct dp_packet_afxdp *xp;
        struct afxdp_pool *pool;

        if (packet->source != DPBUF_AFXDP) {
            dp_packet_delete(packet);
            continue;
        }
        xp = CONTAINER_OF(packet, struct dp_packet_afxdp, packet);
        pool = afxdp_pool_from_umem_pool(xp->mpool);
        if (pool != cur || n == ARRAY_SIZE(addrs)) {
            if (n) {
                afxdp_pool_from_ovs(cur, addrs, n);
            }
            cur = pool;
            n = 0;
        }
        addrs[n++] = afxdp_pool_packet_addr(afxdp_pool_layout(pool), xp);
    }
    if (n) {
        afxdp_pool_from_ovs(cur, addrs, n);
    }
    dp_packet_batch_init(batch);
}

/* Returns to the pool the frames the kernel has finished sending. */
static inline void
afxdp_txq_reap(struct netdev_afxdp_tx_lock *q)
{
    struct afxdp_xsk *xsk = q->xsk;
    uint64_t addrs[NETDEV_MAX_BURST * 2];
    uint32_t n, idx;

    while (xsk->tx_in_flight) {
        n = xsk_ring_cons__peek(&xsk->comp, ARRAY_SIZE(addrs), &idx);
        if (!n) {
            break;
        }
        for (uint32_t i = 0; i < n; i++) {
            addrs[i] = afxdp_pool_frame_addr(
                q->layout, *xsk_ring_cons__comp_addr(&xsk->comp, idx + i));
        }
        xsk_ring_cons__release(&xsk->comp, n);
        afxdp_pool_put(q->pool, addrs, n);
        xsk->tx_in_flight -= MIN(n, xsk->tx_in_flight);
    }
}

/* Asks the kernel to send what is on the tx ring of 'q'. */
static inline void
afxdp_txq_kick(struct netdev_afxdp_tx_lock *q)
{
    struct afxdp_xsk *xsk = q->xsk;

    /* Copy mode sends only from sendto(); zero-copy drivers say through
     * need_wakeup whether they need it. */
    if (xsk->zero_copy && xsk->need_wakeup
        && !xsk_ring_prod__needs_wakeup(&xsk->tx)) {
        return;
    }
    COVERAGE_INC(afxdp_tx_wakeup);
    if (sendto(xsk->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0) {
        int error = errno;

        /* EAGAIN, EBUSY, ENOBUFS: the kernel is busy, what is on the ring
         * goes with the next kick.  ENETDOWN: the device is down. */
        if (error != EAGAIN && error != EBUSY && error != ENOBUFS
            && error != ENETDOWN) {
            afxdp_counter_add(&q->tx_kick_errors, 1);
            VLOG_WARN_RL(&rl, "queue %"PRIu32": AF_XDP tx kick failed: %s",
                         xsk->queue_id, ovs_strerror(error));
        }
    }
}

/* Copies the packets of 'batch' into frames of 'q''s pool and sends them.
 * Does not free 'batch'. */
static void
afxdp_txq_send(struct netdev_afxdp_tx_lock *q, struct dp_packet_batch *batch)
{
    struct afxdp_xsk *xsk = q->xsk;
    uint32_t cnt = dp_packet_batch_size(batch);
    uint64_t addrs[NETDEV_MAX_BURST];
    uint32_t n_frames, n_room, n_sent = 0, idx = 0;
    uint64_t bytes = 0, oversize = 0;
    struct dp_packet *packet;

    afxdp_txq_reap(q);

    n_room = xsk_prod_nb_free(&xsk->tx, cnt);
    if (n_room < cnt) {
        afxdp_txq_kick(q);
        afxdp_txq_reap(q);
        n_room = xsk_prod_nb_free(&xsk->tx, cnt);
    }
    n_room = MIN(n_room, cnt);
    n_frames = afxdp_pool_get(q->pool, addrs, n_room);
    if (n_frames < n_room) {
        afxdp_counter_add(&q->tx_drop_no_frame, n_room - n_frames);
    }
    if (n_room < cnt) {
        afxdp_counter_add(&q->tx_drop_ring_full, cnt - n_room);
    }
    if (!n_frames) {
        return;
    }

    xsk_ring_prod__reserve(&xsk->tx, n_frames, &idx);
    DP_PACKET_BATCH_FOR_EACH (j, packet, batch) {
        uint32_t size = dp_packet_size(packet);
        struct xdp_desc *desc;

        if (n_sent == n_frames) {
            break;
        }
        if (OVS_UNLIKELY(size > q->frame_size)) {
            oversize++;
            continue;
        }
        desc = xsk_ring_prod__tx_desc(&xsk->tx, idx + n_sent);
        desc->addr = addrs[n_sent];
        desc->len = size;
        desc->options = 0;
        memcpy(afxdp_pool_ptr(q->layout, addrs[n_sent]),
               dp_packet_data(packet), size);
        bytes += size;
        n_sent++;
    }
    if (n_sent < n_frames) {
        /* Oversized packets left frames and reserved slots unused: the
         * slots are the last ones, so submitting fewer gives them back. */
        afxdp_pool_put(q->pool, &addrs[n_sent], n_frames - n_sent);
        xsk->tx.cached_prod -= n_frames - n_sent;
    }
    if (oversize) {
        afxdp_counter_add(&q->tx_drop_oversize, oversize);
    }
    if (n_sent) {
        /* Release barrier in submit pairs with the kernel's acquire of the
         * tx producer: the descriptors and frame contents are visible. */
        xsk_ring_prod__submit(&xsk->tx, n_sent);
        xsk->tx_in_flight += n_sent;
        afxdp_txq_kick(q);
        afxdp_txq_reap(q);
        afxdp_counter_add(&q->tx_packets, n_sent);
        afxdp_counter_add(&q->tx_bytes, bytes);
    }
}

/* The lock is taken only when OVS shares the tx queue, which the thread
 * safety analysis cannot follow. */
int
netdev_afxdp_batch_send(struct netdev *netdev, int qid,
                        struct dp_packet_batch *batch, bool concurrent_txq)
    OVS_NO_THREAD_SAFETY_ANALYSIS
{
    struct netdev_linux *dev = netdev_linux_cast(netdev);
    struct netdev_afxdp_tx_lock *q;

    if (OVS_UNLIKELY(!dev->tx_locks || !netdev->n_txq)) {
        afxdp_free_batch(batch);
        return 0;
    }
    q = &dev->tx_locks[qid % netdev->n_txq];
    if (concurrent_txq) {
        ovs_spin_lock(&q->lock);
    }
    afxdp_txq_send(q, batch);
    if (concurrent_txq) {
        ovs_spin_unlock(&q->lock);
    }
    afxdp_free_batch(batch);
    return 0;
}

void
free_afxdp_buf(struct dp_packet *p)
{
    struct dp_packet_afxdp *xp = CONTAINER_OF(p, struct dp_packet_afxdp,
                                              packet);
    struct afxdp_pool *pool = afxdp_pool_from_umem_pool(xp->mpool);
    uint64_t addr = afxdp_pool_packet_addr(afxdp_pool_layout(pool), xp);

    afxdp_pool_from_ovs(pool, &addr, 1);
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
        rx->fd = dev->tx_locks[rxq_->queue_id].xsk->fd;
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

/* Statistics and status. */

static uint64_t
afxdp_counter_read(const atomic_uint64_t *c)
{
    uint64_t v;

    atomic_read_relaxed(CONST_CAST(atomic_uint64_t *, c), &v);
    return v;
}

int
netdev_afxdp_get_stats(const struct netdev *netdev, struct netdev_stats *st)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev);
    struct afxdp_port *port = afxdp_port_lookup(netdev);

    memset(st, 0, sizeof *st);
    ovs_mutex_lock(&dev->mutex);
    for (int i = 0; dev->tx_locks && i < netdev->n_rxq; i++) {
        const struct netdev_afxdp_tx_lock *q = &dev->tx_locks[i];
        struct xdp_statistics ks;

        st->rx_packets += afxdp_counter_read(&q->rx_packets);
        st->rx_bytes += afxdp_counter_read(&q->rx_bytes);
        st->tx_packets += afxdp_counter_read(&q->tx_packets);
        st->tx_bytes += afxdp_counter_read(&q->tx_bytes);
        st->tx_dropped += (afxdp_counter_read(&q->tx_drop_no_frame)
                           + afxdp_counter_read(&q->tx_drop_ring_full)
                           + afxdp_counter_read(&q->tx_drop_oversize));
        st->tx_errors += afxdp_counter_read(&q->tx_kick_errors);
        if (port && port->xsks
            && !afxdp_xsk_get_kernel_stats(q->xsk, &ks)) {
            st->rx_dropped += ks.rx_dropped + ks.rx_ring_full;
            st->rx_errors += ks.rx_invalid_descs;
            st->tx_errors += ks.tx_invalid_descs;
        }
    }
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

/* Builder for custom statistics. */
struct afxdp_stats_builder {
    struct netdev_custom_counter *c;
    size_t n, allocated;
};

static void OVS_PRINTF_FORMAT(3, 4)
afxdp_stat(struct afxdp_stats_builder *b, uint64_t value,
           const char *format, ...)
{
    va_list args;

    if (b->n >= b->allocated) {
        b->c = x2nrealloc(b->c, &b->allocated, sizeof *b->c);
    }
    va_start(args, format);
    vsnprintf(b->c[b->n].name, NETDEV_CUSTOM_STATS_NAME_SIZE, format, args);
    va_end(args);
    b->c[b->n].value = value;
    b->n++;
}

static void
afxdp_port_frame_stats(struct afxdp_port *port, struct netdev_linux *dev,
                       struct afxdp_stats_builder *b)
    OVS_REQUIRES(dev->mutex)
{
    struct afxdp_xsk_ring_counts sum = { 0, 0, 0, 0 };
    struct afxdp_pool_counts pc;
    uint64_t accounted;

    afxdp_pool_get_counts(port->pool, &pc);
    for (int i = 0; i < port->xsks->n; i++) {
        struct afxdp_xsk_ring_counts rc;

        afxdp_xsk_get_ring_counts(port->xsks->xsks[i], &rc);
        sum.fill += rc.fill;
        sum.rx += rc.rx;
        sum.tx += rc.tx;
        sum.comp += rc.comp;
    }
    accounted = ((uint64_t) pc.n_free + pc.n_in_ovs + sum.fill + sum.rx
                 + sum.tx + sum.comp);
    afxdp_stat(b, pc.n_frames, "afxdp_frames_total");
    afxdp_stat(b, pc.n_free, "afxdp_frames_free");
    afxdp_stat(b, sum.fill, "afxdp_frames_fill");
    afxdp_stat(b, sum.rx, "afxdp_frames_rx");
    afxdp_stat(b, pc.n_in_ovs, "afxdp_frames_in_ovs");
    afxdp_stat(b, sum.tx, "afxdp_frames_tx");
    afxdp_stat(b, sum.comp, "afxdp_frames_comp");
    afxdp_stat(b, accounted <= pc.n_frames ? pc.n_frames - accounted : 0,
               "afxdp_frames_in_kernel");
    (void) dev;
}

static void
afxdp_port_custom_stats(struct afxdp_port *port, struct netdev_linux *dev,
                        struct afxdp_stats_builder *b)
    OVS_REQUIRES(dev->mutex)
{
    static const char *const xsk_names[] = {
        "xsk_rx_dropped", "xsk_rx_invalid_descs", "xsk_tx_invalid_descs",
        "xsk_rx_ring_full", "xsk_rx_fill_ring_empty", "xsk_tx_ring_empty",
    };
    uint64_t drops[5] = { 0, 0, 0, 0, 0 };
    struct afxdp_xdp_stats ps;
    int n = port->netdev->n_rxq;

    if (!port->xsks || !dev->tx_locks) {
        return;
    }
    afxdp_port_frame_stats(port, dev, b);
    for (int i = 0; i < n; i++) {
        const struct netdev_afxdp_tx_lock *q = &dev->tx_locks[i];

        drops[0] += afxdp_counter_read(&q->tx_drop_no_frame);
        drops[1] += afxdp_counter_read(&q->tx_drop_ring_full);
        drops[2] += afxdp_counter_read(&q->tx_drop_oversize);
        drops[3] += afxdp_counter_read(&q->tx_kick_errors);
        drops[4] += afxdp_counter_read(&q->rx_fill_starved);
    }
    afxdp_stat(b, drops[0], "afxdp_tx_drop_no_frame");
    afxdp_stat(b, drops[1], "afxdp_tx_drop_ring_full");
    afxdp_stat(b, drops[2], "afxdp_tx_drop_oversize");
    afxdp_stat(b, drops[3], "afxdp_tx_kick_errors");
    afxdp_stat(b, drops[4], "afxdp_rx_fill_starved");

    for (int i = 0; i < n; i++) {
        struct xdp_statistics ks;
        uint64_t v[6];

        afxdp_xsk_get_kernel_stats(dev->tx_locks[i].xsk, &ks);
        v[0] = ks.rx_dropped;
        v[1] = ks.rx_invalid_descs;
        v[2] = ks.tx_invalid_descs;
        v[3] = ks.rx_ring_full;
        v[4] = ks.rx_fill_ring_empty_descs;
        v[5] = ks.tx_ring_empty_descs;
        for (size_t k = 0; k < ARRAY_SIZE(xsk_names); k++) {
            afxdp_stat(b, v[k], "rxq%d_%s", i, xsk_names[k]);
        }
    }

    if (port->xdp && !afxdp_xdp_get_stats(port->xdp, &ps)) {
        for (int k = 0; k < AFXDP_PROG_N_COUNTERS; k++) {
            afxdp_stat(b, ps.counters[k], "%s", afxdp_xdp_counter_name(k));
        }
    }
}

int
netdev_afxdp_get_custom_stats(const struct netdev *netdev,
                              struct netdev_custom_stats *custom_stats)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev);
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    struct afxdp_stats_builder b = { NULL, 0, 0 };

    if (port) {
        ovs_mutex_lock(&dev->mutex);
        afxdp_port_custom_stats(port, dev, &b);
        ovs_mutex_unlock(&dev->mutex);
    }
    custom_stats->counters = b.c;
    custom_stats->size = b.n;
    return 0;
}

/* Adds to 'smap' the status of queue 'i' of a port, socket 'xsk'. */
static void
afxdp_queue_status(const struct afxdp_xsk *xsk, int i, struct smap *smap)
{
    struct afxdp_busy_poll bp;

    smap_add_nocopy(smap, xasprintf("rxq%d-mode", i),
                    xstrdup(xsk->zero_copy ? "zero-copy" : "copy"));
    smap_add_nocopy(smap, xasprintf("rxq%d-mode-requested", i),
                    xstrdup(afxdp_xsk_mode_to_string(xsk->mode_requested)));
    if (xsk->mode_reason) {
        smap_add_nocopy(smap, xasprintf("rxq%d-mode-reason", i),
                        xstrdup(xsk->mode_reason));
    }
    smap_add_nocopy(smap, xasprintf("rxq%d-device-queue", i),
                    xasprintf("%"PRIu32, xsk->queue_id));
    /* Read back from the socket: what the kernel has, not what we asked. */
    if (afxdp_xsk_get_busy_poll(xsk, &bp)) {
        smap_add_nocopy(smap, xasprintf("rxq%d-busy-poll", i),
                        xstrdup("unknown"));
    } else if (!bp.usecs) {
        smap_add_nocopy(smap, xasprintf("rxq%d-busy-poll", i),
                        xstrdup("off"));
    } else {
        smap_add_nocopy(smap, xasprintf("rxq%d-busy-poll", i),
                        xasprintf("usecs=%"PRIu32" budget=%"PRIu16
                                  " prefer=%s", bp.usecs, bp.budget,
                                  bp.prefer ? "true" : "false"));
    }
}

/* Adds the device rx queues that 'port' does not bind, e.g. "0-1,4-7". */
static void
afxdp_port_unbound_status(const struct afxdp_port *port, struct smap *smap)
{
    int first = port->start_queue, last = first + port->netdev->n_rxq - 1;
    struct ds s = DS_EMPTY_INITIALIZER;

    if (first > 0) {
        ds_put_format(&s, first > 1 ? "0-%d" : "0", first - 1);
    }
    if (port->n_dev_rxq > last + 1) {
        ds_put_format(&s, "%s%d", s.length ? "," : "", last + 1);
        if (port->n_dev_rxq > last + 2) {
            ds_put_format(&s, "-%d", port->n_dev_rxq - 1);
        }
    }
    if (s.length) {
        smap_add(smap, "unbound-rx-queues", ds_cstr(&s));
    }
    ds_destroy(&s);
}

/* When some queue busy-polls in preferred mode, adds the device's NAPI
 * settings that preferred busy polling depends on. */
static void
afxdp_port_busy_poll_status(const struct afxdp_port *port, struct smap *smap)
{
    const char *name = netdev_get_name(port->netdev);
    long long int defer, flush;
    bool prefer = false;

    for (int i = 0; i < port->xsks->n; i++) {
        struct afxdp_busy_poll bp;

        if (!afxdp_xsk_get_busy_poll(port->xsks->xsks[i], &bp)
            && bp.usecs && bp.prefer) {
            prefer = true;
        }
    }
    if (!prefer) {
        return;
    }
    defer = afxdp_device_sysfs_int(name, "napi_defer_hard_irqs");
    flush = afxdp_device_sysfs_int(name, "gro_flush_timeout");
    smap_add_format(smap, "napi-defer-hard-irqs", "%lld", defer);
    smap_add_format(smap, "gro-flush-timeout", "%lld", flush);
    if (defer <= 0 || flush <= 0) {
        smap_add_format(smap, "busy-poll-note", "preferred busy polling "
                        "needs /sys/class/net/%s/napi_defer_hard_irqs and "
                        "gro_flush_timeout above 0, or the device's "
                        "interrupts keep processing the queues", name);
    }
}

static void
afxdp_port_status(struct afxdp_port *port, struct netdev_linux *dev,
                  struct smap *smap)
    OVS_REQUIRES(dev->mutex)
{
    (void) dev;     /* Only for the lock annotation. */
    const struct afxdp_config *cfg = port->xsks ? &port->active
                                                : &port->requested;

    smap_add(smap, "xdp-mode", afxdp_mode_to_string(cfg->xdp_mode));
    if (port->error) {
        smap_add(smap, "error", port->error);
    }
    if (!port->xsks) {
        return;
    }
    smap_add(smap, "xdp-mode-in-use",
             afxdp_mode_to_string(port->mode_in_use));
    smap_add(smap, "xdp-attach", afxdp_xdp_attach_desc(port->xdp));
    smap_add_format(smap, "xdp-prog-id", "%"PRIu32,
                    afxdp_xdp_prog_id(port->xdp));
    smap_add_format(smap, "n_rxq", "%d", port->netdev->n_rxq);
    smap_add_format(smap, "start-queue", "%d", port->start_queue);
    if (port->n_dev_rxq) {
        smap_add_format(smap, "device-rx-queues", "%d", port->n_dev_rxq);
    }
    smap_add(smap, "use-need-wakeup",
             cfg->use_need_wakeup ? "true" : "false");
    smap_add_format(smap, "xsk-ring-size", "%"PRIu32, cfg->ring_size);
    smap_add_format(smap, "umem-frames", "%"PRIu32,
                    afxdp_config_n_frames(cfg, port->netdev->n_rxq));
    smap_add_format(smap, "umem-numa", "%d",
                    afxdp_pool_numa_id(port->pool));
    afxdp_port_unbound_status(port, smap);
    for (int i = 0; i < port->xsks->n; i++) {
        afxdp_queue_status(port->xsks->xsks[i], i, smap);
    }
    afxdp_port_busy_poll_status(port, smap);
    if (port->zc_fallback) {
        smap_add(smap, "zero-copy-fallback", port->zc_fallback);
    }
}

static int
netdev_afxdp_get_status(const struct netdev *netdev, struct smap *smap)
{
    struct netdev_linux *dev = netdev_linux_cast(netdev);
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    const struct netdev_class *orig
        = (netdev->netdev_class == &afxdp_class_pmd
           ? &netdev_afxdp_class : &netdev_afxdp_nonpmd_class);

    /* Driver name and version, as for any Linux device. */
    orig->get_status(netdev, smap);
    if (port) {
        ovs_mutex_lock(&dev->mutex);
        afxdp_port_status(port, dev, smap);
        ovs_mutex_unlock(&dev->mutex);
    }
    return 0;
}

/* Appends status and custom statistics of 'netdev' to 'ds'. */
static void
afxdp_port_show(struct netdev *netdev, struct ds *ds)
{
    struct netdev_custom_stats cs;
    const struct smap_node **nodes;
    struct smap status;

    smap_init(&status);
    netdev_afxdp_get_status(netdev, &status);
    ds_put_format(ds, "%s:\n", netdev_get_name(netdev));
    nodes = smap_sort(&status);
    for (size_t i = 0; i < smap_count(&status); i++) {
        ds_put_format(ds, "  %s: %s\n", nodes[i]->key, nodes[i]->value);
    }
    free(nodes);
    smap_destroy(&status);

    netdev_afxdp_get_custom_stats(netdev, &cs);
    for (size_t i = 0; i < cs.size; i++) {
        ds_put_format(ds, "  %s: %"PRIu64"\n", cs.counters[i].name,
                      cs.counters[i].value);
    }
    netdev_free_custom_stats_counters(&cs);
}

static void
netdev_afxdp_unixctl_show(struct unixctl_conn *conn, int argc,
                          const char *argv[], void *aux OVS_UNUSED)
{
    struct netdev **netdevs = NULL;
    size_t n = 0, allocated = 0;
    struct afxdp_port *port;
    struct ds ds = DS_EMPTY_INITIALIZER;

    ovs_mutex_lock(&afxdp_ports_mutex);
    HMAP_FOR_EACH (port, node, &afxdp_ports) {
        if (argc < 2 || !strcmp(netdev_get_name(port->netdev), argv[1])) {
            if (n >= allocated) {
                netdevs = x2nrealloc(netdevs, &allocated, sizeof *netdevs);
            }
            netdevs[n++] = netdev_ref(port->netdev);
        }
    }
    ovs_mutex_unlock(&afxdp_ports_mutex);

    if (argc >= 2 && !n) {
        unixctl_command_reply_error(conn, "no such afxdp port");
        free(netdevs);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        afxdp_port_show(netdevs[i], &ds);
        netdev_close(netdevs[i]);
    }
    free(netdevs);
    unixctl_command_reply(conn, ds_cstr(&ds));
    ds_destroy(&ds);
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
