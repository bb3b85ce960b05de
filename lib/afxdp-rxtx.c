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

/* The receive and send fast paths of afxdp ports: the PMD (or main)
 * thread's rxq_recv and any thread's batch_send, and the return of UMEM
 * frames that OVS frees.  No syscall but the need-wakeup kick, no
 * allocation, no unrate-limited log.  The per-queue state they use,
 * 'struct afxdp_queue', is described in afxdp-port-private.h. */

#include <config.h>

#include "netdev-afxdp.h"

#include <errno.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <xdp/xsk.h>

#include "afxdp-big-packet.h"
#include "afxdp-compat.h"
#include "afxdp-config.h"
#include "afxdp-offload-marks.h"
#include "afxdp-port-private.h"
#include "afxdp-qos.h"
#include "afxdp-rx-hints.h"
#include "afxdp-rxburst.h"
#include "afxdp-rxgro.h"
#include "afxdp-txcsum.h"
#include "afxdp-txgso.h"
#include "afxdp-txseg.h"
#include "afxdp-xdp.h"
#include "afxdp-xsk.h"
#include "coverage.h"
#include "dp-packet.h"
#include "netdev-afxdp-pool.h"
#include "timeval.h"
#include "netdev-provider.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "socket-util.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_rxtx);

COVERAGE_DEFINE(afxdp_rx_wakeup);
COVERAGE_DEFINE(afxdp_tx_wakeup);
COVERAGE_DEFINE(afxdp_tx_wakeup_owed);
COVERAGE_DEFINE(afxdp_tx_burst_split);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* True if the device of the port of 'q' is gone (see "Device removal" at
 * the top).  Set by the main thread, read by the queue's users. */
static inline bool
afxdp_queue_dev_gone(struct afxdp_queue *q)
{
    bool gone;

    atomic_read_relaxed(&q->dev_gone, &gone);
    return gone;
}

/* Tops up the fill ring of 'q' after 'n_given' frames went to OVS, and
 * wakes the kernel up if it asked for it.  The 'n_recycle' frames in
 * 'recycle' (NULL if 0), received but not given to OVS, go back to the fill
 * ring first, or to the pool if it has no room for them. */
static inline void
afxdp_rxq_refill(struct afxdp_queue *q, uint32_t n_given,
                 const uint64_t recycle[], uint32_t n_recycle)
{
    struct afxdp_xsk *xsk = q->xsk;
    uint64_t addrs[NETDEV_MAX_BURST * 2];
    uint32_t n_free, n_reuse = 0, n, idx = 0;

    n_free = xsk_prod_nb_free(&xsk->fill, ARRAY_SIZE(addrs));
    if (n_free < NETDEV_MAX_BURST && !n_given && !n_recycle) {
        goto kick;
    }
    n_free = MIN(n_free, ARRAY_SIZE(addrs));
    if (OVS_UNLIKELY(n_recycle)) {
        n_reuse = MIN(n_recycle, n_free);
        memcpy(addrs, recycle, n_reuse * sizeof *addrs);
        if (n_reuse < n_recycle) {
            afxdp_pool_put(q->pool, &recycle[n_reuse], n_recycle - n_reuse);
        }
    }
    n = n_reuse + afxdp_pool_to_ovs(q->pool, n_given, &addrs[n_reuse],
                                    n_free - n_reuse);
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
            if (q->hints) {
                /* No stale bytes may pass for a hints id: a frame the
                 * program wrote no hints into reads as id 0 ("void" in
                 * BTF), which no layout has. */
                memset(afxdp_pool_ptr(q->layout, addrs[i]
                                      + AFXDP_RX_HEADROOM - 4), 0, 4);
            }
        }
        /* The release barrier in submit (libxdp) pairs with the kernel's
         * acquire of the fill producer: it sees our addresses first. */
        xsk_ring_prod__submit(&xsk->fill, n);
    }

kick:
    /* Only after a poll that gave OVS nothing: while frames come in, the
     * kernel is running, and reading the fill ring's flags, a cache line
     * the kernel may write, would cost every batch.  If the driver did
     * stop for want of fill entries, the next poll finds the rx ring
     * empty and wakes it then. */
    if (!n_given
        && (xsk->busy_poll
            || (xsk->need_wakeup
                && xsk_ring_prod__needs_wakeup(&xsk->fill)))) {
        /* Busy polling: the kernel runs the queue's NAPI in this call. */
        COVERAGE_INC(afxdp_rx_wakeup);
        recvfrom(xsk->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
    }
}

/* Descriptors one receive call looks at: a burst of packets, some of which
 * may span several frames (multi-buffer).  A packet's descriptors are
 * published together, so only the peek limit cuts one. */
#define AFXDP_RX_MAX_DESCS (NETDEV_MAX_BURST * 2)

/* Returns how many descriptors, from the 'i'th of the 'n' peeked at 'idx'
 * on 'rx', make up the next packet (XDP_PKT_CONTD on all but its last), or
 * 0 if its last one is not among them. */
static inline uint32_t
afxdp_rx_chain_len(const struct xsk_ring_cons *rx, uint32_t idx, uint32_t i,
                   uint32_t n)
{
    for (uint32_t k = i; k < n; k++) {
        if (!(xsk_ring_cons__rx_desc(rx, idx + k)->options & XDP_PKT_CONTD)) {
            return k - i + 1;
        }
    }
    return 0;
}

/* Where the frames of a receive call go other than to OVS. */
struct afxdp_rx_returns {
    uint64_t recycle[AFXDP_RX_MAX_DESCS];   /* Frames for the fill ring. */
    uint32_t n_recycle;
    uint32_t n_bad;             /* Descriptors dropped as invalid. */
};

/* Puts the frame of the descriptor at 'addr' back for the fill ring, or,
 * if 'addr' is outside the UMEM (no frame at all), only counts it. */
static inline void
afxdp_rx_return(const struct afxdp_pool_layout *l, uint64_t addr,
                struct afxdp_rx_returns *r)
{
    if (addr < l->area_size) {
        r->recycle[r->n_recycle++] = afxdp_pool_frame_addr(l, addr);
    }
}

