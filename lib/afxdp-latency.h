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

#ifndef AFXDP_LATENCY_H
#define AFXDP_LATENCY_H 1

/* Latency statistics: log-scale histograms and a bounded per-flow table.
 *
 * Pure logic: no syscalls, no clocks, no logging.  The caller computes
 * latencies in nanoseconds (e.g. from XDP-hint timestamps) and feeds them
 * here from the PMD fast path; the main thread reads and formats them.
 *
 *
 * Histogram ('struct afxdp_latency_hist')
 * ---------------------------------------
 *
 * Values 0 .. AFXDP_LATENCY_HIST_MAX_NS (2^36 - 1 ns, about 68.7 s) fall in
 * 528 buckets: values below 32 ns have a bucket each; above, every power of
 * two [2^k, 2^(k+1)) is cut into 16 equal sub-buckets, so a bucket
 * [L, L + W) always has W <= L / 16.  Larger values go to the last bucket
 * (min, max and sum stay exact).
 *
 * Error bound: afxdp_latency_hist_percentile() finds the bucket holding the
 * exact nearest-rank percentile and returns the bucket's midpoint, clamped
 * to the exact [min, max].  For samples up to AFXDP_LATENCY_HIST_MAX_NS
 * the result differs from the exact percentile by at most
 * W / 2 <= value / 32, i.e. at most 3.125 % (exact below 32 ns, and exact
 * when all samples are equal).  count, sum, min and max are exact (in a
 * copy taken while the writer is idle; see the reader contract).
 *
 * Writer contract: a histogram has exactly one writer, the thread that
 * owns it (a PMD), which calls afxdp_latency_hist_add() and
 * afxdp_latency_record().  They take no lock, do no atomic
 * read-modify-write, no division and no loop: a few relaxed loads and
 * stores, which are plain moves on x86-64 and arm64.
 *
 * Reader contract: any thread may at any time call
 * afxdp_latency_hist_percentile(), _summary(), _format(), or use a live
 * histogram as the source of afxdp_latency_hist_merge().  Each of them
 * first copies the histogram with relaxed loads, so it may miss the
 * samples the writer adds during the copy.  The copy is then made
 * self-consistent: its count is the sum of its buckets, and min and max
 * are pulled inside the first and last occupied buckets, so a reader
 * never sees e.g. min > max or a sample count that its percentiles
 * disagree with.  So a copy that races with a new extreme sample may
 * show min or max at the bound of its first or last occupied bucket
 * instead (an error within that bucket's width, as for percentiles), and
 * the average may be off by the few samples in flight; a copy of a
 * histogram whose writer is idle is exact.  A reader never delays the
 * writer.
 *
 * Reset contract: afxdp_latency_hist_clear() may be called by any thread.
 * It does not touch the data: it bumps a request counter, and the writer,
 * which checks that counter in every afxdp_latency_hist_add(), zeroes the
 * histogram itself before adding its next sample, then publishes (with
 * release ordering) that it has done so.  Until then every reader treats
 * the histogram as empty, so a clear takes effect for readers at once
 * even when the writer is idle; samples added after the writer saw the
 * request are kept.  A reader whose copy overlapped a new request (and so
 * perhaps the writer's zeroing) notices it and copies again.  Counters
 * cannot wrap in practice: 'sum' holds 584 years of nanoseconds.
 *
 * Memory: 528 * 8 bytes of buckets plus 48 bytes, 4272 bytes per
 * histogram.  The caller allocates it (e.g. inside a per-queue structure)
 * and calls afxdp_latency_hist_init() before any other function.
 *
 *
 * Sanity filter (afxdp_latency_record())
 * --------------------------------------
 *
 * Latencies computed from timestamps of two clock domains (NIC and host)
 * can be negative or absurd when the clocks are not synchronized.
 * afxdp_latency_record() adds a delta only if 0 <= delta <=
 * AFXDP_LATENCY_MAX_SANE_NS (10 s); anything else only bumps the
 * histogram's 'n_rejected', which afxdp_latency_hist_format() shows.
 *
 *
 * Sampling ('struct afxdp_latency_sampler')
 * ------------------------------------------
 *
 * Timing every packet costs a clock read, a histogram update and a
 * per-flow update on each side, a few percent of the packet rate of a
 * PMD at 64 bytes.  So a queue times one packet in 'every': the first one
 * it sees, then each 'every'th after it, counted across batches.  The
 * choice depends on nothing but the packet's place in the queue's
 * sequence, so it is unbiased for latency (a slow packet is as likely to
 * be timed as a fast one) and after n packets exactly ceil(n / every)
 * were chosen.  Everything recorded from the chosen packets is a count of
 * samples: percentiles and averages estimate those of all packets; min and
 * max are those of the samples.  The sampler has one user, the thread
 * that owns the queue.
 *
 *
 * Per-flow table ('struct afxdp_latency_flows')
 * ---------------------------------------------
 *
 * A fixed number of slots (AFXDP_LATENCY_FLOWS_MIN_SLOTS ..
 * AFXDP_LATENCY_FLOWS_MAX_SLOTS, a power of 2, fixed at creation; memory
 * never grows), organized as sets of AFXDP_LATENCY_FLOWS_WAYS slots.  A
 * flow is identified by its 32-bit RSS hash alone: the high bits of the
 * hash times an odd constant select the set (the low bits of an RSS hash
 * pick the rx queue, so they hardly vary among one queue's flows), and a
 * slot of the set matches when it holds the same hash.  The
 * caller's 'struct afxdp_latency_flow_key' is only a label: it is copied
 * when a flow gets a slot and never compared, so two flows with the same
 * hash share a slot (shown with the key of the first).  The caller must
 * pass a real 5-tuple hash (OVS computes one when the NIC gave none).
 *
 * Per flow the table keeps packets, sum and max of the latency since the
 * flow got its slot.  Memory: 84 bytes per slot (86 kB for the default
 * 1024 slots), allocated at creation.
 *
 * Replacement policy: each slot also has a score, the sum of its packets'
 * weights, where a packet's weight is 1 plus one per
 * 2^AFXDP_LATENCY_FLOWS_SLOW_SHIFT ns (16.4 us) of latency, up to
 * AFXDP_LATENCY_FLOWS_MAX_WEIGHT: busy flows and slow flows both score
 * high.  Scores age: they halve each time the table has seen
 * AFXDP_LATENCY_FLOWS_AGE_FACTOR (64) samples per slot (counted, not
 * timed, so aging costs no clock read and stops when traffic does).
 * A packet of a flow without a slot takes a free slot of its set
 * if there is one; otherwise it lowers the score of the set's weakest slot
 * by its weight, and takes that slot (evicting its flow) once that score is
 * used up.  So a flow stays as long as it earns more score than the flows
 * competing for its set take away, a stream of light flows only churns the
 * weakest slots, and an idle flow decays and is replaced.
 *
 * Limits: the table is lossy by design.  Packets of a flow before it got a
 * slot are not counted for it (they are in 'n_untracked'); a flow's counts
 * restart when it loses its slot and later comes back; at most
 * AFXDP_LATENCY_FLOWS_WAYS heavy flows fit in one set, so when more heavy
 * flows collide in a set, the lightest of them cycle in and out; one slow
 * packet weighs at most AFXDP_LATENCY_FLOWS_MAX_WEIGHT ordinary ones, so a
 * flow seen only once is not kept against busy flows however slow it was.
 *
 * Writer, reader and reset contracts are those of the histogram:
 * afxdp_latency_flows_add() and _add_run() are called only by the owning
 * thread and use no lock and no atomic read-modify-write (they scan the
 * slots of one set: AFXDP_LATENCY_FLOWS_WAYS hashes in one cache line).
 * Readers (afxdp_latency_flows_top(), _get_counts()) may run in any thread: a
 * per-slot sequence counter, bumped by the writer only when a slot changes
 * flows, guarantees that a listed key always comes with its own flow's
 * counters; those counters may be a packet apart from each other.
 * afxdp_latency_flows_clear() may be called by any thread and is applied
 * by the writer on its next sample; readers see an empty table meanwhile.
 * afxdp_latency_flows_create() and _destroy() are control path; destroy
 * only once the writer no longer uses the table. */

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/compiler.h"
#include "openvswitch/types.h"
#include "openvswitch/util.h"
#include "ovs-atomic.h"

