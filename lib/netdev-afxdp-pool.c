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

#include "netdev-afxdp-pool.h"

#include <errno.h>
#include <numa.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coverage.h"
#include "dp-packet.h"
#include "netdev-afxdp.h"
#include "openvswitch/compiler.h"
#include "ovs-atomic.h"
#include "openvswitch/util.h"
#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_pool);

COVERAGE_DEFINE(afxdp_pool_created);
COVERAGE_DEFINE(afxdp_pool_destroyed);
COVERAGE_DEFINE(afxdp_pool_freed_late);

/* Pools created and not yet destroyed, in this process. */
static atomic_count afxdp_pools_live = ATOMIC_COUNT_INIT(0);
/* Of those, the ones whose owner released them while OVS still held some
 * of their frames as dp_packets. */
static atomic_count afxdp_pools_waiting = ATOMIC_COUNT_INIT(0);

struct afxdp_pool {
    struct afxdp_pool_layout layout;    /* Fast-path view, immutable.  First:
                                         * afxdp_pool_layout() is a cast. */

    /* Immutable after afxdp_pool_create(). */
    size_t area_size;           /* Bytes mapped at 'layout.area'. */
    uint32_t n_frames;          /* Frames in the area. */
    uint32_t frame_size;        /* Bytes per frame. */
    int numa_id;                /* Node of the memory, or -1. */
    bool hugepages;             /* Mapped with MAP_HUGETLB. */
    bool numa_alloc;            /* Allocated by libnuma (else mmap). */

    struct ovs_spin lock;       /* Protects the members below. */
    uint64_t *stack OVS_GUARDED;  /* Free frame addresses. */
    uint32_t n_free OVS_GUARDED;  /* Entries used in 'stack'. */
    uint32_t n_in_ovs OVS_GUARDED;  /* Frames held as dp_packets. */
    bool released OVS_GUARDED;    /* Owner gone: free when the
                                            * last dp_packet returns. */
};

BUILD_ASSERT_DECL(offsetof(struct afxdp_pool, layout) == 0);

/* Maps the UMEM area of 'pool' according to 'p'.  Returns 0 or an errno and
 * a message in '*errp'. */