/* Copies the packet of the 'n_desc' descriptors from 'idx' on the rx ring
 * of 'q' (multi-buffer: a packet larger than a frame) into one new
 * dp_packet (afxdp-big-packet.h, with its timestamp for the egress port),
 * owned by the caller, and returns it; its frames go back to the fill ring
 * at once, through 'r'.  Returns NULL, with every descriptor counted in
 * 'r->n_bad', if one of them does not describe a frame.  The hints, if
 * any, are in front of the first frame; the packet is the batch's
 * 'n_pkts'th (from 0), for the sampler. */
static struct dp_packet *
afxdp_rx_multi(struct afxdp_queue *q, uint32_t idx, uint32_t n_desc,
               uint32_t n_pkts, struct afxdp_rx_hints_batch *hb,
               struct afxdp_rx_returns *r)
{
    const struct afxdp_pool_layout *l = q->layout;
    const struct xsk_ring_cons *rx = &q->xsk->rx;
    const struct xdp_desc *first = xsk_ring_cons__rx_desc(rx, idx);
    struct dp_packet *packet = NULL;
    uint64_t total = 0;
    bool ok = true;

    for (uint32_t i = 0; i < n_desc; i++) {
        const struct xdp_desc *d = xsk_ring_cons__rx_desc(rx, idx + i);

        ok &= afxdp_pool_rx_desc_ok(l, d->addr, d->len,
                                    i ? 1 : ETH_HEADER_LEN);
        total += d->len;
    }
    if (OVS_LIKELY(ok)) {
        const struct afxdp_pool_frame *f = afxdp_pool_frame(
            afxdp_pool_packet(l, first->addr));
        struct afxdp_big_packet *bp;

        bp = afxdp_big_packet_new(total, AFXDP_RX_HEADROOM,
                                  afxdp_pool_frame_owner(f));
        packet = &bp->packet;
        for (uint32_t i = 0; i < n_desc; i++) {
            const struct xdp_desc *d = xsk_ring_cons__rx_desc(rx, idx + i);

            dp_packet_put(packet, afxdp_pool_ptr(l, d->addr), d->len);
        }
        afxdp_rx_hints_maybe(q, packet, &bp->rx_ts, first->addr,
                             afxdp_pool_frame_addr(l, first->addr), n_pkts,
                             hb);
        bp->seg_mtu = afxdp_txseg_src_mtu(dp_packet_data(packet), total,
                                          afxdp_pool_rx_mtu(l));
    } else {
        r->n_bad += n_desc;
    }
    for (uint32_t i = 0; i < n_desc; i++) {
        afxdp_rx_return(l, xsk_ring_cons__rx_desc(rx, idx + i)->addr, r);
    }
    return packet;
}

/* Frames whose data the receive loop asks the CPU for ahead of its use:
 * in copy mode the kernel wrote them on another CPU, and waiting for each
 * line as the loop reaches it would cost a cache miss per packet. */
#define AFXDP_RX_PREFETCH 4

/* Asks the CPU for the data, and if 'hints' the XDP hints in the cache line
 * before it, of the frame of the 'i'th of the descriptors peeked at 'idx'
 * on 'rx'.  Only a hint to the CPU: an address outside the UMEM faults
 * nothing. */
static inline void
afxdp_rx_prefetch(const struct afxdp_pool_layout *l,
                  const struct xsk_ring_cons *rx, uint32_t idx, uint32_t i,
                  bool hints)
{
    const uint8_t *data = afxdp_pool_ptr(l, xsk_ring_cons__rx_desc(
                                             rx, idx + i)->addr);

    if (hints) {
        OVS_PREFETCH(data - sizeof(uint32_t));
    }
    OVS_PREFETCH(data);
}

/* Takes the 'n' descriptors peeked at 'idx' on the rx ring of 'q' (at
 * least one) as packets into 'batch', up to NETDEV_MAX_BURST packets.  A
 * packet in one frame becomes the frame's own dp_packet; a packet in
 * several frames (multi-buffer) is copied into a malloc'd one and its
 * frames go straight back to the fill ring.  Returns the packets added.
 * Out of line from netdev_afxdp_rxq_recv(): a poll that finds the ring
 * empty, half of all polls on a PMD with a busy port and an idle one, does
 * not pay for this one's stack frame and state.
 *
 * Per packet of one frame, the straight path: the descriptor's checks, the
 * dp_packet's initialisation, no timestamp unless the sampler chose it
 * (one comparison: see afxdp_latency_sampler_first()), and the batch. */
