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
 * A flow's id is reused only after a grace period that began after the
 * flow left (see "Grace periods" below); nothing here sleeps.
 *
 * Not thread-safe: the caller (lib/afxdp-offload.c, under its port's
 * mutex) serializes all calls on one table.  The grace period functions
 * are thread-safe. */

#include <stdbool.h>
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
 * the same tag); EAGAIN if the free ids all await the end of a grace period
 * (wait for afxdp_flow_table_grace_mark(), then try again); ENODEV if it
 * has no maps; or another errno from the kernel. */
int afxdp_flow_table_add(struct afxdp_flow_table *table,
                         const struct afxdp_flow_entry *entry,
                         unsigned int n_words,
                         struct afxdp_flow_place *place);

/* Removes the flow at 'place'.  Program runs that found it before may
 * still use it, and count frames for it, until they end; its id is free
 * for another flow after the next grace period. */
void afxdp_flow_table_remove(struct afxdp_flow_table *table,
                             const struct afxdp_flow_place *place);

/* Reads the counters of the flow at 'place', summed over CPUs, into
 * '*sum'.  Returns 0 or an errno. */
int afxdp_flow_table_read(const struct afxdp_flow_table *table,
                          const struct afxdp_flow_place *place,
                          struct afxdp_flow_counts *sum);

/* Grace periods.
 *
 * Our XDP program reads the flow table and the mask table without locks
 * and may use what it read until its run ends.  Linux runs every XDP
 * program inside an RCU read-side critical section: native XDP in NAPI's
 * bh-disabled section (an RCU reader also on PREEMPT_RT, where it is
 * preemptible and NAPI runs in threads), generic XDP under
 * rcu_read_lock().  So an id or a mask slot that left the tables may be
 * rewritten once an RCU grace period that began after it left has ended:
 * no run that could have read it is left then, however long runs last.
 *
 * Userspace has no synchronize_rcu(), but the kernel calls it for us on
 * each update of a map-in-map, so that userspace knows, when the update
 * returns, that no running BPF program still uses the old inner map
 * (maybe_wait_bpf_programs() in kernel/bpf/syscall.c; the kernel's
 * selftests use it the same way).
 * afxdp_flow_table_grace_wait() makes such an update on a map of its own.
 *
 * A grace period takes milliseconds, tens under load: no one waits for one
 * holding a lock that OVS's other threads (revalidators) take.  Things
 * freed wait in place, tagged with afxdp_flow_table_grace_mark(), and are
 * taken again only once afxdp_flow_table_grace_done() says so; whoever
 * runs out of free things waits, without its locks, and tries again. */

/* Returns the grace period that must end before what the caller took out
 * of the tables (before this call) may be rewritten. */
uint64_t afxdp_flow_table_grace_mark(void);

/* True if grace period 'mark' has ended. */
bool afxdp_flow_table_grace_done(uint64_t mark);

/* Waits until grace period 'mark' has ended.  Returns 0, or an errno if
 * the kernel refused the map-in-map (then nothing may be reused). */
int afxdp_flow_table_grace_wait(uint64_t mark);

#endif /* afxdp-flow-table.h */