struct ds;

/* Histogram geometry: 2^AFXDP_LATENCY_SUB_BITS sub-buckets per power of
 * two, values up to 2^AFXDP_LATENCY_MAX_BITS - 1 ns. */
#define AFXDP_LATENCY_SUB_BITS 4
#define AFXDP_LATENCY_SUB_BUCKETS (1u << AFXDP_LATENCY_SUB_BITS)
#define AFXDP_LATENCY_MAX_BITS 36
#define AFXDP_LATENCY_HIST_MAX_NS \
    ((UINT64_C(1) << AFXDP_LATENCY_MAX_BITS) - 1)
#define AFXDP_LATENCY_N_BUCKETS \
    ((AFXDP_LATENCY_MAX_BITS - AFXDP_LATENCY_SUB_BITS + 1) \
     * AFXDP_LATENCY_SUB_BUCKETS)

/* Largest latency afxdp_latency_record() accepts: 10 s. */
#define AFXDP_LATENCY_MAX_SANE_NS INT64_C(10000000000)

/* A latency histogram.  Members are atomics so that readers in other
 * threads may load them (relaxed); only the owner thread stores them,
 * except 'reset_req'.  Use the functions below rather than the members. */
struct afxdp_latency_hist {
    atomic_uint32_t reset_req;  /* Bumped by afxdp_latency_hist_clear(). */
    atomic_uint32_t reset_done; /* Last 'reset_req' the writer applied. */
    atomic_uint64_t count;      /* Samples added (readers use the sum of
                                 * 'buckets', which agrees with them). */
    atomic_uint64_t sum;        /* Sum of the samples, ns. */
    atomic_uint64_t min;        /* Smallest sample, UINT64_MAX if none. */
    atomic_uint64_t max;        /* Largest sample, 0 if none. */
    atomic_uint64_t n_rejected; /* Deltas afxdp_latency_record() refused. */
    atomic_uint64_t buckets[AFXDP_LATENCY_N_BUCKETS]; /* Sample counts. */
};