static uint32_t AFXDP_NOINLINE
afxdp_rxq_take(struct afxdp_queue *q, const struct netdev *netdev,
               uint32_t n, uint32_t idx, struct dp_packet_batch *batch)
{
    const struct afxdp_pool_layout *l = q->layout;
    struct afxdp_xsk *xsk = q->xsk;
    const struct xsk_ring_cons *rx = &xsk->rx;
    struct afxdp_rx_hints_batch hb;
    struct afxdp_rx_returns ret;
    uint32_t i, n_pkts = 0, n_given = 0, n_multi = 0, n_big = 0;
    uint32_t max = MIN(n, AFXDP_RX_PREFETCH);
    size_t first = dp_packet_batch_size(batch);
    /* The packets go straight into the batch's array, which holds at least
     * NETDEV_MAX_BURST on every OVS version (4.0's grows beyond, through
     * dp_packet_batch_add() only), and its count is set once at the end. */
    uint32_t room = first < NETDEV_MAX_BURST ? NETDEV_MAX_BURST - first : 0;
    uint32_t frame_size = q->frame_size;
    uint64_t bytes = 0;

    hb.read_all = q->hints && afxdp_rx_hints_read_all(q);
    /* Here, not in a helper's loop: GCC finds a loop that only prefetches
     * free of side effects and drops it. */
    for (i = 0; i < max; i++) {
        afxdp_rx_prefetch(l, rx, idx, i, hb.read_all);
    }
    hb.n_read = hb.n_hints = hb.n_missing = hb.n_hash = 0;
    hb.n_stale_marks = 0;
    hb.run.n = 0;
    /* Without hints no packet is timed: the count never reaches it. */
    hb.next = q->hints ? afxdp_latency_sampler_first(&q->sampler)
                       : UINT64_MAX;
    hb.every = q->sampler.every;
    hb.hash = hb.read_all || hb.every == 1;
    hb.now = 0;
    ret.n_recycle = ret.n_bad = 0;
    i = 0;
    while (i < n && n_pkts < room) {
        const struct xdp_desc *desc = xsk_ring_cons__rx_desc(rx, idx + i);
        uint64_t addr = desc->addr;
        uint32_t len = desc->len;
        struct afxdp_pool_frame *f;
        struct dp_packet_afxdp *xp;
        uint64_t frame;

        if (i + AFXDP_RX_PREFETCH < n) {
            afxdp_rx_prefetch(l, rx, idx, i + AFXDP_RX_PREFETCH,
                              hb.read_all);
        }
        if (OVS_UNLIKELY(desc->options & XDP_PKT_CONTD)) {
            uint32_t n_desc = afxdp_rx_chain_len(rx, idx, i, n);
            struct dp_packet *packet = NULL;

            if (n_desc) {
                packet = afxdp_rx_multi(q, idx + i, n_desc, n_pkts, &hb,
                                        &ret);
            } else if (i) {
                /* Its end is beyond what we peeked: next time. */
                break;
            } else {
                /* The kernel publishes a packet's descriptors together,
                 * so a chain without an end in a whole peek is no packet
                 * (longer than any MTU, or a bug): drop it, or it would
                 * stop the queue for good. */
                n_desc = n;
                for (uint32_t k = 0; k < n; k++) {
                    afxdp_rx_return(l, xsk_ring_cons__rx_desc(
                                        rx, idx + k)->addr, &ret);
                }
                ret.n_bad += n;
            }
            i += n_desc;
            if (packet) {
                batch->packets[first + n_pkts] = packet;
                bytes += dp_packet_size(packet);
                n_pkts++;
                n_multi++;
            }
            continue;
        }
        i++;
        if (OVS_UNLIKELY(!afxdp_pool_rx_desc_ok(l, addr, len,
                                                ETH_HEADER_LEN))) {
            /* Dropped: a frame of ours goes back to the fill ring below,
             * never through OVS; an address outside the UMEM is no frame
             * at all. */
            afxdp_rx_return(l, addr, &ret);
            ret.n_bad++;
            continue;
        }
        xp = afxdp_pool_packet(l, addr);
        f = afxdp_pool_frame(xp);
        frame = afxdp_pool_frame_addr(l, addr);
        dp_packet_use_afxdp(&xp->packet, afxdp_pool_ptr(l, addr),
                            frame_size, addr - frame);
        dp_packet_set_size(&xp->packet, len);
        /* No timestamp left from the frame's previous use, unless this
         * packet is timed. */
        f->rx_ts = 0;
        afxdp_rx_hints_maybe(q, &xp->packet, &f->rx_ts, addr, frame, n_pkts,
                             &hb);
        batch->packets[first + n_pkts] = &xp->packet;
        bytes += len;
        n_big += len >= AFXDP_RXGRO_MIN_LEN;
        n_pkts++;
        n_given++;
    }
    batch->count = first + n_pkts;
    /* Descriptors peeked but not taken (a burst's worth of packets came
     * first, or a packet's end was beyond the peek) stay for next time.
     * The release barrier in libxdp's release pairs with the kernel's
     * acquire of the rx consumer: we are done with the descriptors. */
    xsk_ring_cons__cancel(&xsk->rx, n - i);
    xsk_ring_cons__release(&xsk->rx, i);
    afxdp_rxq_refill(q, n_given, ret.recycle, ret.n_recycle);
    if (OVS_UNLIKELY(ret.n_bad)) {
        afxdp_counter_add(&q->rx_drop_invalid, ret.n_bad);
        VLOG_WARN_RL(&rl, "%s: queue %"PRIu32": dropped %"PRIu32" "
                     "received descriptor(s) that describe no valid frame",
                     netdev_get_name(netdev), xsk->queue_id, ret.n_bad);
    }

    afxdp_counter_add(&q->rx_packets, n_pkts);
    afxdp_counter_add(&q->rx_bytes, bytes);
    if (OVS_UNLIKELY(n_multi)) {
        afxdp_counter_add(&q->rx_multi_buffer, n_multi);
    }
    if (q->hints) {
        /* The packets are still as received: the run's first one can
         * still label its flow. */
        afxdp_latency_flow_run_flush(q->flows, &hb.run, afxdp_flow_key_fill);
        afxdp_latency_sampler_advance(&q->sampler, hb.next, n_pkts);
        afxdp_counter_add(&q->rx_hints, hb.n_hints);
        afxdp_counter_add(&q->rx_hints_missing, hb.n_missing);
        afxdp_counter_add(&q->rx_hints_unread, n_pkts - hb.n_read);
        afxdp_counter_add(&q->rx_hash_from_hints, hb.n_hash);
        if (OVS_UNLIKELY(hb.n_stale_marks)) {
            afxdp_counter_add(&q->rx_mark_stale, hb.n_stale_marks);
        }
    }
    /* A burst of small packets only pays for this comparison (multi-buffer
     * packets are large). */
    if (n_big + n_multi || q->rx_csum_fix) {
        afxdp_rxburst_finish(q, batch, first, n_big + n_multi);
    }
    return n_pkts;
}

/* Kicks the tx ring of 'q' for a sender whose own kick found the kernel
 * busy (see afxdp_txq_kick()): without it, what that kick left on the ring
 * would wait there until the queue's next send, for ever if none comes.
 * Called by the poller of rx queue 'queue_id', which may run beside a
 * sender: sendto() is safe beside one, and only the flag is shared.  A
 * sender that fails after the flag is cleared sets it again, and so does
 * this kick if the kernel is still busy: the poller then tries on its
 * next poll. */
