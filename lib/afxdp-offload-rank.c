/* SPDX-License-Identifier: Apache-2.0 */

/* Ranking of the mask slots of an XDP program's flow table by their hits
 * (see afxdp-offload-rank.h). */

#include <config.h>

#include "afxdp-offload-rank.h"

#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util.h"

bool
afxdp_offload_rank_read_hits(int hits_fd, uint64_t hits[], uint32_t n_slots)
{
    int n_cpus = libbpf_num_possible_cpus();
    uint64_t *v;
    bool ok = true;

    if (n_cpus <= 0) {
        return false;
    }
    v = xcalloc(n_cpus, sizeof *v);
    for (uint32_t slot = 0; ok && slot < n_slots; slot++) {
        ok = !bpf_map_lookup_elem(hits_fd, &slot, v);
        hits[slot] = 0;
        for (int i = 0; ok && i < n_cpus; i++) {
            hits[slot] += v[i];
        }
    }
    free(v);
    return ok;
}

/* Lookups that the frames 'd' (hits per slot) cost in 'order'. */
static uint64_t
afxdp_offload_rank_cost(const uint8_t *order, uint32_t n, const uint64_t *d)
{
    uint64_t cost = 0;

    for (uint32_t i = 0; i < n; i++) {
        cost += d[order[i]] * (i + 1);
    }
    return cost;
}

bool
afxdp_offload_rank_order(const uint8_t *order, uint32_t n, const uint64_t *d,
                         uint8_t *best, uint64_t *before, uint64_t *after)
{
    /* Insertion sort, stable. */
    memcpy(best, order, n);
    for (uint32_t i = 1; i < n; i++) {
        uint8_t slot = best[i];
        uint32_t j = i;

        for (; j > 0 && d[best[j - 1]] < d[slot]; j--) {
            best[j] = best[j - 1];
        }
        best[j] = slot;
    }
    *before = afxdp_offload_rank_cost(order, n, d);
    *after = afxdp_offload_rank_cost(best, n, d);
    return *after * 5 <= *before * 4;
}

bool
afxdp_offload_rank_next(struct afxdp_offload_ranker *r, int hits_fd,
                        const uint8_t *order, uint32_t n, long long int now,
                        uint8_t *best, uint64_t *before, uint64_t *after,
                        uint64_t *total)
{
    uint64_t hits[AFXDP_FLOW_MAX_MASKS], d[AFXDP_FLOW_MAX_MASKS] = { 0 };

    if (n < 2 || now < r->next_rank
        || !afxdp_offload_rank_read_hits(hits_fd, hits,
                                         AFXDP_FLOW_MAX_MASKS)) {
        return false;
    }
    r->next_rank = now + AFXDP_OFFLOAD_RANK_MS;
    *total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t slot = order[i];

        d[slot] = hits[slot] - r->slot_hits[slot];
        *total += d[slot];
    }
    if (*total < AFXDP_OFFLOAD_RANK_MIN_HITS) {
        return false;
    }
    memcpy(r->slot_hits, hits, sizeof r->slot_hits);
    return afxdp_offload_rank_order(order, n, d, best, before, after);
}
