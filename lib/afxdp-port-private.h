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

#ifndef AFXDP_PORT_PRIVATE_H
#define AFXDP_PORT_PRIVATE_H 1

/* State of an afxdp port, shared by the provider's files:
 *   lib/afxdp-port.c    the registry of ports (declared at the end);
 *   lib/netdev-afxdp.c  life cycle;
 *   lib/afxdp-rxtx.c    receive and send;
 *   lib/afxdp-stats.c   statistics, status, netdev-afxdp/show;
 *   lib/afxdp-offload.c flow offload into the port's XDP program;
 *   lib/afxdp-offload-egress.c  tells OVS that an egress port's offload
 *                       status changed.
 * Not for other modules.  Locking is described at the top of
 * lib/netdev-afxdp.c. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "afxdp-config.h"
#include "afxdp-clock.h"
#include "afxdp-counters.h"
#include "afxdp-latency.h"
#include "afxdp-police.h"
#include "afxdp-xdp.h"
#include "afxdp-xsk.h"
#include "netdev-afxdp-pool.h"
#include "xdp-hints.h"
#include "openvswitch/hmap.h"
#include "openvswitch/thread.h"
#include "ovs-atomic.h"
#include "smap.h"
#include "util.h"

struct afxdp_offload;
struct afxdp_qos;
struct netdev;
struct netdev_class;
struct afxdp_offload_marks;

/* Bytes the kernel keeps in front of a received packet in its frame
 * (XDP_PACKET_HEADROOM), which also leaves OVS room to push headers. */
#define AFXDP_RX_HEADROOM 256

/* State of one queue of a port: its socket, the lock that serializes
 * senders when OVS shares the tx queue, and the queue's counters, rx and
 * tx halves on separate cache lines.  The rx queue and the tx queue of
 * the same number share it: a socket has both an rx and a tx ring. */
struct afxdp_queue {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        /* Receive half: used by the thread polling rx queue 'queue_id'. */
        struct afxdp_xsk *xsk;                  /* The queue's socket. */
        struct afxdp_pool *pool;                /* The port's UMEM. */
        const struct afxdp_pool_layout *layout; /* Of 'pool'. */
        uint32_t frame_size;                    /* Of 'pool'. */
        /* The RX counters of afxdp-counters.h. */
        AFXDP_ALL_QUEUE_COUNTERS(AFXDP_COUNTER_MEMBER_RX)
        bool rx_csum_fix;                       /* options:rx-checksum-
                                                 * partial (see
                                                 * afxdp-rxcsum.h). */
        bool rx_gro;                            /* options:rx-gro (see
                                                 * afxdp-rxgro.h). */
        const struct xdp_hints_decoder *hints;  /* NULL: hints off. */
        struct afxdp_latency_hist *k2p;         /* Kernel to PMD, if
                                                 * 'hints'. */
        struct afxdp_latency_flows *flows;      /* Per flow (by the RSS
                                                 * hash from hints), if
                                                 * 'hints'. */
        struct afxdp_clock rx_clock;            /* For kernel to PMD. */
        struct afxdp_latency_sampler sampler;   /* Packets to time, if
                                                 * 'hints'. */
        const struct afxdp_offload_marks *marks;    /* The program's flow
                                                     * marks, as OVS's. */
        atomic_bool *ring_grow;                 /* The port's 'ring_grow'
                                                 * while its rings are
                                                 * small and may grow,
                                                 * else NULL. */
        struct netdev *netdev;                  /* The port's, for
                                                 * afxdp_queue_ring_busy(). */
        uint32_t ring_busy;                     /* Entries waiting on the
                                                 * rx ring that say the
                                                 * port is busy: half the
                                                 * ring. */
        atomic_bool dev_gone;                   /* The device was removed:
                                                 * receive nothing, drop
                                                 * what is sent. */
        atomic_bool tx_kick_owed;               /* A tx kick found the
                                                 * kernel busy: descriptors
                                                 * may wait on the tx ring
                                                 * for one.  Set by the
                                                 * sender, cleared by the
                                                 * poller of rx queue
                                                 * 'queue_id', which kicks
                                                 * (see afxdp-rxtx.c).
                                                 * Zeroed: none owed. */
    );
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        /* Send half: used by whoever sends on tx queue 'queue_id', under
         * 'lock' when OVS says the queue is shared. */
        struct ovs_spin lock;                   /* Serializes senders. */
        /* The TX counters of afxdp-counters.h. */
        AFXDP_ALL_QUEUE_COUNTERS(AFXDP_COUNTER_MEMBER_TX)
        uint32_t tx_headroom;                   /* Bytes of TX metadata in
                                                 * front of a sent
                                                 * descriptor's data (the
                                                 * socket's). */
        uint32_t tx_room;                       /* Bytes a sent descriptor
                                                 * holds: 'frame_size' less
                                                 * 'tx_headroom'. */
        uint32_t tx_max_descs;                  /* Descriptors a sent
                                                 * packet may span: up to
                                                 * AFXDP_XSK_TX_MAX_FRAGS in
                                                 * copy mode, the driver's
                                                 * zero-copy limit (1 if
                                                 * unknown) otherwise. */
        atomic_uint32_t tx_max_len;             /* Largest packet sent in
                                                 * several descriptors:
                                                 * the device's MTU and an
                                                 * Ethernet and two VLAN
                                                 * headers.  Set by the
                                                 * main thread. */
        atomic_uint32_t tx_mtu;                 /* The device's MTU, the
                                                 * largest IP packet of a
                                                 * TCP segment we cut (0:
                                                 * unknown, a frame's
                                                 * worth).  Set with
                                                 * 'tx_max_len'. */
        int tx_gso_fd;                          /* The port's packet
                                                 * socket for TCP packets
                                                 * too large to send
                                                 * whole through AF_XDP
                                                 * (afxdp-txgso.h), -1 if
                                                 * none. */
        uint8_t *tx_train;                      /* Where tunnelled TCP
                                                 * packets are written as
                                                 * trains for it
                                                 * (AFXDP_TXGSO_TRAIN_BUF
                                                 * bytes), or NULL until
                                                 * the first. */
        bool tx_no_trains;                      /* The kernel refused a
                                                 * train (no UDP GSO):
                                                 * such packets are cut
                                                 * here. */
        struct afxdp_pair *pairs;               /* AFXDP_MAX_PAIRS ingress
                                                 * ports' latency to here. */
        atomic_uint64_t tx_pairs_full;          /* Samples of ingress ports
                                                 * beyond AFXDP_MAX_PAIRS. */
        struct afxdp_clock tx_clock;            /* For ingress to egress,
                                                 * and the egress
                                                 * policer. */
        struct afxdp_qos *qos;                  /* The port's egress QoS
                                                 * (afxdp-qos.h). */
    );
};