static void AFXDP_NOINLINE
afxdp_rxq_kick_owed(struct afxdp_queue *q)
{
    atomic_store_relaxed(&q->tx_kick_owed, false);
    COVERAGE_INC(afxdp_tx_wakeup_owed);
    if (sendto(q->xsk->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0
        && (errno == EAGAIN || errno == EBUSY || errno == ENOBUFS)) {
        atomic_store_relaxed(&q->tx_kick_owed, true);
    }
}

/* Receives up to NETDEV_MAX_BURST packets from the rx ring of the queue
 * (see afxdp_rxq_take()), after the tx kick the queue may be owed. */
int
netdev_afxdp_rxq_recv(struct netdev_rxq *rxq_, struct dp_packet_batch *batch,
                      int *qfill)
{
    struct netdev_afxdp_tx_lock *queues = afxdp_port_queues(rxq_->netdev);
    struct afxdp_queue *q;
    uint32_t n, n_pkts, idx;
    struct afxdp_xsk *xsk;
    bool owed;

    if (OVS_UNLIKELY(!queues || rxq_->queue_id >= rxq_->netdev->n_rxq)) {
        return EAGAIN;
    }
    q = &queues[rxq_->queue_id].q;
    xsk = q->xsk;

    if (OVS_UNLIKELY(afxdp_queue_dev_gone(q))) {
        /* The kernel unbound the socket: nothing comes, and waking it up
         * would only fail. */
        if (qfill) {
            *qfill = 0;
        }
        return EAGAIN;
    }
    atomic_read_relaxed(&q->tx_kick_owed, &owed);
    if (OVS_UNLIKELY(owed)) {
        afxdp_rxq_kick_owed(q);
    }

    n = xsk_ring_cons__peek(&xsk->rx, xsk->sg ? AFXDP_RX_MAX_DESCS
                                              : NETDEV_MAX_BURST, &idx);
    if (!n) {
        afxdp_rxq_refill(q, 0, NULL, 0);
        if (qfill) {
            *qfill = 0;
        }
        return EAGAIN;
    }
    if (OVS_UNLIKELY(q->ring_grow != NULL) && n >= q->ring_busy) {
        afxdp_queue_ring_busy(q);
    }
    n_pkts = afxdp_rxq_take(q, rxq_->netdev, n, idx, batch);
    if (qfill) {
        *qfill = xsk_cons_nb_avail(&xsk->rx, UINT32_MAX);
    }
    return n_pkts ? 0 : EAGAIN;
}

/* Returns to their pools, a pool at a time, the frames of the AF_XDP
 * packets of 'batch', and frees the other packets.  Per packet: a test of
 * its source and of its pool against the last one's, and its address. */
static void
afxdp_free_batch(struct dp_packet_batch *batch)
{
    const struct afxdp_pool_layout *l = NULL;
    struct umem_pool *cur = NULL;
    uint64_t addrs[NETDEV_MAX_BURST];
    uint32_t n = 0;
    struct dp_packet *packet;

    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        struct dp_packet_afxdp *xp;

        if (OVS_UNLIKELY(packet->source != DPBUF_AFXDP)) {
            dp_packet_delete(packet);
            continue;
        }
        xp = CONTAINER_OF(packet, struct dp_packet_afxdp, packet);
        if (OVS_UNLIKELY(xp->mpool != cur || n == ARRAY_SIZE(addrs))) {
            if (n) {
                afxdp_pool_from_ovs(afxdp_pool_from_umem_pool(cur), addrs, n);
            }
            cur = xp->mpool;
            l = afxdp_pool_layout(afxdp_pool_from_umem_pool(cur));
            n = 0;
        }
        addrs[n++] = afxdp_pool_packet_addr(l, xp);
    }
    if (n) {
        afxdp_pool_from_ovs(afxdp_pool_from_umem_pool(cur), addrs, n);
    }
    afxdp_batch_empty(batch);
}

/* Returns to the pool the frames the kernel has finished sending. */
static inline void
afxdp_txq_reap(struct afxdp_queue *q)
{
    struct afxdp_xsk *xsk = q->xsk;
    uint64_t addrs[NETDEV_MAX_BURST * 2];

    while (xsk->tx_in_flight
           && afxdp_xsk_reap(xsk, q->pool, q->layout, addrs,
                             ARRAY_SIZE(addrs))) {
        continue;
    }
}

/* Asks the kernel to send what is on the tx ring of 'q'. */
static inline void
afxdp_txq_kick(struct afxdp_queue *q)
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

        /* EAGAIN, EBUSY, ENOBUFS: the kernel sent its budget of
         * descriptors, or found the device's queue stopped or the socket's
         * send buffer full: what is left on the ring goes with the next
         * kick, which the poller of the queue's rx ring owes it if no
         * other send comes (afxdp_rxq_kick_owed()).  ENETDOWN: the device
         * is down.  ENXIO: the device is gone, and the port is about to
         * hear of it (see "Device removal" at the top). */
        if (error == EAGAIN || error == EBUSY || error == ENOBUFS) {
            atomic_store_relaxed(&q->tx_kick_owed, true);
        } else if (error != ENETDOWN && error != ENXIO) {
            afxdp_counter_add(&q->tx_kick_errors, 1);
            VLOG_WARN_RL(&rl, "queue %"PRIu32": AF_XDP tx kick failed: %s",
                         xsk->queue_id, ovs_strerror(error));
        }
    }
}

/* Records in 'q''s histogram of pairs the latency of a packet that came
 * from port 'owner' with XDP hints timestamp 'ts', about to go on the tx
 * ring at 'now' (0: not read yet, read here).  Returns 'now'. */
static uint64_t
afxdp_tx_latency__(struct afxdp_queue *q, uint64_t ts,
                   uint32_t owner, uint64_t now)
{
    now = now ? now : afxdp_clock_now(&q->tx_clock);
    for (int i = 0; i < AFXDP_MAX_PAIRS; i++) {
        struct afxdp_pair *pair = &q->pairs[i];
        uint32_t ingress;

        atomic_read_relaxed(&pair->ingress, &ingress);
        if (!ingress) {
            /* Single writer: claim the slot; readers see it once set. */
            atomic_store_explicit(&pair->ingress, owner,
                                  memory_order_release);
            ingress = owner;
        }
        if (ingress == owner) {
            afxdp_latency_record(&pair->hist, (int64_t) (now - ts));
            return now;
        }
    }
    afxdp_counter_add(&q->tx_pairs_full, 1);
    return now;
}

/* Records the ingress to egress latency of 'packet', about to go on the
 * tx ring of 'q' at 'now' (0: not read yet, read on first use), if it came
 * from an afxdp port with an XDP hints timestamp.  Returns 'now'.  Inline:
 * most packets have no timestamp (one in 'latency-sample' has), and for
 * them this is two loads and a test. */
