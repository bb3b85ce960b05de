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

#include "afxdp-latency.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "packets.h"
#include "util.h"

/* How often a reader retries a copy that overlapped a reset before it
 * reports the data as empty. */
#define AFXDP_LATENCY_COPY_TRIES 4

BUILD_ASSERT_DECL(AFXDP_LATENCY_N_BUCKETS == 528);

/* Histogram. */

/* A reader's private, plain copy of a histogram. */
struct afxdp_latency_copy {
    uint64_t count;             /* Sum of 'buckets'. */
    uint64_t sum;               /* Sum of the samples. */
    uint64_t min;               /* Smallest sample (0 if none). */
    uint64_t max;               /* Largest sample (0 if none). */
    uint64_t n_rejected;        /* Refused deltas. */
    uint64_t buckets[AFXDP_LATENCY_N_BUCKETS];  /* Sample counts. */
};

/* Returns log2 of the width of bucket 'idx'. */
static unsigned int
afxdp_latency_bucket_shift(unsigned int idx)
{
    unsigned int major = idx >> AFXDP_LATENCY_SUB_BITS;

    return major ? major - 1 : 0;
}

/* Returns the smallest value that falls in bucket 'idx'
 * (idx < AFXDP_LATENCY_N_BUCKETS). */
uint64_t
afxdp_latency_bucket_low(unsigned int idx)
{
    if (idx < AFXDP_LATENCY_SUB_BUCKETS) {
        return idx;
    }
    /* Inverse of afxdp_latency_bucket(): the 5 significant bits are 16 plus
     * the low 4 bits of the index. */
    return (uint64_t) ((idx & (AFXDP_LATENCY_SUB_BUCKETS - 1))
                       + AFXDP_LATENCY_SUB_BUCKETS)
           << afxdp_latency_bucket_shift(idx);
}

/* Returns the largest value that falls in bucket 'idx' by its width.  The
 * last bucket also receives every larger value. */
uint64_t
afxdp_latency_bucket_high(unsigned int idx)
{
    return afxdp_latency_bucket_low(idx)
           + (UINT64_C(1) << afxdp_latency_bucket_shift(idx)) - 1;
}

/* Initializes 'h' empty.  Call before any other use; 'h' must not yet be
 * visible to other threads. */
void
afxdp_latency_hist_init(struct afxdp_latency_hist *h)
{
    atomic_init(&h->reset_req, 0);
    atomic_init(&h->reset_done, 0);
    atomic_init(&h->count, 0);
    atomic_init(&h->sum, 0);
    atomic_init(&h->min, UINT64_MAX);
    atomic_init(&h->max, 0);
    atomic_init(&h->n_rejected, 0);
    for (size_t i = 0; i < AFXDP_LATENCY_N_BUCKETS; i++) {
        atomic_init(&h->buckets[i], 0);
    }
}

/* Zeroes 'h' on behalf of afxdp_latency_hist_clear() request 'req'.
 * Owner thread only (through afxdp_latency_hist_sync__()). */
void
afxdp_latency_hist_apply_reset__(struct afxdp_latency_hist *h, uint32_t req)
{
    /* The acquire fence makes the request, which the caller loaded relaxed,
     * happen before our stores; the release fence makes it visible to any
     * reader that sees one of them (see afxdp_latency_hist_copy()).  Only
     * this rare path pays for the fences. */
    atomic_thread_fence(memory_order_acquire);
    atomic_thread_fence(memory_order_release);
    atomic_store_relaxed(&h->count, 0);
    atomic_store_relaxed(&h->sum, 0);
    atomic_store_relaxed(&h->min, UINT64_MAX);
    atomic_store_relaxed(&h->max, 0);
    atomic_store_relaxed(&h->n_rejected, 0);
    for (size_t i = 0; i < AFXDP_LATENCY_N_BUCKETS; i++) {
        atomic_store_relaxed(&h->buckets[i], 0);
    }
    /* Pairs with the acquire loads of 'reset_done' in
     * afxdp_latency_hist_copy(): a reader that sees 'req' here also sees
     * the zeroes above (or later samples). */
    atomic_store_explicit(&h->reset_done, req, memory_order_release);
}

/* Asks for 'h' to be emptied.  Any thread.  Readers see 'h' empty from now
 * on; the owner zeroes it before it adds its next sample (see "Reset
 * contract" in afxdp-latency.h). */
void
afxdp_latency_hist_clear(struct afxdp_latency_hist *h)
{
    uint32_t orig;

    /* Read-modify-write: two control threads may clear at once. */
    atomic_add(&h->reset_req, 1, &orig);
}

/* Makes 'c', a possibly torn copy, self-consistent: 'count' is the sum of
 * the buckets, and 'min' and 'max' lie in the first and last occupied
 * buckets. */
