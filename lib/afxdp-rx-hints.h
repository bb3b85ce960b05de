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

#ifndef AFXDP_RX_HINTS_H
#define AFXDP_RX_HINTS_H 1

/* The receive path's reading of the XDP hints in front of received frames
 * (afxdp-rxtx.c): which packets' hints are read at all (the sampler's
 * choice, in batch form, and every packet's where flow marks or zero-copy
 * make that pay), their decoding into OVS's RSS hash and flow mark, and
 * the kernel to PMD latency of the timed packets.  Inline helpers of one
 * caller, the thread that owns the rx queue; apart only to keep one
 * concept a file. */

#include <stdbool.h>
#include <stdint.h>

#include "afxdp-clock.h"
#include "afxdp-latency.h"
#include "afxdp-offload-marks.h"
#include "afxdp-port-private.h"
#include "afxdp-xsk.h"
#include "dp-packet.h"
#include "netdev-afxdp-pool.h"
#include "openvswitch/compiler.h"
#include "xdp-hints.h"

/* Fills 'key' from the packet 'packet_' (a struct dp_packet).  Called
 * only when a flow gets a slot in a latency table. */
static inline void
afxdp_flow_key_fill(const void *packet_, struct afxdp_latency_flow_key *key)
{
    const struct dp_packet *packet = packet_;

    afxdp_latency_flow_key_parse(dp_packet_data(packet),
                                 dp_packet_size(packet), key);
}

/* Counts of one receive batch's hints, its current run of packets of one
 * flow for the per-flow latency table, and what chooses the packets to
 * time (the queue's sampler, in batch form: see
 * afxdp_latency_sampler_first()). */
struct afxdp_rx_hints_batch {
    uint32_t n_read, n_hints, n_missing, n_hash, n_stale_marks;
    struct afxdp_latency_flow_run run;
    uint64_t next;              /* Count, in this batch, of the next packet
                                 * to time. */
    uint32_t every;             /* The sampler's. */
    uint64_t now;               /* Clock, read at the batch's first timed
                                 * packet; 0 until then. */
    bool read_all;              /* Read every packet's hints, not only the
                                 * timed packets' (see
                                 * afxdp_rx_hints_read_all()). */
    bool hash;                  /* Give OVS the hints' RSS hash: only if
                                 * every packet's hints are read.  OVS
                                 * takes the RSS hash for dp_hash (select
                                 * groups, balance-tcp bonds), so all the
                                 * packets of a flow must get theirs from
                                 * the same source, the hints or OVS. */
};

/* Returns true if the batch's packet with count 'n_pkts' (0 for its
 * first) is one to time. */
static inline bool
afxdp_rx_timed(struct afxdp_rx_hints_batch *hb, uint32_t n_pkts)
{
    if (OVS_LIKELY(n_pkts != hb->next)) {
        return false;
    }
    hb->next += hb->every;
    return true;
}

/* Whether the PMD reads the hints of every packet of 'q', or only of the
 * packets it times.  The hints sit in a cache line of their own in front
 * of the frame.  In copy mode the kernel wrote that line on another CPU,
 * so reading it costs the PMD a second cache miss per packet, more than
 * computing OVS's own RSS hash from the headers it reads anyway; there it
 * pays only for flow marks, that is while some flow of the port's program
 * is partially offloaded.  In zero-copy mode the driver wrote the hints,
 * with the device's hash, next to a frame the PMD fetches anyway. */
static inline bool
afxdp_rx_hints_read_all(const struct afxdp_queue *q)
{
    return q->xsk->zero_copy || afxdp_offload_marks_any(q->marks);
}

/* Decodes the XDP hints in front of the frame at 'addr' (frame 'frame'),
 * received as 'packet', and gives OVS the flow mark, and the RSS hash if
 * 'hb->hash'.  If 'timed' (the sampler chose the packet), records its
 * kernel to PMD latency and stores its timestamp in '*ts' for the egress
 * port; otherwise (or without a timestamp) stores 0 there.  Called only
 * for a timed packet, or for every packet if 'hb->read_all': the others'
 * hints are not read at all.  Otherwise only what OVS gets from the hints
 * is decoded, and for a timed packet all of them (the same bytes, now in
 * the cache).  Always inlined: the constant set of members the per-packet
 * decode asks for must reach xdp_hints_decode_fields(). */
static inline ALWAYS_INLINE void
afxdp_rx_hints(struct afxdp_queue *q, struct dp_packet *packet,
               uint64_t *ts, uint64_t addr, uint64_t frame, bool timed,
               struct afxdp_rx_hints_batch *hb)
{
    const struct afxdp_pool_layout *l = q->layout;
    const uint8_t *data = afxdp_pool_ptr(l, addr);
    struct xdp_hints_values v;

    *ts = 0;
    hb->n_read++;
    if (!xdp_hints_decode_fields(q->hints, data, addr - frame,
                                 XDP_HINTS_VALID(RX_HASH)
                                 | XDP_HINTS_VALID(FLOW_MARK), &v)) {
        hb->n_missing++;
        return;
    }
    hb->n_hints++;
    if (OVS_UNLIKELY(timed)
        && xdp_hints_decode(q->hints, data, addr - frame, &v)
        && xdp_hints_clock(&v) == XDP_HINTS_CLOCK_MONOTONIC) {
        int64_t delta;

        if (!hb->now) {
            hb->now = afxdp_clock_now(&q->rx_clock);
        }
        delta = hb->now - v.rx_timestamp;
        if (afxdp_latency_record(q->k2p, delta) && xdp_hints_has_hash(&v)) {
            afxdp_latency_flow_run_add(q->flows, &hb->run,
                                       afxdp_flow_key_fill, v.rx_hash,
                                       packet, delta);
        }
        *ts = v.rx_timestamp;
    }
    if (hb->hash && xdp_hints_has_hash(&v)) {
        dp_packet_set_rss_hash(packet, v.rx_hash);
        hb->n_hash++;
    }
    if (xdp_hints_has_mark(&v)) {
        uint32_t mark;

        /* Partially offloaded flow: the PMD finds it by its mark, unless
         * the flow left the program while the frame waited in the ring
         * (its mark may be another flow's by now). */
        if (afxdp_offload_marks_lookup(q->marks, v.flow_mark, &mark)) {
            dp_packet_set_flow_mark(packet, mark);
        } else {
            hb->n_stale_marks++;
        }
    }
}

/* Reads the hints of the batch's packet with count 'n_pkts' (see
 * afxdp_rx_hints()) if the sampler times it or every packet's hints are
 * read; otherwise leaves '*ts' as it is (0 for a packet just received) and
 * reads nothing.  A queue without hints times no packet and reads none
 * (its batch's 'next' is never reached, 'read_all' is false). */
static inline ALWAYS_INLINE void
afxdp_rx_hints_maybe(struct afxdp_queue *q, struct dp_packet *packet,
                     uint64_t *ts, uint64_t addr, uint64_t frame,
                     uint32_t n_pkts, struct afxdp_rx_hints_batch *hb)
{
    bool timed = afxdp_rx_timed(hb, n_pkts);

    if (OVS_UNLIKELY(timed || hb->read_all)) {
        afxdp_rx_hints(q, packet, ts, addr, frame, timed, hb);
    }
}

#endif /* afxdp-rx-hints.h */