static int
afxdp_pool_map_area(struct afxdp_pool *pool,
                    const struct afxdp_pool_params *p, char **errp)
{
    void *area;

    if (p->hugepages) {
        area = mmap(NULL, pool->area_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE,
                    -1, 0);
        if (area == MAP_FAILED) {
            int error = errno;

            *errp = xasprintf("cannot map %"PRIuSIZE" bytes of huge pages "
                              "for the UMEM (%s); reserve huge pages "
                              "(vm.nr_hugepages) or set "
                              "options:umem-hugepages=false",
                              pool->area_size, ovs_strerror(error));
            return error;
        }
        if (p->numa_id >= 0 && numa_available() >= 0) {
            /* Best effort: the pages are already faulted in by
             * MAP_POPULATE; this only matters before that on some
             * kernels. */
            numa_tonode_memory(area, pool->area_size, p->numa_id);
        }
    } else if (p->numa_id >= 0 && numa_available() >= 0
               && p->numa_id <= numa_max_node()) {
        area = numa_alloc_onnode(pool->area_size, p->numa_id);
        if (!area) {
            *errp = xasprintf("cannot allocate %"PRIuSIZE" bytes for the "
                              "UMEM on NUMA node %d",
                              pool->area_size, p->numa_id);
            return ENOMEM;
        }
        pool->numa_alloc = true;
        pool->numa_id = p->numa_id;
    } else {
        area = mmap(NULL, pool->area_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (area == MAP_FAILED) {
            int error = errno;

            *errp = xasprintf("cannot map %"PRIuSIZE" bytes for the UMEM "
                              "(%s)", pool->area_size, ovs_strerror(error));
            return error;
        }
    }
    pool->layout.area = area;
    pool->hugepages = p->hugepages;
    return 0;
}

static void
afxdp_pool_unmap_area(struct afxdp_pool *pool)
{
    if (pool->numa_alloc) {
        numa_free(pool->layout.area, pool->area_size);
    } else {
        munmap(pool->layout.area, pool->area_size);
    }
}

/* Creates a pool as described by 'p'.  On success returns 0 and stores the
 * pool in '*poolp'; the caller owns it and releases it with
 * afxdp_pool_release().  On failure returns a positive errno and stores a
 * malloc'd message (without device name) in '*errp'. */
int
afxdp_pool_create(const struct afxdp_pool_params *p,
                  struct afxdp_pool **poolp, char **errp)
    OVS_NO_THREAD_SAFETY_ANALYSIS   /* Not yet visible to other threads. */
{
    struct afxdp_pool *pool;
    int error;

    *poolp = NULL;
    *errp = NULL;
    if (!p->n_frames || p->frame_size < 2048
        || !is_pow2(p->frame_size)) {
        *errp = xasprintf("invalid UMEM geometry: %"PRIu32" frames of "
                          "%"PRIu32" bytes", p->n_frames, p->frame_size);
        return EINVAL;
    }

    pool = xzalloc(sizeof *pool);
    pool->n_frames = p->n_frames;
    pool->frame_size = p->frame_size;
    pool->numa_id = -1;
    pool->area_size = (size_t) p->n_frames * p->frame_size;
    if (p->hugepages) {
        /* Round up to a 1 GiB multiple would waste too much; 2 MiB pages
         * are what we expect. */
        pool->area_size = ROUND_UP(pool->area_size, 2 * 1024 * 1024);
    }
    pool->layout.frame_shift = log_2_floor(p->frame_size);
    pool->layout.frame_mask = ~(uint64_t) (p->frame_size - 1);
    pool->layout.area_size = ((uint64_t) p->n_frames
                              << pool->layout.frame_shift);

    error = afxdp_pool_map_area(pool, p, errp);
    if (error) {
        free(pool);
        return error;
    }

    pool->layout.frames = xzalloc_cacheline(p->n_frames
                                            * sizeof *pool->layout.frames);
    for (uint32_t i = 0; i < p->n_frames; i++) {
        pool->layout.frames[i].xp.mpool = afxdp_pool_to_umem_pool(pool);
    }

    ovs_spin_init(&pool->lock);
    pool->stack = xmalloc(p->n_frames * sizeof *pool->stack);
    /* Hand out low addresses first: they are the first ones pushed last. */
    for (uint32_t i = 0; i < p->n_frames; i++) {
        pool->stack[i] = (uint64_t) (p->n_frames - 1 - i) * p->frame_size;
    }
    pool->n_free = p->n_frames;

    atomic_count_inc(&afxdp_pools_live);
    COVERAGE_INC(afxdp_pool_created);
    *poolp = pool;
    return 0;
}

/* Frees 'pool'.  The caller is the last user of it. */
static void
afxdp_pool_destroy(struct afxdp_pool *pool)
    OVS_NO_THREAD_SAFETY_ANALYSIS
{
    atomic_count_dec(&afxdp_pools_live);
    COVERAGE_INC(afxdp_pool_destroyed);
    afxdp_pool_unmap_area(pool);
    free_cacheline(pool->layout.frames);
    free(pool->stack);
    ovs_spin_destroy(&pool->lock);
    free(pool);
}

/* Gives up the owner's reference to 'pool'.  The caller must already have
 * returned every frame that was in its sockets' rings (with
 * afxdp_pool_put()).  If OVS still holds dp_packets of this pool, the pool
 * stays until the last of them is returned. */
void
afxdp_pool_release(struct afxdp_pool *pool)
{
    bool destroy;

    if (!pool) {
        return;
    }
    ovs_spin_lock(&pool->lock);
    pool->released = true;
    destroy = !pool->n_in_ovs;
    if (!destroy) {
        atomic_count_inc(&afxdp_pools_waiting);
        VLOG_DBG("UMEM pool %p: %"PRIu32" frames still in OVS, freeing it "
                 "when they return", pool, pool->n_in_ovs);
    }
    ovs_spin_unlock(&pool->lock);

    if (destroy) {
        afxdp_pool_destroy(pool);
    }
}

/* Takes up to 'n' addresses off the free stack into 'addrs', which may be
 * NULL when 'n' is 0 (memcpy() must not be given NULL, even for 0 bytes).
 * Returns how many it took. */
static uint32_t
afxdp_pool_pop__(struct afxdp_pool *pool, uint64_t addrs[], uint32_t n)
    OVS_REQUIRES(pool->lock)
{
    n = MIN(n, pool->n_free);
    if (n) {
        pool->n_free -= n;
        memcpy(addrs, &pool->stack[pool->n_free], n * sizeof *addrs);
    }
    return n;
}

/* Pushes the 'n' addresses in 'addrs' (NULL if 'n' is 0) on the free
 * stack. */
static void
afxdp_pool_push__(struct afxdp_pool *pool, const uint64_t addrs[], uint32_t n)
    OVS_REQUIRES(pool->lock)
{
    ovs_assert(pool->n_free + n <= pool->n_frames);
    if (n) {
        memcpy(&pool->stack[pool->n_free], addrs, n * sizeof *addrs);
        pool->n_free += n;
    }
}

/* Takes up to 'n' free frames; stores their addresses in 'addrs' and
 * returns how many it took. */
uint32_t
afxdp_pool_get(struct afxdp_pool *pool, uint64_t addrs[], uint32_t n)
{
    ovs_spin_lock(&pool->lock);
    n = afxdp_pool_pop__(pool, addrs, n);
    ovs_spin_unlock(&pool->lock);
    return n;
}

/* Returns 'n' frames that were not in OVS (e.g. reaped from a completion
 * ring or reclaimed from a ring at close) to the free stack.  Each address
 * must be a frame address (see afxdp_pool_frame_addr()). */
void
afxdp_pool_put(struct afxdp_pool *pool, const uint64_t addrs[], uint32_t n)
{
    ovs_spin_lock(&pool->lock);
    afxdp_pool_push__(pool, addrs, n);
    ovs_spin_unlock(&pool->lock);
}

/* Receive path, in one lock round: records that 'n_given' frames have just
 * been handed to OVS as dp_packets, and takes up to 'n_wanted' free frames
 * for the fill ring into 'addrs' (NULL if 'n_wanted' is 0).  Returns how
 * many it took. */
uint32_t
afxdp_pool_to_ovs(struct afxdp_pool *pool, uint32_t n_given,
                  uint64_t addrs[], uint32_t n_wanted)
{
    uint32_t n;

    ovs_spin_lock(&pool->lock);
    pool->n_in_ovs += n_given;
    n = afxdp_pool_pop__(pool, addrs, n_wanted);
    ovs_spin_unlock(&pool->lock);
    return n;
}

/* Returns 'n' frames that OVS held as dp_packets (the packets are dead).
 * May free the pool if its owner released it and these were the last. */
void
afxdp_pool_from_ovs(struct afxdp_pool *pool, const uint64_t addrs[],
                    uint32_t n)
{
    bool destroy;

    ovs_spin_lock(&pool->lock);
    ovs_assert(pool->n_in_ovs >= n);
    pool->n_in_ovs -= n;
    afxdp_pool_push__(pool, addrs, n);
    destroy = pool->released && !pool->n_in_ovs;
    ovs_spin_unlock(&pool->lock);

    if (destroy) {
        atomic_count_dec(&afxdp_pools_waiting);
        COVERAGE_INC(afxdp_pool_freed_late);
        afxdp_pool_destroy(pool);
    }
}

/* Stores a consistent snapshot of the pool's own counts in '*c'. */
void
afxdp_pool_get_counts(struct afxdp_pool *pool, struct afxdp_pool_counts *c)
{
    ovs_spin_lock(&pool->lock);
    c->n_frames = pool->n_frames;
    c->n_free = pool->n_free;
    c->n_in_ovs = pool->n_in_ovs;
    ovs_spin_unlock(&pool->lock);
}

void *
afxdp_pool_area(const struct afxdp_pool *pool)
{
    return pool->layout.area;
}

size_t
afxdp_pool_area_size(const struct afxdp_pool *pool)
{
    return pool->area_size;
}

uint32_t
afxdp_pool_frame_size(const struct afxdp_pool *pool)
{
    return pool->frame_size;
}

int
afxdp_pool_numa_id(const struct afxdp_pool *pool)
{
    return pool->numa_id;
}

bool
afxdp_pool_uses_hugepages(const struct afxdp_pool *pool)
{
    return pool->hugepages;
}

/* Returns the number of pools that exist in this process: created and not
 * yet freed (released pools wait for their dp_packets). */
unsigned int
afxdp_pool_count_live(void)
{
    return atomic_count_get(&afxdp_pools_live);
}

/* Returns how many of the live pools were released by their owner and
 * wait for the dp_packets OVS still holds. */
unsigned int
afxdp_pool_count_waiting(void)
{
    return atomic_count_get(&afxdp_pools_waiting);
}

/* Records that 'pool' belongs to the port with id 'owner'.  Call before
 * the pool is used by any other thread. */
void
afxdp_pool_set_owner(struct afxdp_pool *pool, uint32_t owner)
{
    pool->layout.owner = owner;
}

/* Sets the MTU of the device the pool's port receives from (0: unknown),
 * which the send path reads for each TCP packet it cuts. */
void
afxdp_pool_set_rx_mtu(struct afxdp_pool *pool, uint32_t mtu)
{
    atomic_store_relaxed(&pool->layout.rx_mtu, mtu);
}

/* OVS's dp_packet_delete() of a packet in a UMEM frame (DPBUF_AFXDP): the
 * frame goes back to its pool. */
void
free_afxdp_buf(struct dp_packet *p)
{
    struct dp_packet_afxdp *xp = CONTAINER_OF(p, struct dp_packet_afxdp,
                                              packet);
    struct afxdp_pool *pool = afxdp_pool_from_umem_pool(xp->mpool);
    uint64_t addr = afxdp_pool_packet_addr(afxdp_pool_layout(pool), xp);

    afxdp_pool_from_ovs(pool, &addr, 1);
}