/* Exact values of a histogram, as a reader sees them (see the reader
 * contract above).  All zero for an empty histogram, but 'n_rejected'. */
struct afxdp_latency_summary {
    uint64_t count;             /* Samples. */
    uint64_t sum_ns;            /* Sum of the samples. */
    uint64_t min_ns;            /* Smallest sample. */
    uint64_t max_ns;            /* Largest sample. */
    uint64_t avg_ns;            /* sum_ns / count, rounded. */
    uint64_t n_rejected;        /* Deltas afxdp_latency_record() refused. */
};

void afxdp_latency_hist_init(struct afxdp_latency_hist *);
void afxdp_latency_hist_clear(struct afxdp_latency_hist *);
void afxdp_latency_hist_merge(struct afxdp_latency_hist *dst,
                              const struct afxdp_latency_hist *src);
uint64_t afxdp_latency_hist_percentile(const struct afxdp_latency_hist *,
                                       double p);
void afxdp_latency_hist_summary(const struct afxdp_latency_hist *,
                                struct afxdp_latency_summary *);
void afxdp_latency_hist_format(const struct afxdp_latency_hist *,
                               struct ds *);
void afxdp_latency_format_ns(struct ds *, uint64_t ns);

uint64_t afxdp_latency_bucket_low(unsigned int idx);
uint64_t afxdp_latency_bucket_high(unsigned int idx);

/* Writer side, called by the inline functions below only. */
void afxdp_latency_hist_apply_reset__(struct afxdp_latency_hist *,
                                      uint32_t req);