static inline ALWAYS_INLINE uint64_t
afxdp_tx_latency(struct afxdp_queue *q,
                 const struct dp_packet *packet, uint64_t now)
{
    const struct afxdp_big_packet *bp;

    if (OVS_LIKELY(packet->source == DPBUF_AFXDP)) {
        const struct afxdp_pool_frame *f = afxdp_pool_frame(
            CONTAINER_OF(CONST_CAST(struct dp_packet *, packet),
                         struct dp_packet_afxdp, packet));

        return (OVS_LIKELY(!f->rx_ts) ? now
                : afxdp_tx_latency__(q, f->rx_ts,
                                     afxdp_pool_frame_owner(f), now));
    }
    bp = afxdp_big_packet_cast(packet);
    return (!bp || !bp->rx_ts ? now
            : afxdp_tx_latency__(q, bp->rx_ts, bp->owner, now));
}

/* Number of descriptors a packet of 'size' bytes takes on 'q': 1 if it
 * fits in a frame (less the socket's TX metadata); with multi-buffer, one
 * per frame it fills, if the device takes it ('tx_max_len': a veth would
 * drop it unseen); 0 if 'q' cannot send it. */
static inline uint32_t
afxdp_tx_n_descs(const struct afxdp_queue *q, uint32_t size)
{
    uint32_t n, max;

    if (OVS_LIKELY(size <= q->tx_room)) {
        return 1;
    }
    atomic_read_relaxed(CONST_CAST(atomic_uint32_t *, &q->tx_max_len), &max);
    n = DIV_ROUND_UP(size, q->tx_room);
    return q->xsk->sg && size <= max && n <= q->tx_max_descs ? n : 0;
}

/* Returns how many of the 'n' packets whose descriptor counts are in
 * 'n_descs' (NULL: one each) fit, in order, in 'room' descriptors, and
 * stores their descriptors in '*used'. */
static inline uint32_t
afxdp_tx_fit(const uint8_t n_descs[], uint32_t n, uint32_t room,
             uint32_t *used)
{
    uint32_t i, d = 0;

    if (!n_descs) {
        *used = MIN(n, room);
        return *used;
    }
    for (i = 0; i < n && d + n_descs[i] <= room; i++) {
        d += n_descs[i];
    }
    *used = d;
    return i;
}

/* Kicks 'q' again while its tx ring still holds descriptors, at most
 * 'max' times: in copy mode one sendto() turns at most the socket's budget
 * of descriptors (32 before Linux 6.17's XDP_MAX_TX_SKB_BUDGET) into skbs,
 * and a burst of multi-buffer packets can have more. */
static inline void
afxdp_txq_kick_rest(struct afxdp_queue *q, uint32_t max)
{
    struct xsk_ring_prod *tx = &q->xsk->tx;

    for (uint32_t i = 0; i < max && xsk_prod_nb_free(tx, tx->size) < tx->size;
         i++) {
        afxdp_txq_kick(q);
    }
}

/* Puts the TX metadata request 'md' in front of the data of 'desc', the
 * first descriptor of a packet, if 'csum' says so, and counts what became
 * of the packet's checksum. */
static inline void
afxdp_tx_csum(struct afxdp_queue *q, struct xdp_desc *desc,
              enum afxdp_txcsum_action csum,
              const struct afxdp_tx_metadata *md)
{
    switch (csum) {
    case AFXDP_TXCSUM_REQUEST:
        memcpy((char *) afxdp_pool_ptr(q->layout, desc->addr)
               - q->tx_headroom, md, sizeof *md);
        desc->options |= XDP_TX_METADATA;
        afxdp_counter_add(&q->tx_csum_offloaded, 1);
        break;
    case AFXDP_TXCSUM_SOFTWARE:
        afxdp_counter_add(&q->tx_csum_software, 1);
        break;
    case AFXDP_TXCSUM_UNPARSED:
        afxdp_counter_add(&q->tx_csum_unparsed, 1);
        break;
    case AFXDP_TXCSUM_NONE:
    default:
        break;
    }
}

/* Fills tx descriptor 'desc' with the 'len' bytes at 'data', copied into
 * the frame at 'frame' of 'q''s pool, after the socket's TX metadata room
 * (with TX metadata, every descriptor's data starts that far into its
 * frame: the kernel checks it). */
static inline void
afxdp_tx_desc_put(const struct afxdp_queue *q, struct xdp_desc *desc,
                  uint64_t frame, const void *data, uint32_t len,
                  uint32_t options)
{
    desc->addr = frame + q->tx_headroom;
    desc->len = len;
    desc->options = options;
    memcpy(afxdp_pool_ptr(q->layout, desc->addr), data, len);
}

/* Copies the 'n' packets in 'pkts' (at most NETDEV_MAX_BURST), packet i
 * into 'n_descs[i]' frames of 'q''s pool, and sends them.  'n_wanted' is
 * the sum of 'n_descs' (NULL if every packet takes one descriptor): if it
 * is 'n', every packet takes one descriptor, the straight path.  Each
 * packet is either put on the tx ring, all its descriptors, or counted in
 * one drop counter: ring full or no free frame. */
