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

#ifndef NETDEV_AFXDP_POOL_H
#define NETDEV_AFXDP_POOL_H 1

/* UMEM pool of an afxdp port.
 *
 * A pool is one contiguous memory area cut into 'n_frames' frames of
 * 'frame_size' bytes (a power of two), registered with the kernel as the
 * port's UMEM, plus:
 *
 *   - a LIFO stack of free frame addresses with O(1) batched get/put under
 *     one spin lock, so a whole rx or tx batch costs a single lock round;
 *
 *   - one 'struct dp_packet_afxdp' per frame, so a received frame becomes a
 *     dp_packet without any allocation;
 *
 *   - the count of frames handed to OVS as dp_packets.
 *
 * Frame addresses are byte offsets of a frame's first byte from the start
 * of the area, exactly what the kernel's fill and completion rings carry.
 *
 * Every frame is at any time in exactly one place: the free stack (counted
 * here), a socket's fill, rx, tx or completion ring (counted from the ring
 * indexes by afxdp-xsk), or OVS (counted here).  What remains is in the
 * kernel between two rings.
 *
 * Lifetime: the port creates the pool and releases it with
 * afxdp_pool_release() once its sockets are gone.  dp_packets still in OVS
 * keep the memory alive: the last one returned frees the pool.
 *
 * Threading: afxdp_pool_create() and afxdp_pool_release() are control path.
 * All other functions may be called from any thread at any time, and never
 * make a syscall. */

#ifdef HAVE_AF_XDP

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp-packet.h"
#include "openvswitch/thread.h"
#include "ovs-atomic.h"

struct afxdp_pool;

/* dp-packet.h stores in each 'struct dp_packet_afxdp' a pointer typed
 * 'struct umem_pool *'.  We never define that type: the pointer always holds
 * a 'struct afxdp_pool *'.  These two helpers are the only conversions. */
struct umem_pool;

static inline struct umem_pool *
afxdp_pool_to_umem_pool(struct afxdp_pool *pool)
{
    return (struct umem_pool *) pool;
}

static inline struct afxdp_pool *
afxdp_pool_from_umem_pool(struct umem_pool *p)
{
    return (struct afxdp_pool *) p;
}

/* Where the pool's memory comes from. */
struct afxdp_pool_params {
    uint32_t n_frames;          /* Number of frames, >= 1. */
    uint32_t frame_size;        /* Bytes per frame, power of 2, >= 2048. */
    int numa_id;                /* NUMA node for the memory, -1 for any. */
    bool hugepages;             /* Back the area with huge pages. */
};

/* Accounting snapshot of the pool itself (see afxdp_pool_get_counts()). */
struct afxdp_pool_counts {
    uint32_t n_frames;          /* Frames in the pool. */
    uint32_t n_free;            /* On the free stack. */
    uint32_t n_in_ovs;          /* Handed to OVS as dp_packets. */
};

int afxdp_pool_create(const struct afxdp_pool_params *,
                      struct afxdp_pool **poolp, char **errp);
void afxdp_pool_release(struct afxdp_pool *);

uint32_t afxdp_pool_get(struct afxdp_pool *, uint64_t addrs[], uint32_t n);
void afxdp_pool_put(struct afxdp_pool *, const uint64_t addrs[], uint32_t n);

uint32_t afxdp_pool_to_ovs(struct afxdp_pool *, uint32_t n_given,
                           uint64_t addrs[], uint32_t n_wanted);
void afxdp_pool_from_ovs(struct afxdp_pool *, const uint64_t addrs[],
                         uint32_t n);

void afxdp_pool_get_counts(struct afxdp_pool *, struct afxdp_pool_counts *);
unsigned int afxdp_pool_count_live(void);
unsigned int afxdp_pool_count_waiting(void);
void afxdp_pool_set_owner(struct afxdp_pool *, uint32_t owner);
void afxdp_pool_set_rx_mtu(struct afxdp_pool *, uint32_t mtu);

void *afxdp_pool_area(const struct afxdp_pool *);
size_t afxdp_pool_area_size(const struct afxdp_pool *);
uint32_t afxdp_pool_frame_size(const struct afxdp_pool *);
int afxdp_pool_numa_id(const struct afxdp_pool *);
bool afxdp_pool_uses_hugepages(const struct afxdp_pool *);

/* What the pool keeps for each frame: OVS's packet and what the provider
 * keeps with it, side by side, so that the PMD reaches both through the
 * cache lines it touches anyway.  The array is cache-line aligned and each
 * entry a whole number of cache lines, so every frame's members fall on the
 * same lines: 'rx_ts', 'mpool' and the dp_packet's own first bytes (which
 * OVS writes for every packet received) share one.  With OVS 3.1's
 * dp_packet (560 bytes, 'md' at 48) an entry is 9 lines and 'md' starts a
 * line, as its cache line markers intend: a received packet's metadata
 * then takes 3 lines, where a 568-byte struct dp_packet_afxdp at any
 * offset takes 4.3 on average. */