/* Returns the bucket of a latency of 'ns' nanoseconds.
 *
 * With s = max(0, msb(ns) - 4), the bucket is 16 * s + (ns >> s): for
 * ns >= 16, ns >> s has exactly 5 significant bits, 16 .. 31, so each power
 * of two gets 16 consecutive buckets; below 32 ns, s = 0 and the bucket is
 * ns itself.  OR-ing in 16 makes msb >= 4, which both avoids clz(0) and
 * merges the two cases without a branch. */
static inline unsigned int
afxdp_latency_bucket(uint64_t ns)
{
    unsigned int shift;

    ns = ns < AFXDP_LATENCY_HIST_MAX_NS ? ns : AFXDP_LATENCY_HIST_MAX_NS;
    shift = (63 - AFXDP_LATENCY_SUB_BITS)
            - __builtin_clzll(ns | AFXDP_LATENCY_SUB_BUCKETS);
    return (shift << AFXDP_LATENCY_SUB_BITS) + (unsigned int) (ns >> shift);
}

/* Adds 'n' to the single-writer counter 'c': a relaxed load and a relaxed
 * store, not an atomic read-modify-write (nobody else stores to 'c'). */
static inline void
afxdp_latency_add__(atomic_uint64_t *c, uint64_t n)
{
    uint64_t v;

    atomic_read_relaxed(c, &v);
    atomic_store_relaxed(c, v + n);
}

/* Applies a reset of 'h' that another thread asked for, if any: this is
 * how the writer stays the only thread that stores to the data.  Owner
 * thread only. */
static inline void
afxdp_latency_hist_sync__(struct afxdp_latency_hist *h)
{
    uint32_t req, done;

    atomic_read_relaxed(&h->reset_req, &req);
    atomic_read_relaxed(&h->reset_done, &done);
    if (OVS_UNLIKELY(req != done)) {
        afxdp_latency_hist_apply_reset__(h, req);
    }
}

/* Adds a sample of 'ns' nanoseconds to 'h'.  Owner thread only. */
static inline void
afxdp_latency_hist_add(struct afxdp_latency_hist *h, uint64_t ns)
{
    uint64_t v;

    afxdp_latency_hist_sync__(h);
    atomic_read_relaxed(&h->min, &v);
    if (ns < v) {
        atomic_store_relaxed(&h->min, ns);
    }
    atomic_read_relaxed(&h->max, &v);
    if (ns > v) {
        atomic_store_relaxed(&h->max, ns);
    }
    afxdp_latency_add__(&h->sum, ns);
    afxdp_latency_add__(&h->buckets[afxdp_latency_bucket(ns)], 1);
    afxdp_latency_add__(&h->count, 1);
}

/* Adds 'delta_ns' to 'h' if it is a plausible latency (0 ..
 * AFXDP_LATENCY_MAX_SANE_NS) and returns true; otherwise counts it in
 * 'h''s 'n_rejected' and returns false.  Owner thread only. */
static inline bool
afxdp_latency_record(struct afxdp_latency_hist *h, int64_t delta_ns)
{
    if (OVS_UNLIKELY(delta_ns < 0 || delta_ns > AFXDP_LATENCY_MAX_SANE_NS)) {
        afxdp_latency_hist_sync__(h);
        afxdp_latency_add__(&h->n_rejected, 1);
        return false;
    }
    afxdp_latency_hist_add(h, delta_ns);
    return true;
}

/* Chooses the packets to time: one in 'every' (see "Sampling" above). */
struct afxdp_latency_sampler {
    uint32_t every;             /* Time one packet in this many, >= 1. */
    uint32_t skip;              /* Packets to pass before the next one. */
};

/* Makes 's' choose one packet in 'every' (1 if 0), starting with the next
 * one. */
static inline void
afxdp_latency_sampler_init(struct afxdp_latency_sampler *s, uint32_t every)
{
    s->every = every ? every : 1;
    s->skip = 0;
}

/* Returns true if the packet now seen is one to time.  Owner only. */
static inline bool
afxdp_latency_sample(struct afxdp_latency_sampler *s)
{
    if (OVS_LIKELY(s->skip)) {
        s->skip--;
        return false;
    }
    s->skip = s->every - 1;
    return true;
}