static void
afxdp_txq_send_burst(struct afxdp_queue *q,
                     struct dp_packet *pkts[], const uint8_t n_descs[],
                     uint32_t n, uint32_t n_wanted)
{
    struct afxdp_xsk *xsk = q->xsk;
    uint64_t addrs[NETDEV_MAX_BURST * AFXDP_XSK_TX_MAX_FRAGS];
    uint32_t n_room, n_fit, n_ok, d, n_frames, idx = 0, n_multi = 0;
    bool offload = q->tx_headroom != 0;
    uint64_t bytes = 0, now = 0;

    afxdp_txq_reap(q);
    if (!n) {
        return;
    }

    n_room = xsk_prod_nb_free(&xsk->tx, n_wanted);
    if (n_room < n_wanted) {
        afxdp_txq_kick(q);
        afxdp_txq_reap(q);
        n_room = xsk_prod_nb_free(&xsk->tx, n_wanted);
        if (OVS_UNLIKELY(q->ring_grow != NULL) && n_room < n_wanted) {
            afxdp_queue_ring_busy(q);
        }
    }
    if (OVS_LIKELY(n_wanted == n)) {
        n_fit = d = MIN(n, n_room);
    } else {
        n_fit = afxdp_tx_fit(n_descs, n, n_room, &d);
    }
    if (n_fit < n) {
        afxdp_counter_add(&q->tx_drop_ring_full, n - n_fit);
    }
    n_frames = afxdp_pool_get(q->pool, addrs, d);
    n_ok = n_fit;
    if (n_frames < d) {
        uint32_t d_ok;

        n_ok = afxdp_tx_fit(n_descs, n_fit, n_frames, &d_ok);
        afxdp_pool_put(q->pool, &addrs[d_ok], n_frames - d_ok);
        afxdp_counter_add(&q->tx_drop_no_frame, n_fit - n_ok);
        d = d_ok;
    }
    if (!d) {
        return;
    }

    /* Every slot reserved is submitted below.  The reserve cannot come
     * short (we are the ring's only producer and found the room above),
     * but if it did, the packets would be counted, not lost. */
    if (OVS_UNLIKELY(xsk_ring_prod__reserve(&xsk->tx, d, &idx) != d)) {
        afxdp_pool_put(q->pool, addrs, d);
        afxdp_counter_add(&q->tx_drop_ring_full, n_ok);
        return;
    }
    for (uint32_t i = 0, k = 0; i < n_ok; i++) {
        struct dp_packet *packet = pkts[i];
        const uint8_t *data = dp_packet_data(packet);
        uint32_t size = dp_packet_size(packet);
        struct xdp_desc *desc = xsk_ring_prod__tx_desc(&xsk->tx, idx + k);
        struct afxdp_tx_metadata md;
        enum afxdp_txcsum_action csum;

        /* Before the copy: this may write the packet's checksum field. */
        csum = afxdp_txcsum_check(packet, offload, &md);
        if (OVS_LIKELY(d == n_ok)) {
            /* One descriptor a packet. */
            afxdp_tx_desc_put(q, desc, addrs[k++], data, size, 0);
        } else {
            uint32_t off = 0;

            /* All but a packet's last descriptor say that more follows. */
            for (uint32_t j = 0; j < n_descs[i]; j++, k++) {
                uint32_t len = MIN(size - off, q->tx_room);

                afxdp_tx_desc_put(q, xsk_ring_prod__tx_desc(&xsk->tx,
                                                            idx + k),
                                  addrs[k], data + off, len,
                                  j + 1 < n_descs[i] ? XDP_PKT_CONTD : 0);
                off += len;
            }
            n_multi += n_descs[i] > 1;
        }
        if (OVS_UNLIKELY(csum != AFXDP_TXCSUM_NONE)) {
            afxdp_tx_csum(q, desc, csum, &md);
        }
        now = afxdp_tx_latency(q, packet, now);
        bytes += size;
    }
    /* Release barrier in submit pairs with the kernel's acquire of the tx
     * producer: the descriptors and frame contents are visible. */
    xsk_ring_prod__submit(&xsk->tx, d);
    xsk->tx_in_flight += d;
    afxdp_txq_kick(q);
    if (OVS_UNLIKELY(n_multi)) {
        afxdp_txq_kick_rest(q, d / NETDEV_MAX_BURST);
        afxdp_counter_add(&q->tx_multi_buffer, n_multi);
    }
    afxdp_txq_reap(q);
    afxdp_counter_add(&q->tx_packets, n_ok);
    afxdp_counter_add(&q->tx_bytes, bytes);
}

/* The MTU whose segments 'packet' was cut into before it reached us, if it
 * came from an afxdp port in one or several frames (see "The segment
 * size" in afxdp-txseg.h); 0 if unknown. */
static uint32_t
afxdp_tx_src_mtu(const struct dp_packet *packet)
{
    const struct afxdp_big_packet *bp;

    if (packet->source == DPBUF_AFXDP) {
        const struct dp_packet_afxdp *xp;

        xp = CONTAINER_OF(packet, struct dp_packet_afxdp, packet);
        return afxdp_pool_rx_mtu(afxdp_pool_layout(
                                     afxdp_pool_from_umem_pool(xp->mpool)));
    }
    bp = afxdp_big_packet_cast(packet);
    return bp ? bp->seg_mtu : 0;
}

/* Plans the segments of 'packet' if it is a TCP packet over the device's
 * MTU 'mtu' (0: unknown, none is): each at most 'mtu' and, if 'frame',
 * one frame of 'q' (see afxdp-txseg.h). */
static enum afxdp_txseg_verdict
afxdp_tx_seg_plan(const struct afxdp_queue *q, uint32_t mtu,
                  bool frame, const struct dp_packet *packet,
                  struct afxdp_txseg *seg)
{
    return afxdp_txseg_plan(dp_packet_data(packet), dp_packet_size(packet),
                            mtu ? mtu : UINT32_MAX,
                            frame ? q->tx_room : UINT32_MAX,
                            afxdp_packet_tso_segsz(packet),
                            afxdp_tx_src_mtu(packet), seg);
}

/* Writes segments 'first' to 'first' + 'n' - 1 of 'packet', which 'seg'
 * planned, into the 'n' frames at 'addrs' and the 'n' tx descriptors of
 * 'q' from 'idx', which the caller reserved.  Returns their bytes. */
static uint64_t
afxdp_txq_write_segs(struct afxdp_queue *q,
                     const struct dp_packet *packet,
                     const struct afxdp_txseg *seg, uint32_t first,
                     uint32_t n, const uint64_t addrs[], uint32_t idx)
{
    const uint8_t *data = dp_packet_data(packet);
    bool offload = q->tx_headroom != 0;
    uint64_t bytes = 0;

    for (uint32_t i = 0; i < n; i++) {
        struct xdp_desc *desc = xsk_ring_prod__tx_desc(&q->xsk->tx, idx + i);
        struct afxdp_tx_metadata md;

        desc->addr = addrs[i] + q->tx_headroom;
        desc->options = 0;
        desc->len = afxdp_txseg_write(seg, data, first + i,
                                      afxdp_pool_ptr(q->layout, desc->addr),
                                      offload, &md);
        afxdp_tx_csum(q, desc, (md.flags ? AFXDP_TXCSUM_REQUEST
                                : AFXDP_TXCSUM_SOFTWARE), &md);
        bytes += desc->len;
    }
    return bytes;
}

