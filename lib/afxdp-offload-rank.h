/* SPDX-License-Identifier: Apache-2.0 */

/* Ranking of the mask slots of an XDP program's flow table by their hits,
 * as OVS's classifier ranks its subtables: which lookup order costs the
 * frames counted since the last ranking the fewest lookups.  Pure logic
 * but for reading the program's per-CPU hit counters; the caller
 * (afxdp-offload.c) holds whatever guards the table. */

#ifndef AFXDP_OFFLOAD_RANK_H
#define AFXDP_OFFLOAD_RANK_H 1

#include <stdbool.h>
#include <stdint.h>

#include "bpf/afxdp-flow.h"

/* Masks are ranked at most this often, and only when reordering them saves
 * at least a fifth of the lookups of the frames counted since last time,
 * of which there must be at least AFXDP_OFFLOAD_RANK_MIN_HITS. */
#define AFXDP_OFFLOAD_RANK_MS 1000
#define AFXDP_OFFLOAD_RANK_MIN_HITS 1000

/* What the ranking of one program remembers between rankings. */
struct afxdp_offload_ranker {
    long long int next_rank;                    /* When to rank next. */
    uint64_t slot_hits[AFXDP_FLOW_MAX_MASKS];   /* At the last ranking. */
};

/* When it is time ('now', in ms) and enough frames were counted since the
 * last ranking, reads the hits of the 'n' masks of 'order' from the
 * program's map 'hits_fd' and returns true if a better order was found,
 * stored in 'best', with the lookups of the frames counted in '*before'
 * (in 'order'), '*after' (in 'best') and '*total' (the frames). */
bool afxdp_offload_rank_next(struct afxdp_offload_ranker *, int hits_fd,
                             const uint8_t *order, uint32_t n,
                             long long int now, uint8_t *best,
                             uint64_t *before, uint64_t *after,
                             uint64_t *total);

/* Reads the hits of each of the 'n_slots' mask slots, summed over CPUs,
 * from the per-CPU array map 'hits_fd' into 'hits'.  Returns false if it
 * cannot. */
bool afxdp_offload_rank_read_hits(int hits_fd, uint64_t hits[],
                                  uint32_t n_slots);

/* Sorts the 'n' slots of 'order' by the hits 'd' (indexed by slot) since
 * the last ranking, busiest first (ties keep their order), into 'best'.
 * Returns true if 'best' costs at most four fifths of the lookups of
 * 'order' for those hits, storing both costs in '*before' and '*after'. */
bool afxdp_offload_rank_order(const uint8_t *order, uint32_t n,
                              const uint64_t *d, uint8_t *best,
                              uint64_t *before, uint64_t *after);

#endif /* afxdp-offload-rank.h */