static void
afxdp_latency_copy_fix(struct afxdp_latency_copy *c)
{
    unsigned int first = AFXDP_LATENCY_N_BUCKETS, last = 0;

    c->count = 0;
    for (unsigned int i = 0; i < AFXDP_LATENCY_N_BUCKETS; i++) {
        if (c->buckets[i]) {
            c->count += c->buckets[i];
            first = MIN(first, i);
            last = i;
        }
    }
    if (!c->count) {
        c->sum = c->min = c->max = 0;
        return;
    }
    if (c->min < afxdp_latency_bucket_low(first)
        || c->min > afxdp_latency_bucket_high(first)) {
        c->min = afxdp_latency_bucket_low(first);
    }
    if (c->max < afxdp_latency_bucket_low(last)
        || (c->max > afxdp_latency_bucket_high(last)
            && last != AFXDP_LATENCY_N_BUCKETS - 1)) {
        c->max = afxdp_latency_bucket_high(last);
    }
    c->min = MIN(c->min, c->max);   /* Cannot happen; never show it. */
}

/* Copies 'h' into 'c' as a reader (see "Reader contract" in
 * afxdp-latency.h).  Any thread. */
static void
afxdp_latency_hist_copy(const struct afxdp_latency_hist *h_,
                        struct afxdp_latency_copy *c)
{
    struct afxdp_latency_hist *h = CONST_CAST(struct afxdp_latency_hist *,
                                              h_);

    for (int try = 0; try < AFXDP_LATENCY_COPY_TRIES; try++) {
        uint32_t req, done, req2, done2;

        atomic_read_relaxed(&h->reset_req, &req);
        /* Pairs with the release store in
         * afxdp_latency_hist_apply_reset__(). */
        atomic_read_explicit(&h->reset_done, &done, memory_order_acquire);
        if (req != done) {
            break;              /* Reset pending: empty. */
        }
        for (size_t i = 0; i < AFXDP_LATENCY_N_BUCKETS; i++) {
            atomic_read_relaxed(&h->buckets[i], &c->buckets[i]);
        }
        atomic_read_relaxed(&h->sum, &c->sum);
        atomic_read_relaxed(&h->min, &c->min);
        atomic_read_relaxed(&h->max, &c->max);
        atomic_read_relaxed(&h->n_rejected, &c->n_rejected);
        /* Orders the loads above before the checks below.  A reset that
         * the writer began while we copied was requested while we copied
         * (pairs with the fences in afxdp_latency_hist_apply_reset__()),
         * so a changed 'reset_req' catches it even before it is done. */
        atomic_thread_fence(memory_order_acquire);
        atomic_read_relaxed(&h->reset_done, &done2);
        atomic_read_relaxed(&h->reset_req, &req2);
        if (done2 == done && req2 == req) {
            afxdp_latency_copy_fix(c);
            return;
        }
    }
    memset(c, 0, sizeof *c);
}

/* Returns the nearest-rank 'p'th percentile of 'c', within the error
 * bound documented in afxdp-latency.h, or 0 if 'c' is empty. */
static uint64_t
afxdp_latency_copy_percentile(const struct afxdp_latency_copy *c, double p)
{
    uint64_t rank, seen;
    double r;

    if (!c->count) {
        return 0;
    }
    if (!(p > 0)) {             /* Also NaN. */
        return c->min;
    }
    if (p >= 100) {
        return c->max;
    }

    /* The smallest sample with at least 'rank' samples <= it.  Multiply
     * before dividing so that e.g. 99.9 % of 100000 is exactly 99900. */
    r = ceil(p * (double) c->count / 100.0);
    rank = r < 1 ? 1 : r > (double) c->count ? c->count : (uint64_t) r;

    seen = 0;
    for (unsigned int i = 0; i < AFXDP_LATENCY_N_BUCKETS; i++) {
        seen += c->buckets[i];
        if (seen >= rank) {
            uint64_t mid = afxdp_latency_bucket_low(i)
                           + ((UINT64_C(1) << afxdp_latency_bucket_shift(i))
                              >> 1);

            return MAX(c->min, MIN(mid, c->max));
        }
    }
    return c->max;              /* Not reached: 'count' sums the buckets. */
}

/* Returns the 'p'th percentile (0 <= p <= 100) of the samples in 'h', 0 if
 * there are none.  p <= 0 gives the minimum, p >= 100 the maximum, both
 * exact.  Any thread; the error bound is in afxdp-latency.h. */
uint64_t
afxdp_latency_hist_percentile(const struct afxdp_latency_hist *h, double p)
{
    struct afxdp_latency_copy *c = xmalloc(sizeof *c);
    uint64_t value;

    afxdp_latency_hist_copy(h, c);
    value = afxdp_latency_copy_percentile(c, p);
    free(c);
    return value;
}

static void
afxdp_latency_copy_summary(const struct afxdp_latency_copy *c,
                           struct afxdp_latency_summary *s)
{
    s->count = c->count;
    s->sum_ns = c->sum;
    s->min_ns = c->min;
    s->max_ns = c->max;
    s->n_rejected = c->n_rejected;
    s->avg_ns = 0;
    if (c->count) {
        s->avg_ns = c->sum / c->count + (c->sum % c->count * 2 >= c->count);
        /* A torn copy may have 'sum' a sample off. */
        s->avg_ns = MAX(c->min, MIN(s->avg_ns, c->max));
    }
}

