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

/* What a received burst gets before OVS sees it: see afxdp-rxburst.h. */

#include <config.h>

#include "afxdp-rxburst.h"

#include "afxdp-big-packet.h"
#include "afxdp-port-private.h"
#include "afxdp-rxcsum.h"
#include "afxdp-rxgro.h"
#include "dp-packet.h"
#include "netdev-afxdp-pool.h"
#include "packets.h"
#include "util.h"

/* Marks partial, or finishes, the pseudo-header-only TCP and UDP checksums
 * of the packets of 'batch' from the 'first'th on, just received on 'q'
 * (see afxdp-rxcsum.h), and counts them. */
static void
afxdp_rxburst_csum(struct afxdp_queue *q, struct dp_packet_batch *batch,
                   size_t first)
{
    uint32_t n_partial = 0;

    for (size_t i = first; i < dp_packet_batch_size(batch); i++) {
        n_partial += afxdp_rxcsum_fix(batch->packets[i]);
    }
    if (n_partial) {
        afxdp_counter_add(&q->rx_csum_partial, n_partial);
    }
}

/* The packet that TCP segments received on an afxdp port merge into
 * (afxdp_rxgro_new_packet): see afxdp_big_packet_after(). */
static struct dp_packet *
afxdp_rxburst_new(const struct dp_packet *first, uint32_t size,
                  uint32_t seg_mtu)
{
    return &afxdp_big_packet_after(first, size, AFXDP_RX_HEADROOM,
                                   seg_mtu)->packet;
}

/* Counts in 'q' what afxdp-rxgro did. */
static void
afxdp_rxburst_count(struct afxdp_queue *q, const struct afxdp_rxgro_stats *st)
{
    if (st->merged) {
        afxdp_counter_add(&q->rx_gro_merged, st->merged);
        afxdp_counter_add(&q->rx_gro_segments, st->segs);
    }
    if (st->trains) {
        afxdp_counter_add(&q->rx_gro_trains, st->trains);
        afxdp_counter_add(&q->rx_gro_train_segments, st->train_segs);
    }
    if (OVS_UNLIKELY(st->bad_csum)) {
        afxdp_counter_add(&q->rx_gro_bad_csum, st->bad_csum);
    }
    if (OVS_UNLIKELY(st->bad_trains)) {
        afxdp_counter_add(&q->rx_gro_bad_train, st->bad_trains);
    }
}

void
afxdp_rxburst_finish(struct afxdp_queue *q, struct dp_packet_batch *batch,
                     size_t first, uint32_t n_big)
{
    struct afxdp_rxgro_stats st = { 0 };

    if (n_big) {
        uint32_t mtu = afxdp_pool_rx_mtu(q->layout);

        /* A device of unknown MTU: at least Ethernet's. */
        afxdp_rxgro_trains(batch, first,
                           (mtu ? mtu : ETH_PAYLOAD_MAX) + ETH_HEADER_LEN
                           + 2 * VLAN_HEADER_LEN,
                           afxdp_rxburst_new, &st);
    }
    if (q->rx_csum_fix) {
        afxdp_rxburst_csum(q, batch, first);
    }
    if (q->rx_gro && n_big > 1) {
        afxdp_rxgro_batch(batch, first, afxdp_rxburst_new, &st);
    }
    afxdp_rxburst_count(q, &st);
}