/* Takes up to 'n' free frames of 'q', no more than its tx ring has room
 * for, into 'addrs', kicking the kernel and reaping completions first where
 * the ring or the pool has too little.  Returns how many it took: 0 only
 * if the ring or the pool has no room at all. */
static uint32_t
afxdp_txq_take_frames(struct afxdp_queue *q, uint64_t addrs[],
                      uint32_t n)
{
    struct afxdp_xsk *xsk = q->xsk;
    uint32_t got;

    if (xsk_prod_nb_free(&xsk->tx, n) < n) {
        afxdp_txq_kick(q);
        afxdp_txq_reap(q);
    }
    n = MIN(n, xsk_prod_nb_free(&xsk->tx, n));
    got = n ? afxdp_pool_get(q->pool, addrs, n) : 0;
    if (got < n && xsk->tx_in_flight) {
        afxdp_txq_reap(q);
        got += afxdp_pool_get(q->pool, &addrs[got], n - got);
    }
    return got;
}

/* Sends 'packet' on 'q' cut into the segments that 'seg' plans, from segment
 * 'from' on, one frame each, in order, in bursts of at most
 * AFXDP_TXSEG_BURST segments and at most what the tx ring holds: each
 * burst takes what room the ring and the
 * pool have (after a kick and a reap if they have too little), is
 * submitted, and the kernel is kicked before the next (copy mode sends
 * during the kick, which empties the ring), so that a packet of more
 * segments than a burst or the ring goes out whole.  If the ring or the
 * pool has no room at all for the next segment, the rest of the packet is
 * not sent: the packet is counted once in 'tx_drop_unsegmentable' (the
 * segments before it went out and count as sent). */
static void
afxdp_txq_send_segs(struct afxdp_queue *q, struct dp_packet *packet,
                    const struct afxdp_txseg *seg, uint32_t from)
{
    struct afxdp_xsk *xsk = q->xsk;
    uint64_t addrs[AFXDP_TXSEG_BURST];
    uint32_t burst = MIN(ARRAY_SIZE(addrs), xsk->tx.size);
    uint32_t sent = from, n;
    uint64_t bytes = 0;

    for (; sent < seg->n_segs; sent += n) {
        uint32_t idx = 0;

        n = afxdp_txq_take_frames(q, addrs, MIN(burst, seg->n_segs - sent));
        if (!n) {
            break;
        }
        /* Cannot fail: the ring has room for 'n', and only the holder of
         * 'q' produces. */
        if (OVS_UNLIKELY(xsk_ring_prod__reserve(&xsk->tx, n, &idx) != n)) {
            afxdp_pool_put(q->pool, addrs, n);
            break;
        }
        bytes += afxdp_txq_write_segs(q, packet, seg, sent, n, addrs, idx);
        /* Release barrier in submit pairs with the kernel's acquire of the
         * tx producer: the descriptors and frame contents are visible. */
        xsk_ring_prod__submit(&xsk->tx, n);
        xsk->tx_in_flight += n;
        afxdp_txq_kick(q);
        afxdp_txq_kick_rest(q, n / NETDEV_MAX_BURST + 1);
        afxdp_txq_reap(q);
    }
    if (sent > from) {
        afxdp_tx_latency(q, packet, 0);
        afxdp_counter_add(&q->tx_segments, sent - from);
        afxdp_counter_add(&q->tx_packets, sent - from);
        afxdp_counter_add(&q->tx_bytes, bytes);
    }
    if (OVS_LIKELY(sent == seg->n_segs)) {
        afxdp_counter_add(&q->tx_segmented, 1);
        if (seg->tunnel) {
            afxdp_counter_add(&q->tx_segmented_tunnel, 1);
        }
    } else {
        afxdp_counter_add(&q->tx_drop_unsegmentable, 1);
    }
}

/* Sends TCP 'packet', which 'seg' planned for the device's MTU 'mtu' (in
 * segments of one frame each unless 'q' has a packet socket): whole through
 * the packet socket if 'q' has one and the kernel takes it (as trains in a
 * tunnel), else cut into segments here from the first the kernel did not
 * take (see afxdp-txgso.h). */
static void
afxdp_txq_send_tcp(struct afxdp_queue *q, uint32_t mtu,
                   struct dp_packet *packet, struct afxdp_txseg *seg)
{
    uint32_t sent = 0, n_trains = 0, mss = seg->mss;
    int error = EOPNOTSUPP;

    if (q->tx_gso_fd < 0) {
        afxdp_txq_send_segs(q, packet, seg, 0);
        return;
    } else if (!seg->tunnel) {
        error = afxdp_txgso_send(q->tx_gso_fd, seg, dp_packet_data(packet));
        sent = error ? 0 : seg->n_segs;
    } else if (!q->tx_no_trains) {
        if (!q->tx_train) {
            q->tx_train = xmalloc(AFXDP_TXGSO_TRAIN_BUF);
        }
        error = afxdp_txgso_send_tunnel(q->tx_gso_fd, seg,
                                        dp_packet_data(packet), q->tx_train,
                                        &sent, &n_trains);
        /* A kernel without UDP GSO: cut from now on. */
        q->tx_no_trains = error == EINVAL && !n_trains;
        afxdp_counter_add(&q->tx_gso_trains, n_trains);
    }
    if (sent) {
        afxdp_tx_latency(q, packet, 0);
        afxdp_counter_add(&q->tx_gso_segments, sent);
        afxdp_counter_add(&q->tx_packets, sent);
        afxdp_counter_add(&q->tx_bytes, (uint64_t) sent * seg->hdr_len
                          + MIN(seg->payload, (uint64_t) sent * seg->mss));
    }
    if (OVS_LIKELY(!error)) {
        afxdp_counter_add(&q->tx_gso, 1);
        if (seg->tunnel) {
            afxdp_counter_add(&q->tx_gso_tunnel, 1);
        }
        return;
    }
    afxdp_counter_add(&q->tx_gso_refused, 1);
    if (error != EAGAIN && error != ENOBUFS && error != EOPNOTSUPP
        && error != ENETDOWN && error != ENXIO) {
        VLOG_WARN_RL(&rl, "queue %"PRIu32": packet socket refused a "
                     "TCP packet of %"PRIu32" bytes: %s",
                     q->xsk->queue_id, dp_packet_size(packet),
                     ovs_strerror(error));
    }
    /* Planned without the frame limit: plan again with it.  The segments
     * already sent fix the rest's size. */
    if (afxdp_tx_seg_plan(q, mtu, true, packet, seg) != AFXDP_TXSEG_OK
        || (sent && seg->mss != mss)) {
        afxdp_counter_add(&q->tx_drop_unsegmentable, 1);
        return;
    }
    afxdp_txq_send_segs(q, packet, seg, sent);
}

