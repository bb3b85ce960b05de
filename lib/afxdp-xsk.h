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

#ifndef AFXDP_XSK_H
#define AFXDP_XSK_H 1

/* AF_XDP sockets of one port: set-up, tear-down, frame reclaim and kernel
 * statistics.
 *
 * A port has one socket per rx queue, all sharing the port's UMEM
 * (XDP_SHARED_UMEM), each with its own fill and completion ring.  The
 * sockets of a port form a 'struct afxdp_xsk_set'.
 *
 * Ownership of a socket's rings (who may touch them without a lock):
 *   - rx and fill: the thread polling that rx queue;
 *   - tx and completion: the thread sending on the tx queue of the same
 *     index, under the port's tx lock for that queue when OVS says the
 *     queue is shared.
 * Set-up and tear-down (control path) happen while no thread polls or sends
 * (OVS calls reconfigure and destruct with the port out of every PMD).
 *
 * The ring indexes are read here only for accounting and at tear-down. */

#include <stdbool.h>
#include <stdint.h>
#include <xdp/xsk.h>

#include "afxdp-config.h"
#include "netdev-afxdp-pool.h"
#include "openvswitch/compiler.h"

struct xsk_umem;
struct afxdp_xsk_umem;

/* How to create the sockets of a port. */
struct afxdp_xsk_params {
    uint32_t ring_size;         /* Entries in each of the four rings. */
    bool need_wakeup;           /* Bind with XDP_USE_NEED_WAKEUP. */
    bool sg;                    /* Bind with XDP_USE_SG (multi-buffer):
                                 * see "Multi-buffer" below. */
    bool tx_metadata;           /* Copy-mode sockets keep TX metadata:
                                 * see "TX metadata" below. */
};

/* How to create the socket of one queue. */
struct afxdp_xsk_queue_params {
    uint32_t device_queue;      /* Device rx queue to bind. */
    enum afxdp_xsk_mode mode;   /* Zero-copy, copy or auto (not default). */
    struct afxdp_busy_poll busy_poll;   /* Socket busy-poll options. */
};

/* One AF_XDP socket. */
struct afxdp_xsk {
    /* Fast path.  See the ownership rules above. */
    struct xsk_ring_cons rx;    /* Received descriptors. */
    struct xsk_ring_prod fill;  /* Free frames for the kernel to fill. */
    struct xsk_ring_prod tx;    /* Descriptors to send. */
    struct xsk_ring_cons comp;  /* Sent frames coming back. */
    int fd;                     /* The socket. */
    bool need_wakeup;           /* Bound with XDP_USE_NEED_WAKEUP. */
    bool busy_poll;             /* Busy polling: kick on every empty poll. */
    bool zero_copy;             /* Bound in zero-copy mode. */
    bool sg;                    /* Bound with XDP_USE_SG: a packet may
                                 * span several descriptors. */
    uint32_t tx_in_flight;      /* Submitted to tx, not yet completed. */
    uint32_t tx_metadata_len;   /* Bytes of TX metadata in front of each
                                 * sent descriptor's data, 0 if none. */

    /* Control path. */
    uint32_t queue_id;          /* Device rx queue it is bound to. */
    enum afxdp_xsk_mode mode_requested;  /* As asked. */
    uint16_t busy_poll_budget;  /* SO_BUSY_POLL_BUDGET as set (the kernel
                                 * has no getsockopt for it). */
    char *mode_reason;          /* Why not zero-copy although asked, or
                                 * NULL. */
    struct xsk_socket *socket;  /* libxdp's handle, NULL for a socket of
                                 * the set's own registration. */
};

/* Where the frames of a socket are, from its ring indexes. */
struct afxdp_xsk_ring_counts {
    uint32_t fill;              /* In the fill ring. */
    uint32_t rx;                /* In the rx ring. */
    uint32_t tx;                /* In the tx ring. */
    uint32_t comp;              /* In the completion ring. */
};

/* The sockets of one port.
 *
 * With XDP_SHARED_UMEM, a socket inherits the copy or zero-copy mode of the
 * UMEM's first socket.  To bind queues in different modes the set registers
 * the pool's memory once per mode: the frame allocator keeps each frame in
 * one place whatever registration it is used through.  A registration
 * exists only while a socket is bound through it.  Once the driver refused
 * zero-copy, the set asks no more: the other queues get the same answer
 * without registering the memory again.
 *
 * The rings belong to libxdp: only libxdp's xsk_socket__delete() and
 * xsk_umem__delete() unmap them.
 *
 * Multi-buffer.  With 'params.sg' every socket binds with XDP_USE_SG
 * (Linux 6.6): a packet larger than a frame then comes as several rx
 * descriptors, all but the last with XDP_PKT_CONTD in 'options', and may
 * be sent the same way (at most AFXDP_XSK_TX_MAX_FRAGS descriptors in
 * copy mode).  Sockets sharing a registration inherit the flags of its
 * first socket (the kernel takes no flags with XDP_SHARED_UMEM), so all
 * the sockets of one registration agree.  A driver without multi-buffer
 * in zero-copy mode refuses the flag there (EOPNOTSUPP): the set then
 * binds zero-copy without it and says so ('sg_refused'); copy mode
 * always takes it.
 *
 * TX metadata.  With 'params.tx_metadata' the copy-mode sockets share a
 * registration of the pool's memory that this module makes itself
 * (lib/afxdp-xsk-umem.c: libxdp 1.3 cannot ask for TX metadata), with
 * AFXDP_XSK_UMEM_TXMD_LEN bytes in front of every sent descriptor
 * ('tx_metadata_len' of such a socket): a sent descriptor's address must
 * then lie that far into its frame.  Zero-copy sockets keep libxdp's
 * registration without metadata: whether a driver acts on it in zero-copy
 * mode is not checked here. */