/* Adds 'n' to counter 'c' of a queue: single writer (the queue's owner), so
 * no read-modify-write atomic. */
static inline void
afxdp_counter_add(atomic_uint64_t *c, uint64_t n)
{
    uint64_t v;

    atomic_read_relaxed(c, &v);
    atomic_store_relaxed(c, v + n);
}

/* lib/netdev-linux-private.h gives every afxdp netdev an array 'tx_locks'
 * of 'struct netdev_afxdp_tx_lock', a type it names for a tx queue's lock
 * and leaves to the provider: for us each entry is a whole queue, 'q'.
 * The array is replaced only by reconfigure, when no thread polls or
 * sends on the port. */
struct netdev_afxdp_tx_lock {
    struct afxdp_queue q;
};

/* Ingress to egress latency from one ingress port, kept by the egress
 * port's tx queue (single writer: whoever holds that queue). */
#define AFXDP_MAX_PAIRS 16
struct afxdp_pair {
    atomic_uint32_t ingress;    /* Ingress port id, 0 if the slot is free. */
    struct afxdp_latency_hist hist;     /* Its samples. */
};

/* The counters of the queues and sockets that a port closed (when it was
 * reconfigured: options changed, rings grown, the device replaced), which
 * its statistics go on adding, so that they never go back.  Not the XDP
 * hints counters, which describe the hints in effect, as the latency
 * statistics do: they start again with the port's new configuration. */
struct afxdp_retired {
    AFXDP_TRAFFIC_COUNTERS(AFXDP_COUNTER_MEMBER_RETIRED)
    AFXDP_QUEUE_COUNTERS(AFXDP_COUNTER_MEMBER_RETIRED)
    AFXDP_XSK_KERNEL_COUNTERS(AFXDP_XSK_MEMBER_RETIRED)
    uint64_t prog[AFXDP_PROG_N_COUNTERS];   /* Of the XDP programs. */
};

/* State of a port that only the control path needs, found from the netdev
 * through the registry (lib/afxdp-port.c). */
struct afxdp_port {
    struct hmap_node node;          /* In 'afxdp_ports', by netdev. */
    struct netdev *netdev;          /* The netdev (not a reference). */
    struct ovs_mutex *mutex;        /* The netdev_linux mutex of 'netdev',
                                     * which guards the members below. */
    struct netdev_afxdp_tx_lock **queues;   /* Its 'tx_locks' array. */