/* Sends the packets of 'batch' on 'q', counting each one that cannot be
 * sent in exactly one drop counter.  Does not free 'batch'.  From OVS 4.0
 * a batch can hold more than NETDEV_MAX_BURST packets (software
 * segmentation of a TSO packet fills one): they go out in bursts of at
 * most NETDEV_MAX_BURST. */
static void
afxdp_txq_send(struct afxdp_queue *q, struct dp_packet_batch *batch)
{
    struct dp_packet *pkts[NETDEV_MAX_BURST];
    uint8_t n_descs[NETDEV_MAX_BURST];
    struct dp_packet *packet;
    uint32_t n = 0, n_oversize = 0, n_wanted = 0, mtu, seg_above, fast_max;
    size_t n_all;
    bool slow = false;

    /* A frame with more than the MTU after an Ethernet header may be a TCP
     * packet over the MTU, to be cut even where it fits in one frame: the
     * device would drop it unseen. */
    atomic_read_relaxed(&q->tx_mtu, &mtu);
    seg_above = mtu ? mtu + ETH_HEADER_LEN : UINT32_MAX;
    fast_max = MIN(q->tx_room, seg_above);

    /* The common case, every packet in one frame within the MTU and none
     * with a TSO segment size, is sent from the batch's own array, a
     * burst at a time, after one look at each packet's size. */
    n_all = dp_packet_batch_size(batch);
    for (size_t i = 0; i < n_all; i++) {
        packet = batch->packets[i];
        slow |= (dp_packet_size(packet) > fast_max
                 || afxdp_packet_tso_segsz(packet));
    }
    if (OVS_LIKELY(!slow)) {
        for (size_t i = 0; i < n_all; i += NETDEV_MAX_BURST) {
            uint32_t k = MIN(n_all - i, NETDEV_MAX_BURST);

            if (OVS_UNLIKELY(i + k < n_all)) {
                COVERAGE_INC(afxdp_tx_burst_split);
            }
            afxdp_txq_send_burst(q, &batch->packets[i], NULL, k, k);
        }
        return;
    }

    /* Packets too large to send whole are cut into TCP segments (sent
     * after the packets before them) or dropped, before anything is
     * reserved for the others: every packet is sent or counted once. */
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        uint32_t size = dp_packet_size(packet);
        uint32_t segsz = afxdp_packet_tso_segsz(packet);
        uint32_t nd = 1;

        /* One frame within the MTU and no TSO skips the checks (it passes
         * them all). */
        if (size > fast_max || segsz) {
            nd = afxdp_tx_n_descs(q, size);
            /* Also a TSO packet within the MTU whose payload may be larger
             * than its segment size (headers of at least 54 bytes). */
            if (!nd || size > seg_above
                || (segsz && size > segsz + ETH_HEADER_LEN + IP_HEADER_LEN
                                    + TCP_HEADER_LEN)) {
                struct afxdp_txseg seg;

                switch (afxdp_tx_seg_plan(q, mtu, q->tx_gso_fd < 0, packet,
                                          &seg)) {
                case AFXDP_TXSEG_OK:
                    /* After the packets before it, which go first. */
                    afxdp_txq_send_burst(q, pkts, n_descs, n, n_wanted);
                    n = n_wanted = 0;
                    afxdp_txq_send_tcp(q, mtu, packet, &seg);
                    continue;
                case AFXDP_TXSEG_MALFORMED:
                    afxdp_counter_add(&q->tx_drop_unsegmentable, 1);
                    continue;
                case AFXDP_TXSEG_FITS:
                case AFXDP_TXSEG_NOT_TCP:
                default:
                    break;
                }
                if (!nd) {
                    n_oversize++;
                    continue;
                }
            }
        }
        n_descs[n] = nd;
        n_wanted += nd;
        pkts[n++] = packet;
        if (OVS_UNLIKELY(n == ARRAY_SIZE(pkts))
            && i + 1 < dp_packet_batch_size(batch)) {
            COVERAGE_INC(afxdp_tx_burst_split);
            afxdp_txq_send_burst(q, pkts, n_descs, n, n_wanted);
            n = n_wanted = 0;
        }
    }
    if (OVS_UNLIKELY(n_oversize)) {
        afxdp_counter_add(&q->tx_drop_oversize, n_oversize);
    }
    afxdp_txq_send_burst(q, pkts, n_descs, n, n_wanted);
}

/* The lock is taken only when OVS shares the tx queue, which the thread
 * safety analysis cannot follow. */
int
netdev_afxdp_batch_send(struct netdev *netdev, int qid,
                        struct dp_packet_batch *batch, bool concurrent_txq)
    OVS_NO_THREAD_SAFETY_ANALYSIS
{
    struct netdev_afxdp_tx_lock *queues = afxdp_port_queues(netdev);
    struct afxdp_queue *q;

    if (OVS_UNLIKELY(!queues || !netdev->n_txq)) {
        afxdp_free_batch(batch);
        return 0;
    }
    q = &queues[qid % netdev->n_txq].q;
    if (concurrent_txq) {
        ovs_spin_lock(&q->lock);
    }
    if (OVS_UNLIKELY(afxdp_queue_dev_gone(q))) {
        afxdp_counter_add(&q->tx_drop_no_device,
                          dp_packet_batch_size(batch));
    } else {
        if (OVS_UNLIKELY(afxdp_qos_on(q->qos))) {
            afxdp_counter_add(&q->tx_qos_drops,
                              afxdp_qos_police(q->qos, &q->tx_clock, batch));
        }
        afxdp_txq_send(q, batch);
    }
    if (concurrent_txq) {
        ovs_spin_unlock(&q->lock);
    }
    afxdp_free_batch(batch);
    return 0;
}
