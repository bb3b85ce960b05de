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

#ifndef AFXDP_FLOW_TABLE_H
#define AFXDP_FLOW_TABLE_H 1

/* The flow table of our XDP program, userspace's side.
 *
 * The program looks offloaded flows up in a hash table of its own over
 * three array maps: buckets of tags and flow ids, flow entries by id, and
 * per-CPU counters by id ("The flow table" in bpf/afxdp-flow.h).  This
 * module maps the buckets into our memory, keeps the free ids, and writes
 * the tables following the update protocol there, so that a program run
 * reading them meanwhile never uses a half-written entry.
 *
 * Not thread-safe: the caller (lib/afxdp-offload.c, under its port's
 * mutex) serializes all calls on one table.  The functions may sleep for
 * up to 2 ms (an id is reused only that long after its flow left). */

#include <stdint.h>
#include "bpf/afxdp-flow.h"

struct afxdp_flow_table;

/* Where a flow is in the table, from afxdp_flow_table_add(). */
struct afxdp_flow_place {
    uint32_t id;                /* Its entry and counters. */
    uint32_t bucket;
    int way;
};

struct afxdp_flow_table *afxdp_flow_table_create(void);
void afxdp_flow_table_destroy(struct afxdp_flow_table *);

/* Empties 'table' for a program whose maps are 'flows_fd' ('afxdp_flows'),
 * 'stats_fd' ('afxdp_flow_stats') and 'buckets_fd' ('afxdp_flow_buckets'),
 * which must be new, hence empty, and whose mask table has hash seed
 * 'seed'.  Maps the program's buckets into our memory (and unmaps those
 * of the previous program); with 'buckets_fd' -1, maps nothing, and the
 * table takes no flow.  Returns 0 or an errno (then the table takes no
 * flow either). */
int afxdp_flow_table_reset(struct afxdp_flow_table *table, int flows_fd,
                           int stats_fd, int buckets_fd, uint64_t seed);

/* Adds the flow 'entry', whose 'key' is its lookup key of 'n_words' words
 * (the rest zero), with zero counters.  Returns 0 and the flow's place in
 * '*place'; EEXIST if a flow has that lookup key; ENOSPC if there is no
 * free id, or no room for it in its bucket (full, or holding a flow with
 * the same tag); ENODEV if it has no maps; or another errno from the
 * kernel. */
int afxdp_flow_table_add(struct afxdp_flow_table *table,
                         const struct afxdp_flow_entry *entry,
                         unsigned int n_words,
                         struct afxdp_flow_place *place);

/* Removes the flow at 'place'.  The program may still count a frame or two
 * for it while it ends runs that found it. */
void afxdp_flow_table_remove(struct afxdp_flow_table *table,
                             const struct afxdp_flow_place *place);

/* Reads the counters of the flow at 'place', summed over CPUs, into
 * '*sum'.  Returns 0 or an errno. */
int afxdp_flow_table_read(const struct afxdp_flow_table *table,
                          const struct afxdp_flow_place *place,
                          struct afxdp_flow_counts *sum);

#endif /* afxdp-flow-table.h */
