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