/* Stores the exact count, sum, min, max, average and rejected count of 'h'
 * in 's'.  Any thread. */
void
afxdp_latency_hist_summary(const struct afxdp_latency_hist *h,
                           struct afxdp_latency_summary *s)
{
    struct afxdp_latency_copy *c = xmalloc(sizeof *c);

    afxdp_latency_hist_copy(h, c);
    afxdp_latency_copy_summary(c, s);
    free(c);
}

/* Adds the samples of 'src' to 'dst'.  'src' may be live (it is read as a
 * reader would); 'dst' must be written by no other thread: the caller is
 * its owner, or it is a private copy.  To take a snapshot of a live
 * histogram, merge it into a freshly initialized one. */
void
afxdp_latency_hist_merge(struct afxdp_latency_hist *dst,
                         const struct afxdp_latency_hist *src)
{
    struct afxdp_latency_copy *c = xmalloc(sizeof *c);

    afxdp_latency_hist_copy(src, c);
    afxdp_latency_hist_sync__(dst);
    if (c->count) {
        uint64_t v;

        for (size_t i = 0; i < AFXDP_LATENCY_N_BUCKETS; i++) {
            if (c->buckets[i]) {
                afxdp_latency_add__(&dst->buckets[i], c->buckets[i]);
            }
        }
        afxdp_latency_add__(&dst->count, c->count);
        afxdp_latency_add__(&dst->sum, c->sum);
        atomic_read_relaxed(&dst->min, &v);
        atomic_store_relaxed(&dst->min, MIN(v, c->min));
        atomic_read_relaxed(&dst->max, &v);
        atomic_store_relaxed(&dst->max, MAX(v, c->max));
    }
    afxdp_latency_add__(&dst->n_rejected, c->n_rejected);
    free(c);
}

/* Appends 'ns' nanoseconds to 'ds' in a human unit: "999ns", "1.5us",
 * "2.0ms", "3.0s" (one decimal, rounded to nearest; a value that rounds to
 * 1000.0 of a unit is shown in the next one). */
void
afxdp_latency_format_ns(struct ds *ds, uint64_t ns)
{
    static const struct {
        const char *name;
        uint64_t tenth;         /* Nanoseconds in a tenth of the unit. */
    } units[] = {
        { "us", 100 },
        { "ms", 100 * 1000 },
        { "s", 100 * 1000 * 1000 },
    };

    if (ns < 1000) {
        ds_put_format(ds, "%"PRIu64"ns", ns);
        return;
    }
    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        uint64_t t = units[i].tenth;
        uint64_t tenths = ns / t + (ns % t >= t / 2);

        if (tenths < 10000 || i == ARRAY_SIZE(units) - 1) {
            ds_put_format(ds, "%"PRIu64".%"PRIu64"%s",
                          tenths / 10, tenths % 10, units[i].name);
            return;
        }
    }
}

/* Appends one line (without newline) describing 'h' to 'ds':
 * "samples=1234 min=1.2us avg=3.4us p50=3.1us p90=5.0us p99=9.9us
 * p99.9=12.0us max=15.2us", only "samples=0" when empty, followed by
 * " rejected=N" when afxdp_latency_record() refused deltas.  All values
 * come from one copy of 'h'.  Any thread. */
void
afxdp_latency_hist_format(const struct afxdp_latency_hist *h, struct ds *ds)
{
    static const struct {
        const char *name;
        double p;
    } pcts[] = {
        { "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p99.9", 99.9 },
    };
    struct afxdp_latency_copy *c = xmalloc(sizeof *c);
    struct afxdp_latency_summary s;

    afxdp_latency_hist_copy(h, c);
    afxdp_latency_copy_summary(c, &s);
    ds_put_format(ds, "samples=%"PRIu64, s.count);
    if (s.count) {
        ds_put_cstr(ds, " min=");
        afxdp_latency_format_ns(ds, s.min_ns);
        ds_put_cstr(ds, " avg=");
        afxdp_latency_format_ns(ds, s.avg_ns);
        for (size_t i = 0; i < ARRAY_SIZE(pcts); i++) {
            ds_put_format(ds, " %s=", pcts[i].name);
            afxdp_latency_format_ns(ds,
                                    afxdp_latency_copy_percentile(c,
                                                                  pcts[i].p));
        }
        ds_put_cstr(ds, " max=");
        afxdp_latency_format_ns(ds, s.max_ns);
    }
    if (s.n_rejected) {
        ds_put_format(ds, " rejected=%"PRIu64, s.n_rejected);
    }
    free(c);
}

/* Per-flow table. */

#define AFXDP_LATENCY_KEY_WORDS \
    (sizeof(struct afxdp_latency_flow_key) / sizeof(uint32_t))
BUILD_ASSERT_DECL(sizeof(struct afxdp_latency_flow_key) % sizeof(uint32_t)
                  == 0);