OVS_ALIGNED_STRUCT(CACHE_LINE_SIZE, afxdp_pool_frame) {
    uint64_t rx_ts;                 /* CLOCK_MONOTONIC ns of the XDP hint
                                     * the frame arrived with, 0 if none.
                                     * Written by the rx queue that received
                                     * it, read by the sender. */
    struct dp_packet_afxdp xp;      /* OVS's packet for the frame. */
};

/* Fast-path accessors.  The layout is published so that they can be
 * inlined; nothing outside netdev-afxdp-pool.c may write these members. */
struct afxdp_pool_layout {
    char *area;                     /* First byte of the UMEM area. */
    struct afxdp_pool_frame *frames;    /* One per frame, index = addr >>
                                         * shift. */
    uint64_t frame_mask;            /* ~(frame_size - 1). */
    unsigned int frame_shift;       /* log2(frame_size). */
    uint64_t area_size;             /* n_frames << frame_shift. */
    uint32_t owner;                 /* Id of the port the pool belongs to
                                     * (afxdp_pool_set_owner()). */
    atomic_uint32_t rx_mtu;         /* MTU of the device the port receives
                                     * from, 0 if unknown: a TCP packet it
                                     * received larger than that was a GSO
                                     * packet, whose segments must not be
                                     * larger (afxdp-txseg.h). */
};

/* Returns the fast-path view of 'pool'.  Inline, a cast (the layout is
 * the first member of the pool, which netdev-afxdp-pool.c asserts): the
 * send path calls it for every packet it frees. */
static inline const struct afxdp_pool_layout *
afxdp_pool_layout(const struct afxdp_pool *pool)
{
    return (const struct afxdp_pool_layout *) pool;
}

/* Returns the address of the frame that contains UMEM offset 'addr'. */
static inline uint64_t
afxdp_pool_frame_addr(const struct afxdp_pool_layout *l, uint64_t addr)
{
    return addr & l->frame_mask;
}

/* Returns a pointer to UMEM offset 'addr'. */
static inline void *
afxdp_pool_ptr(const struct afxdp_pool_layout *l, uint64_t addr)
{
    return l->area + addr;
}

/* Returns the dp_packet that describes the frame containing 'addr'. */
static inline struct dp_packet_afxdp *
afxdp_pool_packet(const struct afxdp_pool_layout *l, uint64_t addr)
{
    return &l->frames[addr >> l->frame_shift].xp;
}

/* Returns the pool's record of the frame that 'xp' describes. */
static inline struct afxdp_pool_frame *
afxdp_pool_frame(struct dp_packet_afxdp *xp)
{
    return CONTAINER_OF(xp, struct afxdp_pool_frame, xp);
}

/* The MTU of the device the port of 'l' receives from, 0 if unknown. */
static inline uint32_t
afxdp_pool_rx_mtu(const struct afxdp_pool_layout *l)
{
    uint32_t mtu;

    atomic_read_relaxed(CONST_CAST(atomic_uint32_t *, &l->rx_mtu), &mtu);
    return mtu;
}

/* Returns the id of the port whose pool 'f' is in. */
static inline uint32_t
afxdp_pool_frame_owner(const struct afxdp_pool_frame *f)
{
    return afxdp_pool_layout(afxdp_pool_from_umem_pool(f->xp.mpool))->owner;
}

/* True if a received descriptor, 'len' bytes at UMEM offset 'addr',
 * describes a frame OVS can take: inside the area, not running past the
 * end of its frame, and long enough for an Ethernet header ('min_len').
 * The kernel only writes such descriptors; the check keeps a bad one (a
 * kernel or driver bug, or memory written by someone else) from making
 * OVS read outside the frame. */
static inline bool
afxdp_pool_rx_desc_ok(const struct afxdp_pool_layout *l, uint64_t addr,
                      uint32_t len, uint32_t min_len)
{
    uint64_t in_frame = addr & ~l->frame_mask;

    return (addr < l->area_size && len >= min_len
            && len <= (~l->frame_mask + 1) - in_frame);
}

/* Returns the address of the frame of 'xp', a packet that the receive
 * path made of it (dp_packet_use_afxdp(), whose buffer starts at the
 * frame: OVS never moves the buffer of such a packet).  Two instructions
 * where the frame's index (an entry is 9 cache lines) takes a
 * multiplication: the send path calls it for every packet it frees. */
static inline uint64_t
afxdp_pool_packet_addr(const struct afxdp_pool_layout *l,
                       const struct dp_packet_afxdp *xp)
{
    return (const char *) dp_packet_base(&xp->packet) - l->area;
}

#endif /* HAVE_AF_XDP */
#endif /* netdev-afxdp-pool.h */