/* The batch form of afxdp_latency_sample(), for a caller that counts the
 * packets of a batch 0, 1, 2, ...: returns the count of the first packet
 * to time.  After timing packet i the next one is i + 'every'.  Once the
 * batch's 'n' packets are seen, with 'next' the count of the next packet
 * to time (at least 'n'), afxdp_latency_sampler_advance() carries the
 * sequence on to the next batch.  The same packets are chosen as with
 * afxdp_latency_sample(), without a test and a store for each packet. */
static inline uint64_t
afxdp_latency_sampler_first(const struct afxdp_latency_sampler *s)
{
    return s->skip;
}

static inline void
afxdp_latency_sampler_advance(struct afxdp_latency_sampler *s,
                              uint64_t next, uint32_t n)
{
    s->skip = next - n;
}

/* Per-flow table. */

#define AFXDP_LATENCY_FLOWS_WAYS 4              /* Slots per set. */
#define AFXDP_LATENCY_FLOWS_MIN_SLOTS AFXDP_LATENCY_FLOWS_WAYS
#define AFXDP_LATENCY_FLOWS_MAX_SLOTS 16384
#define AFXDP_LATENCY_FLOWS_DEFAULT_SLOTS 1024
#define AFXDP_LATENCY_FLOWS_SLOW_SHIFT 14       /* +1 weight per 16.4 us. */
#define AFXDP_LATENCY_FLOWS_MAX_WEIGHT 256      /* Weight of one packet. */
#define AFXDP_LATENCY_FLOWS_AGE_FACTOR 64       /* Scores halve every
                                                 * 64 * n_slots samples. */

/* What the caller knows of a flow, copied into its slot as a label. */
struct afxdp_latency_flow_key {
    struct in6_addr src;        /* Source address, IPv4 as ::ffff:a.b.c.d. */
    struct in6_addr dst;        /* Destination address, same. */
    ovs_be16 src_port;          /* TCP/UDP/SCTP source port, else 0. */
    ovs_be16 dst_port;          /* TCP/UDP/SCTP destination port, else 0. */
    uint8_t proto;              /* IP protocol, 0 if not IP. */
    uint8_t pad[3];             /* Zero. */
};

/* One flow of a table, as listed by afxdp_latency_flows_top(). */
struct afxdp_latency_flow_stats {
    struct afxdp_latency_flow_key key;  /* Label given when it got a slot. */
    uint32_t hash;              /* RSS hash: the flow's identity. */
    uint64_t packets;           /* Samples since it got its slot. */
    uint64_t sum_ns;            /* Sum of their latencies. */
    uint64_t max_ns;            /* Largest latency. */
    uint64_t avg_ns;            /* sum_ns / packets, rounded. */
};

/* Sort orders for afxdp_latency_flows_top(). */
enum afxdp_latency_flow_order {
    AFXDP_LATENCY_BY_PACKETS,   /* Most packets first. */
    AFXDP_LATENCY_BY_MAX,       /* Largest max latency first. */
    AFXDP_LATENCY_BY_AVG,       /* Largest average latency first. */
};

/* Table-wide counters. */
struct afxdp_latency_flows_counts {
    uint64_t n_packets;         /* Samples offered to the table. */
    uint64_t n_untracked;       /* Of those, not counted for any flow. */
    uint64_t n_claims;          /* Flows that got a free slot. */
    uint64_t n_evictions;       /* Flows that replaced another flow. */
    uint32_t n_slots;           /* Capacity. */
    uint32_t n_used;            /* Slots holding a flow. */
};

struct afxdp_latency_flows;

struct afxdp_latency_flows *afxdp_latency_flows_create(uint32_t n_slots);
void afxdp_latency_flows_destroy(struct afxdp_latency_flows *);
size_t afxdp_latency_flows_memory(const struct afxdp_latency_flows *);

/* Fills 'key' with the addresses, protocol and ports of the Ethernet frame
 * of 'len' bytes at 'frame' (up to two VLAN tags, IPv4 or IPv6, ports of
 * TCP, UDP and SCTP, none for a later IPv4 fragment), as far as its
 * headers go; the rest of 'key' is zero. */