/* One slot.  The writer changes 'key' (and the slot's entry in the table's
 * 'hashes') only between two increments of 'seq' (odd in between), so that
 * a reader can tell a flow's label from another flow's.  Counters change
 * without 'seq'. */
struct afxdp_latency_flow_slot {
    atomic_uint32_t seq;        /* Odd while the slot changes flows. */
    uint32_t score;             /* Writer only: decayed sum of weights. */
    atomic_uint64_t packets;    /* Samples since claimed, 0 = free slot. */
    atomic_uint64_t sum_ns;     /* Sum of their latencies. */
    atomic_uint64_t max_ns;     /* Largest of them. */
    uint32_t epoch;             /* Writer only: epoch 'score' is aged to. */
    atomic_uint32_t key[AFXDP_LATENCY_KEY_WORDS]; /* The flow's label. */
};

struct afxdp_latency_flows {
    /* Immutable after creation. */
    uint32_t n_slots;           /* Power of 2. */
    unsigned int set_shift;     /* 32 - log2(number of sets). */
    uint64_t age_period;        /* Samples between two halvings. */

    /* Writer only. */
    uint32_t epoch;             /* Halvings so far. */
    uint64_t age_left;          /* Samples until the next halving. */

    /* Written by the writer, read by any thread. */
    atomic_uint32_t reset_req;  /* Bumped by afxdp_latency_flows_clear(). */
    atomic_uint32_t reset_done; /* Last 'reset_req' the writer applied. */
    atomic_uint64_t n_packets;  /* Samples offered. */
    atomic_uint64_t n_untracked;    /* Samples counted for no flow. */
    atomic_uint64_t n_claims;   /* Flows that got a free slot. */
    atomic_uint64_t n_evictions;    /* Flows that replaced another. */
    atomic_uint32_t *hashes;    /* Per slot: its flow's hash. */
    struct afxdp_latency_flow_slot *slots;  /* 'n_slots' slots, set by
                                             * set. */
};

/* Creates an empty table of 'n_slots' slots (0 for
 * AFXDP_LATENCY_FLOWS_DEFAULT_SLOTS; otherwise rounded up to a power of 2
 * and clamped to AFXDP_LATENCY_FLOWS_MIN_SLOTS ..
 * AFXDP_LATENCY_FLOWS_MAX_SLOTS).  The caller owns the table and frees it
 * with afxdp_latency_flows_destroy(). */
struct afxdp_latency_flows *
afxdp_latency_flows_create(uint32_t n_slots)
{
    struct afxdp_latency_flows *f = xzalloc_cacheline(sizeof *f);
    uint32_t n_sets;

    if (!n_slots) {
        n_slots = AFXDP_LATENCY_FLOWS_DEFAULT_SLOTS;
    }
    n_slots = MAX(n_slots, AFXDP_LATENCY_FLOWS_MIN_SLOTS);
    n_slots = MIN(n_slots, AFXDP_LATENCY_FLOWS_MAX_SLOTS);
    if (!is_pow2(n_slots)) {
        n_slots = UINT32_C(1) << (log_2_floor(n_slots) + 1);
    }
    n_sets = n_slots / AFXDP_LATENCY_FLOWS_WAYS;

    f->n_slots = n_slots;
    f->set_shift = 32 - log_2_floor(n_sets);
    f->age_period = (uint64_t) AFXDP_LATENCY_FLOWS_AGE_FACTOR * n_slots;
    f->age_left = f->age_period;
    f->hashes = xzalloc_cacheline(n_slots * sizeof *f->hashes);
    f->slots = xzalloc_cacheline(n_slots * sizeof *f->slots);
    atomic_init(&f->reset_req, 0);
    atomic_init(&f->reset_done, 0);
    atomic_init(&f->n_packets, 0);
    atomic_init(&f->n_untracked, 0);
    atomic_init(&f->n_claims, 0);
    atomic_init(&f->n_evictions, 0);
    for (uint32_t i = 0; i < n_slots; i++) {
        struct afxdp_latency_flow_slot *s = &f->slots[i];

        atomic_init(&f->hashes[i], 0);
        atomic_init(&s->seq, 0);
        atomic_init(&s->packets, 0);
        atomic_init(&s->sum_ns, 0);
        atomic_init(&s->max_ns, 0);
        for (size_t j = 0; j < AFXDP_LATENCY_KEY_WORDS; j++) {
            atomic_init(&s->key[j], 0);
        }
    }
    return f;
}

/* Frees 'f'.  No thread may use it any more. */
void
afxdp_latency_flows_destroy(struct afxdp_latency_flows *f)
{
    if (f) {
        free_cacheline(f->hashes);
        free_cacheline(f->slots);
        free_cacheline(f);
    }
}

/* Returns the bytes 'f' occupies; fixed at creation. */
size_t
afxdp_latency_flows_memory(const struct afxdp_latency_flows *f)
{
    return sizeof *f + f->n_slots * (sizeof *f->hashes + sizeof *f->slots);
}

