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

#ifndef AFXDP_BIG_PACKET_H
#define AFXDP_BIG_PACKET_H 1

/* A packet received in several frames (AF_XDP multi-buffer), copied into
 * one allocation that also carries what its egress port needs for the
 * port-to-port latency: the XDP hints' timestamp and the ingress port.
 * A packet in a UMEM frame has these in its frame (struct
 * afxdp_pool_frame); a copy has no frame, so they travel here.
 *
 * The dp_packet comes first and its buffer is the allocation's tail, with
 * source DPBUF_STUB: OVS frees the whole with free() (dp_packet_delete()
 * uninits a stub without freeing its buffer), and a resize (a header pushed
 * into too little headroom) moves the bytes to the heap as for any stub,
 * after which the packet is no longer recognised here (no latency sample,
 * nothing else lost).  afxdp_big_packet_cast() recognises one by its
 * buffer's address, which only ours can have, and then a magic number. */

#include <stdint.h>

#include "dp-packet.h"
#include "util.h"

#define AFXDP_BIG_PACKET_MAGIC 0x8f3c1e6a52d4b907ULL

struct afxdp_big_packet {
    struct dp_packet packet;    /* First: freed by OVS with free(). */
    uint64_t magic;             /* AFXDP_BIG_PACKET_MAGIC. */
    uint64_t rx_ts;             /* CLOCK_MONOTONIC ns of the XDP hints, 0
                                 * if none (or not timed). */
    uint32_t owner;             /* The ingress port (as
                                 * afxdp_pool_frame_owner()). */
    uint32_t seg_mtu;           /* Largest IP packet of a segment, if it is
                                 * a GSO packet to cut (of the innermost IP
                                 * header in a tunnel), 0 if unknown: see
                                 * afxdp_txseg_src_mtu(). */
    uint8_t data[];             /* The packet's buffer. */
};

/* Returns a new packet ('->packet') with 'headroom' bytes of headroom and
 * room for 'size' bytes of data (none put yet), received by port 'owner',
 * without a timestamp ('rx_ts' is 0 until the caller sets it) and with
 * 'seg_mtu' 0. */
struct afxdp_big_packet *afxdp_big_packet_new(uint32_t size,
                                              uint32_t headroom,
                                              uint32_t owner);

/* Returns a new packet as afxdp_big_packet_new() does, received as
 * 'first' was (by its port, at its timestamp: 'first' is a packet of a
 * UMEM frame or a big packet), with 'seg_mtu'. */
struct afxdp_big_packet *afxdp_big_packet_after(const struct dp_packet *first,
                                                uint32_t size,
                                                uint32_t headroom,
                                                uint32_t seg_mtu);

/* The big packet that 'p' is, or NULL if 'p' is another kind of packet.
 * Reads nothing beyond 'p' unless its buffer starts where ours do. */
static inline const struct afxdp_big_packet *
afxdp_big_packet_cast(const struct dp_packet *p)
{
    const struct afxdp_big_packet *bp;

    if (p->source != DPBUF_STUB) {
        return NULL;
    }
    bp = CONTAINER_OF(p, struct afxdp_big_packet, packet);
    if (dp_packet_base(p) != bp->data
        || bp->magic != AFXDP_BIG_PACKET_MAGIC) {
        return NULL;
    }
    return bp;
}

#endif /* afxdp-big-packet.h */