    /* Guarded by the netdev_linux mutex of 'netdev'. */
    struct afxdp_config requested;  /* From set_config. */
    struct smap set_args;           /* The options set_config last
                                     * accepted, if 'set_args_valid'. */
    bool set_args_valid;
    struct afxdp_config active;     /* In effect, valid if 'xsks'. */
    int ifindex;                    /* Device index when configured. */
    int n_dev_rxq;                  /* Device rx queues, 0 if unknown. */
    int n_rxq;                      /* Queues bound, if 'xsks'. */
    int start_queue;                /* First device queue bound. */
    uint32_t ring_size;             /* Entries of each ring, if 'xsks'
                                     * (afxdp_config_ring_for()). */
    uint32_t n_frames;              /* UMEM frames, if 'xsks'. */
    bool ring_can_grow;             /* 'ring_size' is a veth's small one,
                                     * which grows when busy, if 'xsks'. */
    bool ring_grown;                /* It grew, if 'xsks'. */
    bool rx_csum;                   /* Looks for partial checksums, if
                                     * 'xsks' (afxdp_config_rx_csum_for()),
                                     * its frames coming from... */
    enum afxdp_rx_csum_source rx_csum_src;  /* ...this. */
    atomic_bool ring_grow;          /* Set by a queue that found its small
                                     * rings busy (afxdp_queue_ring_busy()):
                                     * reconfigure opens the port again with
                                     * the larger rings.  Never cleared. */
    struct afxdp_pool *pool;        /* UMEM pool, or NULL. */
    struct afxdp_xsk_set *xsks;     /* Sockets, or NULL. */
    struct afxdp_xdp *xdp;          /* Our XDP program, or NULL. */
    bool keep_xdp;                  /* Reconfigure reopens the port for its
                                     * rings or MTU only: close and open
                                     * keep 'xdp', its hints decoder and
                                     * its offloaded flows. */
    atomic_bool xdp_lean;           /* 'xdp' was loaded without the lookup
                                     * in offloaded flows (flow offload was
                                     * off), for the offload providers. */
    enum afxdp_mode mode_in_use;    /* Effective mode, if 'xsks'. */
    char *zc_fallback;              /* Why zero-copy is not in use. */
    const char *mode_reason;        /* Why 'mode_in_use' (static). */
    int tx_gso_fd;                  /* Packet socket for TCP packets over
                                     * the MTU (afxdp-txgso.h), or -1. */
    char *tx_gso_why;               /* Why it is -1 although
                                     * options:tx-segmentation=kernel, or
                                     * NULL. */
    const char *tx_csum;            /* Status "tx-csum-offload": whether
                                     * TX checksum offload is in use and
                                     * why not (a literal), if 'xsks'. */
    char *mtu_refused;              /* Why the last mtu_request was
                                     * refused, or NULL. */
    char *error;                    /* Why the port is not working. */
    bool dev_gone;                  /* The device 'ifindex' was removed
                                     * under the open sockets. */
    atomic_int link_ifindex;        /* 'ifindex' while the port has
                                     * sockets (also once its device is
                                     * gone), else 0: for the rtnetlink
                                     * notifier. */
    atomic_bool link_gone;          /* 'dev_gone', for the notifier. */
    atomic_int link_max_mtu;        /* Largest device MTU the sockets
                                     * carry, for the notifier. */
    atomic_int ifindex_for_signal;  /* 'ifindex' for the fatal signal
                                     * hook, 0 if no program attached. */
    uint32_t id;                    /* Unique in this process, never 0. */
    struct xdp_hints_decoder *hints_dec;    /* NULL if hints are off. */
    struct afxdp_offload *offload;  /* Flow offload state (its own mutex). */
    struct afxdp_police_config police;  /* Ingress policing, from
                                         * set_policing (normalized). */
    char *police_error;             /* Why 'police' is not enforced, or
                                     * NULL. */
    struct afxdp_qos *qos;          /* Egress QoS (set_qos), for the
                                     * port's life. */
    atomic_bool egress_policed;     /* An egress-policer is in effect
                                     * ('qos'), for the offload. */
    struct afxdp_retired retired;   /* Of the queues and sockets closed. */
};

/* The registry (lib/afxdp-port.c): every afxdp port, by netdev. */
extern struct ovs_mutex afxdp_ports_mutex;
extern struct hmap afxdp_ports OVS_GUARDED_BY(afxdp_ports_mutex);

struct afxdp_port *afxdp_port_lookup(const struct netdev *);
bool afxdp_port_egress_policed(int ifindex);
int afxdp_port_max_mtu(const struct afxdp_port *, const char **why);
bool afxdp_port_multi_buffer(const struct afxdp_port *);
struct netdev **afxdp_port_ref_all(const char *name, size_t *n);
char *afxdp_port_name_by_id(uint32_t id);
void afxdp_port_offload_turned_on(struct netdev *);
void afxdp_queue_ring_busy(struct afxdp_queue *);
bool afxdp_port_ring_grow_due(const struct afxdp_port *);
bool afxdp_port_args_same(struct afxdp_port *, const struct smap *args);
void afxdp_port_args_keep(struct afxdp_port *, const struct smap *args);

struct smap;
/* Adds what OVS's Linux class reports of any Linux device (driver name and
 * version) to 'smap'. */
void afxdp_port_linux_status(const struct netdev *, struct smap *);

/* The queues of afxdp 'netdev' (its 'tx_locks' array: queue i is
 * [i].q), or NULL before its first reconfigure.  For the fast path, which
 * must not use the array while reconfigure replaces it (OVS guarantees
 * that). */
struct netdev_afxdp_tx_lock *afxdp_port_queues(const struct netdev *);

#endif /* afxdp-port-private.h */