/* Rewrites slot 'idx' of 'f' to hold the flow 'hash' with label 'key' (or
 * to be free, if 'key' is NULL), with 'packets', 'sum' and 'max' as its
 * counters.  Writer only. */
static void
afxdp_latency_slot_set(struct afxdp_latency_flows *f, uint32_t idx,
                       uint32_t hash, const struct afxdp_latency_flow_key *key,
                       uint64_t packets, uint64_t sum, uint64_t max)
{
    struct afxdp_latency_flow_slot *s = &f->slots[idx];
    uint32_t words[AFXDP_LATENCY_KEY_WORDS];
    uint32_t seq;

    if (key) {
        memcpy(words, key, sizeof words);
    } else {
        memset(words, 0, sizeof words);
    }

    atomic_read_relaxed(&s->seq, &seq);
    atomic_store_relaxed(&s->seq, seq + 1);
    /* Orders the odd 'seq' before the stores below; pairs with the acquire
     * fence in afxdp_latency_slot_read(). */
    atomic_thread_fence(memory_order_release);
    atomic_store_relaxed(&f->hashes[idx], hash);
    for (size_t i = 0; i < AFXDP_LATENCY_KEY_WORDS; i++) {
        atomic_store_relaxed(&s->key[i], words[i]);
    }
    atomic_store_relaxed(&s->packets, packets);
    atomic_store_relaxed(&s->sum_ns, sum);
    atomic_store_relaxed(&s->max_ns, max);
    /* Publishes the stores above; pairs with the acquire load of 'seq' in
     * afxdp_latency_slot_read(). */
    atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

/* Empties 'f' on behalf of afxdp_latency_flows_clear() request 'req'.
 * Writer only. */
static void
afxdp_latency_flows_apply_reset(struct afxdp_latency_flows *f, uint32_t req)
{
    /* As in afxdp_latency_hist_apply_reset__(): a reader that sees any of
     * the stores below also sees the request. */
    atomic_thread_fence(memory_order_acquire);
    atomic_thread_fence(memory_order_release);
    for (uint32_t i = 0; i < f->n_slots; i++) {
        uint64_t packets;

        atomic_read_relaxed(&f->slots[i].packets, &packets);
        if (packets) {
            afxdp_latency_slot_set(f, i, 0, NULL, 0, 0, 0);
        }
        f->slots[i].score = 0;
    }
    atomic_store_relaxed(&f->n_packets, 0);
    atomic_store_relaxed(&f->n_untracked, 0);
    atomic_store_relaxed(&f->n_claims, 0);
    atomic_store_relaxed(&f->n_evictions, 0);
    f->age_left = f->age_period;
    /* Pairs with the acquire loads of 'reset_done' by readers. */
    atomic_store_explicit(&f->reset_done, req, memory_order_release);
}

/* Returns the score of 's', aged to the current epoch.  Writer only. */
static uint32_t
afxdp_latency_slot_score(struct afxdp_latency_flows *f,
                         struct afxdp_latency_flow_slot *s)
{
    uint32_t age = f->epoch - s->epoch;

    if (age) {
        s->score = age < 32 ? s->score >> age : 0;
        s->epoch = f->epoch;
    }
    return s->score;
}

static void
afxdp_latency_copy_key(const void *key, struct afxdp_latency_flow_key *out)
{
    if (key) {
        *out = *(const struct afxdp_latency_flow_key *) key;
    } else {
        memset(out, 0, sizeof *out);
    }
}

/* Records a packet of latency 'ns' for the flow with RSS hash 'hash' and
 * label 'key' (read only if the flow gets a slot now).  'ns' should have
 * passed afxdp_latency_record().  Owner thread only. */
void
afxdp_latency_flows_add(struct afxdp_latency_flows *f, uint32_t hash,
                        const struct afxdp_latency_flow_key *key, uint64_t ns)
{
    struct afxdp_latency_flow_run r = {
        .n = 1,
        .hash = hash,
        .weight = afxdp_latency_flow_weight(ns),
        .sum_ns = ns,
        .max_ns = ns,
        .aux = key,
    };

    afxdp_latency_flows_add_run(f, &r, afxdp_latency_copy_key);
}

/* Records run 'r'.  The flow's label is made by 'fill_key'(r->aux, key)
 * only when the flow gets a slot, so that a caller who has to parse a
 * packet for it does so for a few packets, not all.  Owner thread only; no
 * lock, no atomic read-modify-write, a loop over at most
 * AFXDP_LATENCY_FLOWS_WAYS slots twice.  See afxdp-latency.h for the
 * replacement policy. */
void
afxdp_latency_flows_add_run(struct afxdp_latency_flows *f,
                            const struct afxdp_latency_flow_run *r,
                            afxdp_latency_fill_key_cb *fill_key)
{
    struct afxdp_latency_flow_key key;
    /* The low bits of an RSS hash choose the rx queue, so within one queue
     * they hardly vary: take the set from the high bits of a multiplicative
     * hash, which depend on all bits. */
    uint32_t base = (uint32_t) ((uint64_t) (uint32_t) (r->hash * 0x9e3779b1u)
                                >> f->set_shift) * AFXDP_LATENCY_FLOWS_WAYS;
    struct afxdp_latency_flow_slot *victim = NULL;
    uint32_t req, done, victim_score = UINT32_MAX;
    uint64_t v;

    atomic_read_relaxed(&f->reset_req, &req);
    atomic_read_relaxed(&f->reset_done, &done);
    if (OVS_UNLIKELY(req != done)) {
        afxdp_latency_flows_apply_reset(f, req);
    }
    afxdp_latency_add__(&f->n_packets, r->n);
    /* A run is far shorter than an aging period: one halving at most. */
    if (OVS_UNLIKELY(f->age_left <= r->n)) {
        f->age_left += f->age_period;
        f->epoch++;
    }
    f->age_left -= r->n;

    /* The set's hashes share one cache line; only a match touches its
     * slot. */
    for (uint32_t i = base; i < base + AFXDP_LATENCY_FLOWS_WAYS; i++) {
        struct afxdp_latency_flow_slot *s = &f->slots[i];
        uint32_t h;

        atomic_read_relaxed(&f->hashes[i], &h);
        if (h != r->hash) {
            continue;
        }
        atomic_read_relaxed(&s->packets, &v);
        if (v) {
            atomic_store_relaxed(&s->packets, v + r->n);
            afxdp_latency_add__(&s->sum_ns, r->sum_ns);
            atomic_read_relaxed(&s->max_ns, &v);
            if (r->max_ns > v) {
                atomic_store_relaxed(&s->max_ns, r->max_ns);
            }
            s->score = afxdp_latency_slot_score(f, s) + r->weight;
            return;
        }
    }

    /* A new flow: take a free slot, or wear down the weakest one. */
    for (uint32_t i = base; i < base + AFXDP_LATENCY_FLOWS_WAYS; i++) {
        struct afxdp_latency_flow_slot *s = &f->slots[i];
        uint32_t score;

        atomic_read_relaxed(&s->packets, &v);
        if (!v) {
            afxdp_latency_add__(&f->n_claims, 1);
            fill_key(r->aux, &key);
            afxdp_latency_slot_set(f, i, r->hash, &key, r->n, r->sum_ns,
                                   r->max_ns);
            s->score = r->weight;
            s->epoch = f->epoch;
            return;
        }
        score = afxdp_latency_slot_score(f, s);
        if (score < victim_score) {
            victim = s;
            victim_score = score;
        }
    }
    if (victim_score > r->weight) {
        victim->score -= r->weight;
        afxdp_latency_add__(&f->n_untracked, r->n);
        return;
    }
    afxdp_latency_add__(&f->n_evictions, 1);
    fill_key(r->aux, &key);
    afxdp_latency_slot_set(f, victim - f->slots, r->hash, &key, r->n,
                           r->sum_ns, r->max_ns);
    victim->score = r->weight;
}

/* Asks for 'f' to be emptied, counters included.  Any thread.  Readers see
 * it empty from now on; the writer empties it before its next sample. */
void
afxdp_latency_flows_clear(struct afxdp_latency_flows *f)
{
    uint32_t orig;

    atomic_add(&f->reset_req, 1, &orig);
}

/* Returns true if 'f' has no pending reset, and in '*gen' the request
 * count, to compare with afxdp_latency_flows_unchanged().  Any thread. */
static bool
afxdp_latency_flows_readable(struct afxdp_latency_flows *f, uint32_t *gen)
{
    uint32_t done;

    atomic_read_relaxed(&f->reset_req, gen);
    /* Pairs with the release store in afxdp_latency_flows_apply_reset(). */
    atomic_read_explicit(&f->reset_done, &done, memory_order_acquire);
    return *gen == done;
}

/* Returns true if no reset of 'f' was requested since
 * afxdp_latency_flows_readable() returned 'gen', so that what was read in
 * between was not partly reset.  Any thread. */
static bool
afxdp_latency_flows_unchanged(struct afxdp_latency_flows *f, uint32_t gen)
{
    uint32_t req;

    /* Orders the caller's loads before this one; see
     * afxdp_latency_flows_apply_reset(). */
    atomic_thread_fence(memory_order_acquire);
    atomic_read_relaxed(&f->reset_req, &req);
    return req == gen;
}

/* Reads slot 'idx' of 'f' into 'out'.  Returns false if the slot is free or
 * kept changing flows while we read it.  Any thread. */
static bool
afxdp_latency_slot_read(struct afxdp_latency_flows *f, uint32_t idx,
                        struct afxdp_latency_flow_stats *out)
{
    struct afxdp_latency_flow_slot *s = &f->slots[idx];

    for (int try = 0; try < AFXDP_LATENCY_COPY_TRIES; try++) {
        uint32_t words[AFXDP_LATENCY_KEY_WORDS];
        uint32_t seq1, seq2;

        /* Pairs with the release store of 'seq' in
         * afxdp_latency_slot_set(). */
        atomic_read_explicit(&s->seq, &seq1, memory_order_acquire);
        if (seq1 & 1) {
            continue;
        }
        atomic_read_relaxed(&f->hashes[idx], &out->hash);
        for (size_t i = 0; i < AFXDP_LATENCY_KEY_WORDS; i++) {
            atomic_read_relaxed(&s->key[i], &words[i]);
        }
        atomic_read_relaxed(&s->packets, &out->packets);
        atomic_read_relaxed(&s->sum_ns, &out->sum_ns);
        atomic_read_relaxed(&s->max_ns, &out->max_ns);
        /* Pairs with the release fence in afxdp_latency_slot_set(): orders
         * the loads above before the second load of 'seq'. */
        atomic_thread_fence(memory_order_acquire);
        atomic_read_relaxed(&s->seq, &seq2);
        if (seq1 == seq2) {
            if (!out->packets) {
                return false;
            }
            memcpy(&out->key, words, sizeof out->key);
            out->avg_ns = out->sum_ns / out->packets
                          + (out->sum_ns % out->packets * 2 >= out->packets);
            out->avg_ns = MIN(out->avg_ns, out->max_ns);
            return true;
        }
    }
    return false;
}

static int
afxdp_latency_cmp_u64(uint64_t a, uint64_t b)
{
    return a > b ? -1 : a < b;      /* Larger first. */
}

static int
afxdp_latency_cmp_tail(const struct afxdp_latency_flow_stats *a,
                       const struct afxdp_latency_flow_stats *b)
{
    int c = afxdp_latency_cmp_u64(a->packets, b->packets);

    return c ? c : a->hash < b->hash ? -1 : a->hash > b->hash;
}

static int
afxdp_latency_cmp_packets(const void *a_, const void *b_)
{
    const struct afxdp_latency_flow_stats *a = a_, *b = b_;
    int c = afxdp_latency_cmp_u64(a->packets, b->packets);

    c = c ? c : afxdp_latency_cmp_u64(a->max_ns, b->max_ns);
    return c ? c : afxdp_latency_cmp_tail(a, b);
}

static int
afxdp_latency_cmp_max(const void *a_, const void *b_)
{
    const struct afxdp_latency_flow_stats *a = a_, *b = b_;
    int c = afxdp_latency_cmp_u64(a->max_ns, b->max_ns);

    return c ? c : afxdp_latency_cmp_tail(a, b);
}

static int
afxdp_latency_cmp_avg(const void *a_, const void *b_)
{
    const struct afxdp_latency_flow_stats *a = a_, *b = b_;
    int c = afxdp_latency_cmp_u64(a->avg_ns, b->avg_ns);

    return c ? c : afxdp_latency_cmp_tail(a, b);
}

/* Stores in 'out' the at most 'n' flows of 'f' that come first in 'order'
 * (ties: more packets first, then lower hash) and returns how many it
 * stored.  Any thread; allocates, so not for the fast path. */
size_t
afxdp_latency_flows_top(const struct afxdp_latency_flows *f_,
                        enum afxdp_latency_flow_order order,
                        struct afxdp_latency_flow_stats out[], size_t n)
{
    struct afxdp_latency_flows *f = CONST_CAST(struct afxdp_latency_flows *,
                                               f_);
    int (*cmp)(const void *, const void *);
    struct afxdp_latency_flow_stats *all;
    size_t n_all = 0;
    uint32_t gen;

    if (!n || !afxdp_latency_flows_readable(f, &gen)) {
        return 0;
    }
    all = xmalloc(f->n_slots * sizeof *all);
    for (uint32_t i = 0; i < f->n_slots; i++) {
        n_all += afxdp_latency_slot_read(f, i, &all[n_all]);
    }
    /* A reset requested during the scan: report the table empty, as a scan
     * started a moment later would. */
    if (!afxdp_latency_flows_unchanged(f, gen)) {
        n_all = 0;
    }

    cmp = (order == AFXDP_LATENCY_BY_MAX ? afxdp_latency_cmp_max
           : order == AFXDP_LATENCY_BY_AVG ? afxdp_latency_cmp_avg
           : afxdp_latency_cmp_packets);
    qsort(all, n_all, sizeof *all, cmp);
    n = MIN(n, n_all);
    memcpy(out, all, n * sizeof *out);
    free(all);
    return n;
}

/* Stores the table-wide counters of 'f' in 'c'.  Any thread. */
void
afxdp_latency_flows_get_counts(const struct afxdp_latency_flows *f_,
                               struct afxdp_latency_flows_counts *c)
{
    struct afxdp_latency_flows *f = CONST_CAST(struct afxdp_latency_flows *,
                                               f_);
    uint32_t gen;

    memset(c, 0, sizeof *c);
    c->n_slots = f->n_slots;
    if (!afxdp_latency_flows_readable(f, &gen)) {
        return;
    }
    atomic_read_relaxed(&f->n_packets, &c->n_packets);
    atomic_read_relaxed(&f->n_untracked, &c->n_untracked);
    atomic_read_relaxed(&f->n_claims, &c->n_claims);
    atomic_read_relaxed(&f->n_evictions, &c->n_evictions);
    for (uint32_t i = 0; i < f->n_slots; i++) {
        uint64_t packets;

        atomic_read_relaxed(&f->slots[i].packets, &packets);
        c->n_used += packets != 0;
    }
    if (!afxdp_latency_flows_unchanged(f, gen)) {
        memset(c, 0, sizeof *c);
        c->n_slots = f->n_slots;
    }
}

/* Appends 'a' (and ':port' if 'with_port') to 'ds', IPv6 in brackets when
 * a port follows. */
static void
afxdp_latency_format_addr(struct ds *ds, const struct in6_addr *a,
                          ovs_be16 port, bool with_port)
{
    bool v6 = !IN6_IS_ADDR_V4MAPPED(a);

    if (with_port && v6) {
        ds_put_char(ds, '[');
    }
    ipv6_format_mapped(a, ds);
    if (with_port) {
        ds_put_format(ds, "%s:%"PRIu16, v6 ? "]" : "", ntohs(port));
    }
}

/* Appends one line (without newline) describing 's' to 'ds', e.g.
 * "udp 10.0.0.1:1234 > 10.0.0.2:53 hash=0x1a2b3c4d samples=1000
 * avg=12.3us max=80.0us". */
void
afxdp_latency_flow_format(const struct afxdp_latency_flow_stats *s,
                          struct ds *ds)
{
    const struct afxdp_latency_flow_key *k = &s->key;
    bool ports = false;

    switch (k->proto) {
    case 0:
        ds_put_cstr(ds, "non-ip");
        break;
    case IPPROTO_ICMP:
        ds_put_cstr(ds, "icmp");
        break;
    case IPPROTO_ICMPV6:
        ds_put_cstr(ds, "icmp6");
        break;
    case IPPROTO_TCP:
        ds_put_cstr(ds, "tcp");
        ports = true;
        break;
    case IPPROTO_UDP:
        ds_put_cstr(ds, "udp");
        ports = true;
        break;
    case IPPROTO_SCTP:
        ds_put_cstr(ds, "sctp");
        ports = true;
        break;
    default:
        ds_put_format(ds, "proto=%"PRIu8, k->proto);
        break;
    }
    if (k->proto) {
        ds_put_char(ds, ' ');
        afxdp_latency_format_addr(ds, &k->src, k->src_port, ports);
        ds_put_cstr(ds, " > ");
        afxdp_latency_format_addr(ds, &k->dst, k->dst_port, ports);
    }
    ds_put_format(ds, " hash=0x%08"PRIx32" samples=%"PRIu64" avg=",
                  s->hash, s->packets);
    afxdp_latency_format_ns(ds, s->avg_ns);
    ds_put_cstr(ds, " max=");
    afxdp_latency_format_ns(ds, s->max_ns);
}

void
afxdp_latency_flow_key_parse(const void *frame, size_t len,
                             struct afxdp_latency_flow_key *key)
{
    const uint8_t *p = frame;
    size_t off = ETH_HEADER_LEN, l4 = 0;
    uint16_t type;

    memset(key, 0, sizeof *key);
    if (len < ETH_HEADER_LEN) {
        return;
    }
    type = (p[12] << 8) | p[13];
    for (int i = 0; i < 2 && (type == ETH_TYPE_VLAN_8021Q
                              || type == ETH_TYPE_VLAN_8021AD); i++) {
        if (len < off + VLAN_HEADER_LEN) {
            return;
        }
        type = (p[off + 2] << 8) | p[off + 3];
        off += VLAN_HEADER_LEN;
    }
    if (type == ETH_TYPE_IP && len >= off + IP_HEADER_LEN) {
        const uint8_t *ip = p + off;

        in6_addr_set_mapped_ipv4(&key->src, get_16aligned_be32(
            ALIGNED_CAST(const ovs_16aligned_be32 *, ip + 12)));
        in6_addr_set_mapped_ipv4(&key->dst, get_16aligned_be32(
            ALIGNED_CAST(const ovs_16aligned_be32 *, ip + 16)));
        key->proto = ip[9];
        if (!(((ip[6] << 8) | ip[7]) & 0x1fff)) {   /* Not a later frag. */
            l4 = off + (ip[0] & 0xf) * 4;
        }
    } else if (type == ETH_TYPE_IPV6 && len >= off + IPV6_HEADER_LEN) {
        const uint8_t *ip6 = p + off;

        memcpy(&key->src, ip6 + 8, sizeof key->src);
        memcpy(&key->dst, ip6 + 24, sizeof key->dst);
        key->proto = ip6[6];
        l4 = off + IPV6_HEADER_LEN;
    } else {
        return;
    }
    if (l4 && len >= l4 + 4
        && (key->proto == IPPROTO_TCP || key->proto == IPPROTO_UDP
            || key->proto == IPPROTO_SCTP)) {
        memcpy(&key->src_port, p + l4, 2);
        memcpy(&key->dst_port, p + l4 + 2, 2);
    }
}