void afxdp_latency_flow_key_parse(const void *frame, size_t len,
                                  struct afxdp_latency_flow_key *key);

/* Makes the label of the flow that 'aux' describes (see
 * afxdp_latency_flows_add_run()). */
typedef void afxdp_latency_fill_key_cb(const void *aux,
                                       struct afxdp_latency_flow_key *);

/* Consecutive samples of one flow (one hash), added to a table at once:
 * packets of a flow tend to come in bursts, and the caller's loop then
 * does one table update per burst instead of one per packet.  The result
 * is that of adding the samples one by one, except that a run competes for
 * a slot as a whole (it takes the weakest slot of its set if its total
 * weight reaches that slot's score, and then all its samples count) and
 * ages the table once at most.  The flow's label comes from the first
 * sample's 'aux', which must still be valid when the run is added. */
struct afxdp_latency_flow_run {
    uint32_t n;                 /* Samples, 0 when empty. */
    uint32_t hash;              /* Their flow. */
    uint32_t weight;            /* Sum of their weights (see above). */
    uint64_t sum_ns;            /* Sum of their latencies. */
    uint64_t max_ns;            /* Largest of them. */
    const void *aux;            /* Of the first sample. */
};

void afxdp_latency_flows_add_run(struct afxdp_latency_flows *,
                                 const struct afxdp_latency_flow_run *,
                                 afxdp_latency_fill_key_cb *);

/* Weight of a sample of 'ns' nanoseconds. */
static inline uint32_t
afxdp_latency_flow_weight(uint64_t ns)
{
    return 1 + MIN(ns >> AFXDP_LATENCY_FLOWS_SLOW_SHIFT,
                   AFXDP_LATENCY_FLOWS_MAX_WEIGHT - 1);
}

/* Adds the sample of 'ns' nanoseconds, of flow 'hash' described by 'aux',
 * to run 'r', first adding 'r' to table 'f' if it is of another flow.
 * Call afxdp_latency_flow_run_flush() at the end of the burst. */
static inline void
afxdp_latency_flow_run_add(struct afxdp_latency_flows *f,
                           struct afxdp_latency_flow_run *r,
                           afxdp_latency_fill_key_cb *fill_key,
                           uint32_t hash, const void *aux, uint64_t ns)
{
    if (r->n && r->hash != hash) {
        afxdp_latency_flows_add_run(f, r, fill_key);
        r->n = 0;
    }
    if (!r->n) {
        r->hash = hash;
        r->aux = aux;
        r->weight = 0;
        r->sum_ns = 0;
        r->max_ns = 0;
    }
    r->n++;
    r->weight += afxdp_latency_flow_weight(ns);
    r->sum_ns += ns;
    r->max_ns = MAX(r->max_ns, ns);
}

/* Adds what is left in run 'r' to table 'f', and empties 'r'. */
static inline void
afxdp_latency_flow_run_flush(struct afxdp_latency_flows *f,
                             struct afxdp_latency_flow_run *r,
                             afxdp_latency_fill_key_cb *fill_key)
{
    if (r->n) {
        afxdp_latency_flows_add_run(f, r, fill_key);
        r->n = 0;
    }
}
void afxdp_latency_flows_add(struct afxdp_latency_flows *, uint32_t hash,
                             const struct afxdp_latency_flow_key *,
                             uint64_t ns);
void afxdp_latency_flows_clear(struct afxdp_latency_flows *);

size_t afxdp_latency_flows_top(const struct afxdp_latency_flows *,
                               enum afxdp_latency_flow_order,
                               struct afxdp_latency_flow_stats out[],
                               size_t n);
void afxdp_latency_flows_get_counts(const struct afxdp_latency_flows *,
                                    struct afxdp_latency_flows_counts *);
void afxdp_latency_flow_format(const struct afxdp_latency_flow_stats *,
                               struct ds *);

#endif /* afxdp-latency.h */
