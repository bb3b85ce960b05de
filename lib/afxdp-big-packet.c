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

#include <config.h>

#include "afxdp-big-packet.h"

#include "netdev-afxdp-pool.h"

struct afxdp_big_packet *
afxdp_big_packet_new(uint32_t size, uint32_t headroom, uint32_t owner)
{
    size_t allocated = (size_t) headroom + size;
    struct afxdp_big_packet *bp;

    /* The same allocator as dp_packet_new(), which dp_packet_delete()
     * pairs with. */
#ifdef DPDK_NETDEV
    bp = xmalloc_cacheline(sizeof *bp + allocated);
#else
    bp = xmalloc(sizeof *bp + allocated);
#endif
    bp->magic = AFXDP_BIG_PACKET_MAGIC;
    bp->rx_ts = 0;
    bp->owner = owner;
    bp->seg_mtu = 0;
    dp_packet_use_stub(&bp->packet, bp->data, allocated);
    dp_packet_reserve(&bp->packet, headroom);
    return bp;
}

struct afxdp_big_packet *
afxdp_big_packet_after(const struct dp_packet *first, uint32_t size,
                       uint32_t headroom, uint32_t seg_mtu)
{
    const struct afxdp_big_packet *from = afxdp_big_packet_cast(first);
    uint32_t owner = from ? from->owner : 0;
    uint64_t rx_ts = from ? from->rx_ts : 0;
    struct afxdp_big_packet *bp;

    if (first->source == DPBUF_AFXDP) {
        const struct afxdp_pool_frame *f = afxdp_pool_frame(
            CONTAINER_OF(first, struct dp_packet_afxdp, packet));

        owner = afxdp_pool_frame_owner(f);
        rx_ts = f->rx_ts;
    }
    bp = afxdp_big_packet_new(size, headroom, owner);
    bp->rx_ts = rx_ts;
    bp->seg_mtu = seg_mtu;
    return bp;
}