struct afxdp_xsk_set {
    struct afxdp_pool *pool;    /* Not owned: the port's UMEM pool. */
    struct xsk_umem *umem[2];   /* Registrations: [0] copy, [1] zero-copy. */
    struct afxdp_xsk_umem *own; /* Copy-mode registration with TX
                                 * metadata, instead of 'umem[0]'. */
    struct afxdp_xsk_params params;
    int zc_refused;             /* Errno of the driver's refusal of
                                 * zero-copy, 0 if it did not refuse. */
    bool sg_refused;            /* The driver refused XDP_USE_SG in
                                 * zero-copy mode. */
    int n;                      /* Number of sockets in 'xsks'. */
    struct afxdp_xsk **xsks;    /* Socket i is bound to rx queue i. */
};

/* Descriptors of one packet the kernel takes on transmit in copy mode:
 * the skb's linear part and MAX_SKB_FRAGS (17) pages. */
#define AFXDP_XSK_TX_MAX_FRAGS 18

bool afxdp_xsk_sg_supported(void);
int afxdp_xsk_check_memlock(const char *devname, uint64_t bytes, bool raise,
                            char **errp);
int afxdp_xsk_set_open(const char *devname, struct afxdp_pool *,
                       int n_queues, const struct afxdp_xsk_params *,
                       const struct afxdp_xsk_queue_params *,
                       struct afxdp_xsk_set **setp, char **errp);
uint32_t afxdp_xsk_set_close(struct afxdp_xsk_set *);

/* Whether the kernel dropped a received frame on a socket of 'set' for a
 * full rx ring or another reason (XDP_STATISTICS rx_ring_full,
 * rx_dropped).  It keeps the frames of such a packet for its next ones,
 * out of every ring: at close they are the frames afxdp_xsk_set_close()
 * cannot return. */
bool afxdp_xsk_set_kernel_dropped(const struct afxdp_xsk_set *);
uint32_t afxdp_xsk_set_zc_max_segs(const struct afxdp_xsk_set *,
                                   int ifindex);

void afxdp_xsk_get_ring_counts(const struct afxdp_xsk *,
                               struct afxdp_xsk_ring_counts *);
int afxdp_xsk_get_kernel_stats(const struct afxdp_xsk *,
                               struct xdp_statistics *);
int afxdp_xsk_get_busy_poll(const struct afxdp_xsk *,
                            struct afxdp_busy_poll *);

void afxdp_xsk_tx_overcompleted(struct afxdp_xsk *, uint32_t n);
uint32_t afxdp_xsk_comp_bad(struct afxdp_xsk *, uint64_t addrs[],
                            uint32_t n, const struct afxdp_pool_layout *);

/* Records that 'n' frames sent on 'xsk' came back through its completion
 * ring.  Called by the owner of the tx and completion rings. */
static inline void
afxdp_xsk_tx_completed(struct afxdp_xsk *xsk, uint32_t n)
{
    if (OVS_LIKELY(n <= xsk->tx_in_flight)) {
        xsk->tx_in_flight -= n;
    } else {
        afxdp_xsk_tx_overcompleted(xsk, n);
    }
}

/* Returns the frame of 'addr', an address read from a completion ring
 * laid out as 'l', and sets '*bad' if it lies outside the UMEM.  Each
 * address is checked as received descriptors are (afxdp_pool_rx_desc_ok()):
 * the kernel only returns what it was given, so a bad one is a kernel or
 * driver bug, or memory written by someone else. */
static inline uint64_t
afxdp_xsk_comp_frame(const struct afxdp_pool_layout *l, uint64_t addr,
                     bool *bad)
{
    *bad |= addr >= l->area_size;
    return afxdp_pool_frame_addr(l, addr);
}

/* Records that the 'n' frames 'addrs', taken off the completion ring of
 * 'xsk' through afxdp_xsk_comp_frame() ('bad' as it set it), came back,
 * and puts them into 'pool' (whose layout is 'l'), except those outside
 * the UMEM: they are counted and left out rather than corrupting the
 * pool.  Returns how many went back into 'pool'. */
static inline uint32_t
afxdp_xsk_comp_put(struct afxdp_xsk *xsk, struct afxdp_pool *pool,
                   const struct afxdp_pool_layout *l, uint64_t addrs[],
                   uint32_t n, bool bad)
{
    afxdp_xsk_tx_completed(xsk, n);
    if (OVS_UNLIKELY(bad)) {
        n = afxdp_xsk_comp_bad(xsk, addrs, n, l);
    }
    if (n) {
        afxdp_pool_put(pool, addrs, n);
    }
    return n;
}

/* Takes at most 'max' frames that the kernel finished sending off the
 * completion ring of 'xsk', puts them back into 'pool' (whose layout is
 * 'l') through afxdp_xsk_comp_put() and returns how many it took.
 * 'addrs' is room for 'max'. */
static inline uint32_t
afxdp_xsk_reap(struct afxdp_xsk *xsk, struct afxdp_pool *pool,
               const struct afxdp_pool_layout *l, uint64_t addrs[],
               uint32_t max)
{
    uint32_t n, idx;
    bool bad = false;

    n = xsk_ring_cons__peek(&xsk->comp, max, &idx);
    for (uint32_t i = 0; i < n; i++) {
        addrs[i] = afxdp_xsk_comp_frame(
            l, *xsk_ring_cons__comp_addr(&xsk->comp, idx + i), &bad);
    }
    xsk_ring_cons__release(&xsk->comp, n);
    afxdp_xsk_comp_put(xsk, pool, l, addrs, n, bad);
    return n;
}

#endif /* afxdp-xsk.h */
