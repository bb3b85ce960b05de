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

/* Unit tests of the latency statistics (lib/afxdp-latency.c): histogram
 * geometry and error bound, sanity filter, merge, reset, formatting,
 * the per-flow table, and the clock of the latency statistics
 * (lib/afxdp-clock.h).
 *
 * Usage: ovstest test-afxdp-latency
 * Needs no privileges.  Prints one line per check group and "PASS" at the
 * end; any failed check aborts. */

#include <config.h>
#undef NDEBUG

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "afxdp-clock.h"
#include "afxdp-latency.h"
#include "openvswitch/dynamic-string.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "ovstest.h"
#include "packets.h"
#include "util.h"

/* Deterministic pseudo-random numbers (xorshift64), so that a failure
 * reproduces. */
static uint64_t
rnd(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

/* Exponentially distributed with mean 'mean' ns. */
static uint64_t
rnd_exp(uint64_t *state, double mean)
{
    double u = ((rnd(state) >> 11) + 1) * (1.0 / 9007199254740992.0);

    return -mean * log(u);
}

static int
cmp_u64(const void *a_, const void *b_)
{
    const uint64_t *a = a_, *b = b_;

    return *a < *b ? -1 : *a > *b;
}

static struct afxdp_latency_hist *
hist_new(void)
{
    struct afxdp_latency_hist *h = xmalloc(sizeof *h);

    afxdp_latency_hist_init(h);
    return h;
}

static uint64_t
read64(const atomic_uint64_t *p)
{
    uint64_t v;

    atomic_read_relaxed(CONST_CAST(atomic_uint64_t *, p), &v);
    return v;
}

/* Every value falls in a bucket whose bounds contain it; the buckets tile
 * 0 .. AFXDP_LATENCY_HIST_MAX_NS without gap or overlap; each bucket is at
 * most 1/16 of its lower bound wide (1 ns below 32 ns). */
static void
test_buckets(void)
{
    uint64_t state = 1;

    ovs_assert(afxdp_latency_bucket_low(0) == 0);
    for (unsigned int i = 0; i < AFXDP_LATENCY_N_BUCKETS; i++) {
        uint64_t lo = afxdp_latency_bucket_low(i);
        uint64_t hi = afxdp_latency_bucket_high(i);

        ovs_assert(lo <= hi);
        ovs_assert(afxdp_latency_bucket(lo) == i);
        ovs_assert(afxdp_latency_bucket(hi) == i);
        if (i + 1 < AFXDP_LATENCY_N_BUCKETS) {
            ovs_assert(afxdp_latency_bucket_low(i + 1) == hi + 1);
        }
        if (lo < 32) {
            ovs_assert(lo == hi);
        } else {
            ovs_assert((hi - lo + 1) * 16 <= lo);
        }
    }
    ovs_assert(afxdp_latency_bucket_high(AFXDP_LATENCY_N_BUCKETS - 1)
               == AFXDP_LATENCY_HIST_MAX_NS);
    ovs_assert(afxdp_latency_bucket(AFXDP_LATENCY_HIST_MAX_NS + 1)
               == AFXDP_LATENCY_N_BUCKETS - 1);
    ovs_assert(afxdp_latency_bucket(UINT64_MAX)
               == AFXDP_LATENCY_N_BUCKETS - 1);
    for (int i = 0; i < 100000; i++) {
        uint64_t v = rnd(&state) >> (rnd(&state) % 64);
        unsigned int b = afxdp_latency_bucket(v);

        ovs_assert(b < AFXDP_LATENCY_N_BUCKETS);
        if (v <= AFXDP_LATENCY_HIST_MAX_NS) {
            ovs_assert(afxdp_latency_bucket_low(b) <= v);
            ovs_assert(v <= afxdp_latency_bucket_high(b));
        }
    }
    printf("buckets: ok\n");
}

/* Adds the 'n' samples 'v' to a histogram and checks every percentile
 * against the exact nearest-rank one, within value / 32, and count, min,
 * max and average exactly.  Sorts 'v'. */
static void
check_distribution(const char *name, uint64_t v[], size_t n)
{
    static const double ps[] = {
        0, 0.1, 1, 10, 25, 50, 66.6, 75, 90, 99, 99.9, 99.99, 100,
    };
    struct afxdp_latency_hist *h = hist_new();
    struct afxdp_latency_summary s;
    uint64_t sum = 0;

    for (size_t i = 0; i < n; i++) {
        afxdp_latency_hist_add(h, v[i]);
        sum += v[i];
    }
    qsort(v, n, sizeof *v, cmp_u64);

    afxdp_latency_hist_summary(h, &s);
    ovs_assert(s.count == n && s.sum_ns == sum);
    ovs_assert(s.min_ns == v[0] && s.max_ns == v[n - 1]);
    ovs_assert(s.avg_ns == (sum + n / 2) / n);
    ovs_assert(s.n_rejected == 0);

    for (size_t i = 0; i < ARRAY_SIZE(ps); i++) {
        double r = ceil(ps[i] * n / 100.0);
        size_t rank = r < 1 ? 1 : r;
        uint64_t exact = v[rank - 1];
        uint64_t got = afxdp_latency_hist_percentile(h, ps[i]);
        uint64_t diff = got > exact ? got - exact : exact - got;

        if (diff * 32 > exact) {
            ovs_fatal(0, "%s: p%g is %"PRIu64", exact %"PRIu64, name,
                      ps[i], got, exact);
        }
    }
    ovs_assert(afxdp_latency_hist_percentile(h, 0) == v[0]);
    ovs_assert(afxdp_latency_hist_percentile(h, 100) == v[n - 1]);
    free(h);
}

static void
test_percentiles(void)
{
    const size_t n = 200000;
    uint64_t *v = xmalloc(n * sizeof *v);
    struct afxdp_latency_hist *h;
    uint64_t state = 42;

    /* Uniform over 1 ns .. 1 ms. */
    for (size_t i = 0; i < n; i++) {
        v[i] = 1 + rnd(&state) % 1000000;
    }
    check_distribution("uniform", v, n);

    /* Exponential, mean 50 us: a long tail. */
    for (size_t i = 0; i < n; i++) {
        v[i] = rnd_exp(&state, 50000);
    }
    check_distribution("exponential", v, n);

    /* Log-uniform over 1 ns .. 60 s: every bucket size. */
    for (size_t i = 0; i < n; i++) {
        v[i] = exp((rnd(&state) >> 11) * (1.0 / 9007199254740992.0)
                   * log(60e9));
    }
    check_distribution("log-uniform", v, n);

    /* Two spikes: 70 % at 1 us, 30 % at 2 ms, some jitter. */
    for (size_t i = 0; i < n; i++) {
        v[i] = (i % 10 < 7 ? 1000 : 2000000) + rnd(&state) % 50;
    }
    check_distribution("two spikes", v, n);

    /* Small values are exact. */
    for (size_t i = 0; i < n; i++) {
        v[i] = rnd(&state) % 32;
    }
    check_distribution("small", v, n);

    /* A constant: every percentile is exactly that value. */
    h = hist_new();
    for (size_t i = 0; i < 1000; i++) {
        afxdp_latency_hist_add(h, 12345);
    }
    ovs_assert(afxdp_latency_hist_percentile(h, 0) == 12345);
    ovs_assert(afxdp_latency_hist_percentile(h, 50) == 12345);
    ovs_assert(afxdp_latency_hist_percentile(h, 99.9) == 12345);
    ovs_assert(afxdp_latency_hist_percentile(h, 100) == 12345);
    free(h);

    /* Empty: all zero. */
    h = hist_new();
    ovs_assert(afxdp_latency_hist_percentile(h, 50) == 0);
    free(h);

    free(v);
    printf("percentiles: ok\n");
}

/* Negative and absurd deltas are refused and counted, never added. */
static void
test_reject(void)
{
    struct afxdp_latency_hist *h = hist_new();
    struct afxdp_latency_summary s;
    struct ds ds = DS_EMPTY_INITIALIZER;

    ovs_assert(!afxdp_latency_record(h, -1));
    ovs_assert(!afxdp_latency_record(h, INT64_MIN));
    ovs_assert(!afxdp_latency_record(h, AFXDP_LATENCY_MAX_SANE_NS + 1));
    ovs_assert(!afxdp_latency_record(h, INT64_MAX));
    ovs_assert(afxdp_latency_record(h, 0));
    ovs_assert(afxdp_latency_record(h, AFXDP_LATENCY_MAX_SANE_NS));

    afxdp_latency_hist_summary(h, &s);
    ovs_assert(s.count == 2 && s.n_rejected == 4);
    ovs_assert(s.min_ns == 0 && s.max_ns == AFXDP_LATENCY_MAX_SANE_NS);
    afxdp_latency_hist_format(h, &ds);
    ovs_assert(strstr(ds_cstr(&ds), " rejected=4"));

    /* Only rejections: no samples, no nonsense. */
    afxdp_latency_hist_clear(h);
    ovs_assert(!afxdp_latency_record(h, -5));
    ds_clear(&ds);
    afxdp_latency_hist_format(h, &ds);
    ovs_assert(!strcmp(ds_cstr(&ds), "samples=0 rejected=1"));

    ds_destroy(&ds);
    free(h);
    printf("sanity filter: ok\n");
}

static void
check_same_hist(const struct afxdp_latency_hist *a,
                const struct afxdp_latency_hist *b)
{
    ovs_assert(read64(&a->count) == read64(&b->count));
    ovs_assert(read64(&a->sum) == read64(&b->sum));
    ovs_assert(read64(&a->min) == read64(&b->min));
    ovs_assert(read64(&a->max) == read64(&b->max));
    ovs_assert(read64(&a->n_rejected) == read64(&b->n_rejected));
    for (size_t i = 0; i < AFXDP_LATENCY_N_BUCKETS; i++) {
        ovs_assert(read64(&a->buckets[i]) == read64(&b->buckets[i]));
    }
}

/* Merging two histograms equals adding both streams to one. */
static void
test_merge(void)
{
    struct afxdp_latency_hist *a = hist_new(), *b = hist_new();
    struct afxdp_latency_hist *both = hist_new(), *copy = hist_new();
    struct afxdp_latency_hist *empty = hist_new();
    uint64_t state = 7;

    for (int i = 0; i < 50000; i++) {
        int64_t x = 100 + rnd(&state) % 100000;
        int64_t y = rnd_exp(&state, 2000000);

        afxdp_latency_record(a, x);
        afxdp_latency_record(both, x);
        if (i % 3) {
            afxdp_latency_record(b, y);
            afxdp_latency_record(both, y);
        }
        if (i % 1000 == 0) {
            afxdp_latency_record(b, -i);
            afxdp_latency_record(both, -i);
        }
    }
    afxdp_latency_hist_merge(copy, a);
    check_same_hist(copy, a);

    afxdp_latency_hist_merge(a, b);
    check_same_hist(a, both);

    /* An empty source changes nothing; an empty destination becomes a
     * copy. */
    afxdp_latency_hist_merge(a, empty);
    check_same_hist(a, both);
    afxdp_latency_hist_merge(empty, both);
    check_same_hist(empty, both);

    /* A source with a pending reset is empty. */
    afxdp_latency_hist_clear(b);
    afxdp_latency_hist_merge(a, b);
    check_same_hist(a, both);

    free(a);
    free(b);
    free(both);
    free(copy);
    free(empty);
    printf("merge: ok\n");
}

struct writer_arg {
    struct afxdp_latency_hist *h;
    atomic_bool stop;
    uint64_t n_added;
};

static void *
hist_writer(void *arg_)
{
    struct writer_arg *arg = arg_;
    bool stop = false;

    while (!stop) {
        for (int i = 0; i < 1000; i++) {
            afxdp_latency_hist_add(arg->h, i & 1 ? 1000 : 3000);
        }
        arg->n_added += 1000;
        atomic_read_relaxed(&arg->stop, &stop);
    }
    return NULL;
}

/* Returns true if 'v' is in the bucket of one of the samples of
 * test_reset(): min and max of a copy racing with the writer are exact or
 * at a bound of that bucket. */
static bool
near_sample(uint64_t v)
{
    unsigned int b = afxdp_latency_bucket(v);

    return (b == afxdp_latency_bucket(777) || b == afxdp_latency_bucket(1000)
            || b == afxdp_latency_bucket(3000));
}

/* A clear takes effect for readers at once, is carried out by the writer
 * on its next sample, and readers never see an incoherent histogram while
 * a writer runs and clears happen. */
static void
test_reset(void)
{
    struct afxdp_latency_hist *h = hist_new();
    struct afxdp_latency_summary s;
    struct writer_arg arg;
    pthread_t writer;
    struct ds ds = DS_EMPTY_INITIALIZER;
    int n_seen = 0;

    for (int i = 1; i <= 100; i++) {
        afxdp_latency_hist_add(h, i * 1000);
    }
    afxdp_latency_record(h, -1);
    afxdp_latency_hist_clear(h);
    afxdp_latency_hist_clear(h);

    /* Readers: empty at once.  The data itself is untouched until the
     * writer acts. */
    afxdp_latency_hist_summary(h, &s);
    ovs_assert(!s.count && !s.sum_ns && !s.min_ns && !s.max_ns);
    ovs_assert(!s.n_rejected);
    ovs_assert(afxdp_latency_hist_percentile(h, 50) == 0);
    afxdp_latency_hist_format(h, &ds);
    ovs_assert(!strcmp(ds_cstr(&ds), "samples=0"));
    ovs_assert(read64(&h->count) == 100);

    /* The writer's next sample starts a new histogram. */
    afxdp_latency_hist_add(h, 777);
    afxdp_latency_hist_summary(h, &s);
    ovs_assert(s.count == 1 && s.sum_ns == 777);
    ovs_assert(s.min_ns == 777 && s.max_ns == 777 && !s.n_rejected);

    /* Concurrent writer, reader and clears. */
    arg.h = h;
    atomic_init(&arg.stop, false);
    arg.n_added = 0;
    writer = ovs_thread_create("afxdp-latency-writer", hist_writer, &arg);
    do {
        sched_yield();
        afxdp_latency_hist_summary(h, &s);
    } while (s.count < 2);
    for (int i = 0; i < 3000; i++) {
        uint64_t p50;

        afxdp_latency_hist_summary(h, &s);
        p50 = afxdp_latency_hist_percentile(h, 50);
        n_seen += s.count != 0;
        if (s.count) {
            ovs_assert(near_sample(s.min_ns) && near_sample(s.max_ns));
            ovs_assert(s.min_ns <= s.max_ns);
            ovs_assert(s.min_ns <= s.avg_ns && s.avg_ns <= s.max_ns);
        }
        ovs_assert(!p50 || near_sample(p50));
        if (i % 10 == 0) {
            afxdp_latency_hist_clear(h);
        }
    }
    atomic_store_relaxed(&arg.stop, true);
    xpthread_join(writer, NULL);
    ovs_assert(arg.n_added > 0 && n_seen > 0);

    afxdp_latency_hist_clear(h);
    afxdp_latency_hist_summary(h, &s);
    ovs_assert(!s.count);
    afxdp_latency_hist_add(h, 5);
    afxdp_latency_hist_summary(h, &s);
    ovs_assert(s.count == 1 && s.min_ns == 5);

    ds_destroy(&ds);
    free(h);
    printf("reset: ok\n");
}

static void
check_ns(uint64_t ns, const char *want)
{
    struct ds ds = DS_EMPTY_INITIALIZER;

    afxdp_latency_format_ns(&ds, ns);
    if (strcmp(ds_cstr(&ds), want)) {
        ovs_fatal(0, "%"PRIu64" ns formatted as \"%s\", want \"%s\"",
                  ns, ds_cstr(&ds), want);
    }
    ds_destroy(&ds);
}

static void
check_hist_line(const struct afxdp_latency_hist *h, const char *want)
{
    struct ds ds = DS_EMPTY_INITIALIZER;

    afxdp_latency_hist_format(h, &ds);
    if (strcmp(ds_cstr(&ds), want)) {
        ovs_fatal(0, "histogram formatted as\n  \"%s\"\nwant\n  \"%s\"",
                  ds_cstr(&ds), want);
    }
    ds_destroy(&ds);
}

static void
test_format(void)
{
    struct afxdp_latency_hist *h = hist_new();

    check_ns(0, "0ns");
    check_ns(999, "999ns");
    check_ns(1000, "1.0us");
    check_ns(1500, "1.5us");
    check_ns(1549, "1.5us");
    check_ns(1550, "1.6us");
    check_ns(999949, "999.9us");
    check_ns(999950, "1.0ms");
    check_ns(2000000, "2.0ms");
    check_ns(12345678, "12.3ms");
    check_ns(UINT64_C(3000000000), "3.0s");
    check_ns(UINT64_C(59990000000), "60.0s");
    check_ns(UINT64_MAX, "18446744073.7s");

    check_hist_line(h, "samples=0");
    for (int i = 0; i < 4; i++) {
        afxdp_latency_hist_add(h, 1500);
    }
    check_hist_line(h, "samples=4 min=1.5us avg=1.5us p50=1.5us p90=1.5us "
                    "p99=1.5us p99.9=1.5us max=1.5us");

    /* Percentiles are bucket midpoints: 3 ms lies in [2883584, 3014656),
     * whose midpoint is 2949120 ns. */
    afxdp_latency_hist_clear(h);
    afxdp_latency_hist_add(h, 1000);
    afxdp_latency_hist_add(h, 3000000);
    check_hist_line(h, "samples=2 min=1.0us avg=1.5ms p50=1.0us p90=2.9ms "
                    "p99=2.9ms p99.9=2.9ms max=3.0ms");
    free(h);
    printf("formatting: ok\n");
}

/* Fills 'key' with an IPv4 UDP 5-tuple derived from 'n'. */
static void
make_key(struct afxdp_latency_flow_key *key, uint32_t n)
{
    memset(key, 0, sizeof *key);
    in6_addr_set_mapped_ipv4(&key->src, htonl(0x0a000000 | (n & 0xffff)));
    in6_addr_set_mapped_ipv4(&key->dst, htonl(0x0a010000 | (n >> 16)));
    key->src_port = htons(n & 0xffff);
    key->dst_port = htons(53);
    key->proto = IPPROTO_UDP;
}

/* Returns the index in 'st' of the flow with 'hash', or -1. */
static int
find_flow(const struct afxdp_latency_flow_stats st[], size_t n,
          uint32_t hash)
{
    for (size_t i = 0; i < n; i++) {
        if (st[i].hash == hash) {
            return i;
        }
    }
    return -1;
}

static void
test_flows_basic(void)
{
    struct afxdp_latency_flows *f = afxdp_latency_flows_create(64);
    struct afxdp_latency_flow_stats st[8];
    struct afxdp_latency_flows_counts c;
    struct afxdp_latency_flow_key k1, k2, k3;
    struct ds ds = DS_EMPTY_INITIALIZER;

    make_key(&k1, 1);
    make_key(&k2, 2);
    memset(&k3, 0, sizeof k3);
    ovs_assert(ipv6_parse("2001:db8::1", &k3.src));
    ovs_assert(ipv6_parse("2001:db8::2", &k3.dst));
    k3.src_port = htons(40000);
    k3.dst_port = htons(80);
    k3.proto = IPPROTO_TCP;

    /* Flow 1: 3 packets, 1..3 us.  Flow 2: 1 packet, 50 us.  Flow 3: 2
     * packets, 10 and 20 us. */
    afxdp_latency_flows_add(f, 1, &k1, 1000);
    afxdp_latency_flows_add(f, 1, &k2, 2000);   /* Label not compared. */
    afxdp_latency_flows_add(f, 1, &k1, 3000);
    afxdp_latency_flows_add(f, 2, &k2, 50000);
    afxdp_latency_flows_add(f, 0xdeadbeef, &k3, 10000);
    afxdp_latency_flows_add(f, 0xdeadbeef, &k3, 20000);

    ovs_assert(afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_PACKETS, st, 8)
               == 3);
    ovs_assert(st[0].hash == 1 && st[0].packets == 3);
    ovs_assert(st[0].sum_ns == 6000 && st[0].max_ns == 3000);
    ovs_assert(st[0].avg_ns == 2000);
    ovs_assert(!memcmp(&st[0].key, &k1, sizeof k1));
    ovs_assert(st[1].hash == 0xdeadbeef && st[1].packets == 2);
    ovs_assert(!memcmp(&st[1].key, &k3, sizeof k3));
    ovs_assert(st[2].hash == 2 && st[2].packets == 1);

    ovs_assert(afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_MAX, st, 2) == 2);
    ovs_assert(st[0].hash == 2 && st[1].hash == 0xdeadbeef);
    ovs_assert(afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_AVG, st, 8) == 3);
    ovs_assert(st[0].hash == 2 && st[1].hash == 0xdeadbeef
               && st[2].hash == 1);
    ovs_assert(afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_AVG, st, 0) == 0);

    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_slots == 64 && c.n_used == 3 && c.n_packets == 6);
    ovs_assert(c.n_claims == 3 && !c.n_evictions && !c.n_untracked);

    afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_PACKETS, st, 8);
    afxdp_latency_flow_format(&st[0], &ds);
    ovs_assert(!strcmp(ds_cstr(&ds), "udp 10.0.0.1:1 > 10.1.0.0:53 "
                       "hash=0x00000001 samples=3 avg=2.0us max=3.0us"));
    ds_clear(&ds);
    afxdp_latency_flow_format(&st[1], &ds);
    ovs_assert(!strcmp(ds_cstr(&ds), "tcp [2001:db8::1]:40000 > "
                       "[2001:db8::2]:80 hash=0xdeadbeef samples=2 "
                       "avg=15.0us max=20.0us"));

    /* Sizes are rounded to powers of 2 within the limits. */
    afxdp_latency_flows_destroy(f);
    f = afxdp_latency_flows_create(0);
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_slots == AFXDP_LATENCY_FLOWS_DEFAULT_SLOTS);
    afxdp_latency_flows_destroy(f);
    f = afxdp_latency_flows_create(1000);
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_slots == 1024);
    afxdp_latency_flows_destroy(f);
    f = afxdp_latency_flows_create(1);
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_slots == AFXDP_LATENCY_FLOWS_MIN_SLOTS);
    afxdp_latency_flows_destroy(f);
    f = afxdp_latency_flows_create(UINT32_MAX);
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_slots == AFXDP_LATENCY_FLOWS_MAX_SLOTS);
    afxdp_latency_flows_destroy(f);

    ds_destroy(&ds);
    printf("flows basics: ok\n");
}

/* 8 heavy flows (5 % of the packets each), a slow flow (0.1 %, 2 ms) and
 * 19 medium flows (0.1 % each) in a stream of about 200000 light flows
 * (58 % of the packets): the heavy and slow flows are kept and counted
 * (nearly) completely, memory does not grow. */
static void
test_flows_heavy(void)
{
    enum { N_HEAVY = 8, N_PACKETS = 2000000 };
    struct afxdp_latency_flows *f = afxdp_latency_flows_create(256);
    size_t mem = afxdp_latency_flows_memory(f);
    struct afxdp_latency_flow_stats st[256];
    struct afxdp_latency_flows_counts c;
    uint64_t heavy_sent[N_HEAVY] = { 0 }, slow_sent = 0, listed = 0;
    uint32_t heavy[N_HEAVY], slow;
    uint64_t state = 99;
    size_t n;

    for (int i = 0; i < N_HEAVY; i++) {
        heavy[i] = rnd(&state);
    }
    slow = rnd(&state);
    for (int i = 0; i < N_PACKETS; i++) {
        struct afxdp_latency_flow_key key;
        unsigned int r = rnd(&state) % 1000;
        uint64_t ns = 5000 + rnd(&state) % 20000;
        uint32_t hash;

        if (r < 400) {
            hash = heavy[r % N_HEAVY];
            heavy_sent[r % N_HEAVY]++;
        } else if (r == 400) {
            hash = slow;
            ns = 2000000;
            slow_sent++;
        } else if (r < 420) {
            hash = 0x5bd1e995 * (r - 400);
        } else {
            hash = rnd(&state) % 200000 * 0x01000193;
        }
        make_key(&key, hash);
        afxdp_latency_flows_add(f, hash, &key, ns);
    }

    ovs_assert(afxdp_latency_flows_memory(f) == mem);
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_packets == N_PACKETS);
    ovs_assert(c.n_used == 256 && c.n_evictions > 10000);
    ovs_assert(c.n_untracked > 0);

    /* The busiest 8 are the heavy flows, each counted from (nearly) its
     * first packet, with its own label. */
    n = afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_PACKETS, st, 256);
    ovs_assert(n == 256);
    for (int i = 0; i < N_HEAVY; i++) {
        int j = find_flow(st, N_HEAVY, heavy[i]);
        struct afxdp_latency_flow_key key;

        ovs_assert(j >= 0);
        ovs_assert(st[j].packets * 100 >= heavy_sent[i] * 99);
        ovs_assert(st[j].packets <= heavy_sent[i]);
        make_key(&key, heavy[i]);
        ovs_assert(!memcmp(&st[j].key, &key, sizeof key));
    }
    for (size_t i = 0; i < n; i++) {
        listed += st[i].packets;
    }
    ovs_assert(listed <= c.n_packets - c.n_untracked);

    /* The slow flow is kept although it is far from busy, and leads the
     * lists by maximum and by average. */
    ovs_assert(afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_MAX, st, 1) == 1);
    ovs_assert(st[0].hash == slow && st[0].max_ns == 2000000);
    ovs_assert(st[0].packets * 100 >= slow_sent * 99);
    ovs_assert(afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_AVG, st, 1) == 1);
    ovs_assert(st[0].hash == slow && st[0].avg_ns == 2000000);

    afxdp_latency_flows_destroy(f);
    printf("flows keep the busiest and slowest: ok\n");
}

/* In a table of a single set: a newcomer cannot displace a busy flow at
 * once but wears down the weakest slot and takes it; a busy flow that goes
 * idle ages out; every packet is accounted for. */
static void
test_flows_eviction(void)
{
    struct afxdp_latency_flows *f = afxdp_latency_flows_create(4);
    struct afxdp_latency_flow_stats st[4];
    struct afxdp_latency_flows_counts c;
    struct afxdp_latency_flow_key key;
    size_t n;
    int j;

    memset(&key, 0, sizeof key);

    /* Flow 1: busy (200 packets).  Flows 2..4: light (4, 3, 3 packets).
     * 210 samples: no aging yet (scores halve every 64 * 4). */
    for (int i = 0; i < 200; i++) {
        afxdp_latency_flows_add(f, 1, &key, 1000);
        if (i % 20 == 0) {
            afxdp_latency_flows_add(f, 2 + i / 20 % 3, &key, 1000);
        }
    }
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_used == 4 && c.n_claims == 4 && !c.n_evictions);

    /* Flow 5 arrives: its first packet only wears down the weakest slot
     * (flow 3, score 3)... */
    afxdp_latency_flows_add(f, 5, &key, 1000);
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_untracked == 1 && !c.n_evictions);

    /* ...but within a few packets it takes a light flow's slot, and keeps
     * it while it stays busy. */
    for (int i = 0; i < 199; i++) {
        afxdp_latency_flows_add(f, 5, &key, 1000);
        afxdp_latency_flows_add(f, 1, &key, 1000);
    }
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_evictions == 1 && c.n_untracked == 2);
    n = afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_PACKETS, st, 4);
    ovs_assert(n == 4 && st[0].hash == 1 && st[0].packets == 399);
    ovs_assert(find_flow(st, n, 3) < 0);
    j = find_flow(st, n, 5);
    ovs_assert(j == 1 && st[j].packets + c.n_untracked == 200);

    /* Flow 1 goes idle; four new busy flows take over the set, flows 1
     * and 5 last, as their scores decay (they halve every 256 samples);
     * until then the newcomers evict each other from the other slots. */
    for (int i = 0; i < 4000; i++) {
        afxdp_latency_flows_add(f, 10 + i % 4, &key, 1000);
    }
    n = afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_PACKETS, st, 4);
    ovs_assert(n == 4 && find_flow(st, n, 1) < 0);
    for (uint32_t h = 10; h < 14; h++) {
        ovs_assert(find_flow(st, n, h) >= 0);
    }
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_evictions >= 5 && c.n_used == 4);

    /* Accounting: counted for a listed flow, untracked, or in an evicted
     * flow's lost counters. */
    ovs_assert(st[0].packets + st[1].packets + st[2].packets + st[3].packets
               + c.n_untracked <= c.n_packets);

    afxdp_latency_flows_destroy(f);
    printf("flows eviction and aging: ok\n");
}

/* A clear empties the table for readers at once and the writer starts
 * afresh. */
static void
test_flows_reset(void)
{
    struct afxdp_latency_flows *f = afxdp_latency_flows_create(16);
    struct afxdp_latency_flow_stats st[16];
    struct afxdp_latency_flows_counts c;
    struct afxdp_latency_flow_key key;

    make_key(&key, 1);
    for (uint32_t h = 0; h < 10; h++) {
        afxdp_latency_flows_add(f, h, &key, 1000 + h);
    }
    afxdp_latency_flows_clear(f);
    ovs_assert(!afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_PACKETS, st, 16));
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_slots == 16 && !c.n_used && !c.n_packets && !c.n_claims);

    afxdp_latency_flows_add(f, 77, &key, 5000);
    ovs_assert(afxdp_latency_flows_top(f, AFXDP_LATENCY_BY_PACKETS, st, 16)
               == 1);
    ovs_assert(st[0].hash == 77 && st[0].packets == 1);
    afxdp_latency_flows_get_counts(f, &c);
    ovs_assert(c.n_used == 1 && c.n_packets == 1 && c.n_claims == 1);

    afxdp_latency_flows_destroy(f);
    printf("flows reset: ok\n");
}

struct flows_writer_arg {
    struct afxdp_latency_flows *f;
    atomic_bool stop;
};

static void *
flows_writer(void *arg_)
{
    struct flows_writer_arg *arg = arg_;
    uint64_t state = 5;
    bool stop = false;

    while (!stop) {
        for (int i = 0; i < 1000; i++) {
            struct afxdp_latency_flow_key key;
            uint32_t hash = rnd(&state) % 5000;

            make_key(&key, hash);
            afxdp_latency_flows_add(arg->f, hash, &key, 1000 + hash);
        }
        atomic_read_relaxed(&arg->stop, &stop);
    }
    return NULL;
}

/* Readers of a table under heavy churn always see each flow's own label
 * and counters that fit it. */
static void
test_flows_threads(void)
{
    struct flows_writer_arg arg;
    struct afxdp_latency_flow_stats st[64];
    size_t n_seen = 0;
    pthread_t writer;

    arg.f = afxdp_latency_flows_create(64);
    atomic_init(&arg.stop, false);
    writer = ovs_thread_create("afxdp-latency-flows", flows_writer, &arg);
    while (!afxdp_latency_flows_top(arg.f, AFXDP_LATENCY_BY_PACKETS, st, 1)) {
        sched_yield();
    }
    for (int i = 0; i < 3000; i++) {
        size_t n = afxdp_latency_flows_top(arg.f, i % 2
                                           ? AFXDP_LATENCY_BY_PACKETS
                                           : AFXDP_LATENCY_BY_MAX, st, 64);

        n_seen += n;
        for (size_t j = 0; j < n; j++) {
            struct afxdp_latency_flow_key key;

            make_key(&key, st[j].hash);
            ovs_assert(!memcmp(&st[j].key, &key, sizeof key));
            ovs_assert(st[j].packets > 0);
            ovs_assert(st[j].max_ns == 0 || st[j].max_ns == 1000 + st[j].hash);
        }
        if (i % 100 == 0) {
            afxdp_latency_flows_clear(arg.f);
        }
    }
    atomic_store_relaxed(&arg.stop, true);
    xpthread_join(writer, NULL);
    ovs_assert(n_seen > 0);
    afxdp_latency_flows_destroy(arg.f);
    printf("flows threads: ok\n");
}

static void
copy_key(const void *key, struct afxdp_latency_flow_key *out)
{
    memcpy(out, key, sizeof *out);
}

/* Bursts of samples added as runs give the same table as the samples added
 * one by one, where no flow competes for a slot. */
static void
test_flows_runs(void)
{
    struct afxdp_latency_flows *one = afxdp_latency_flows_create(1024);
    struct afxdp_latency_flows *runs = afxdp_latency_flows_create(1024);
    struct afxdp_latency_flow_stats a[32], b[32];
    struct afxdp_latency_flows_counts ca, cb;
    struct afxdp_latency_flow_run run = { .n = 0 };
    struct afxdp_latency_flow_key keys[16];
    uint32_t seed = 1, n_in_batch = 0;
    size_t na, nb;

    for (int i = 0; i < 16; i++) {
        make_key(&keys[i], 100 + i);
    }
    for (int burst = 0; burst < 2000; burst++) {
        int flow, len;

        seed = seed * 1103515245 + 12345;
        flow = (seed >> 16) % 16;
        len = 1 + (seed >> 8) % 8;
        for (int j = 0; j < len; j++) {
            uint64_t ns;

            seed = seed * 1103515245 + 12345;
            ns = 1000 + (seed >> 12) % 100000;  /* Weights 1 to 7. */
            afxdp_latency_flows_add(one, 100 + flow, &keys[flow], ns);
            afxdp_latency_flow_run_add(runs, &run, copy_key,
                                       100 + flow, &keys[flow], ns);
            /* Runs end with the receive batch, too. */
            if (++n_in_batch == 32) {
                afxdp_latency_flow_run_flush(runs, &run,
                                             copy_key);
                n_in_batch = 0;
            }
        }
    }
    afxdp_latency_flow_run_flush(runs, &run, copy_key);
    ovs_assert(!run.n);

    afxdp_latency_flows_get_counts(one, &ca);
    afxdp_latency_flows_get_counts(runs, &cb);
    ovs_assert(ca.n_packets == cb.n_packets && ca.n_used == cb.n_used);
    ovs_assert(ca.n_used == 16 && !ca.n_untracked && !cb.n_untracked);
    na = afxdp_latency_flows_top(one, AFXDP_LATENCY_BY_PACKETS, a, 32);
    nb = afxdp_latency_flows_top(runs, AFXDP_LATENCY_BY_PACKETS, b, 32);
    ovs_assert(na == 16 && nb == 16);
    for (size_t i = 0; i < na; i++) {
        ovs_assert(a[i].hash == b[i].hash && a[i].packets == b[i].packets);
        ovs_assert(a[i].sum_ns == b[i].sum_ns && a[i].max_ns == b[i].max_ns);
        ovs_assert(!memcmp(&a[i].key, &b[i].key, sizeof a[i].key));
    }
    afxdp_latency_flows_destroy(one);
    afxdp_latency_flows_destroy(runs);
    printf("flows runs: ok\n");
}

static uint64_t
monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The clock of the latency statistics agrees with CLOCK_MONOTONIC, to
 * within 'tol', over three of its re-anchoring spans (the rate is measured
 * at the end of the first), and where it may use the TSC, it does.  It
 * cannot be more exact than a clock read is short: 'tol' is 5 us, or 100
 * clock reads where they are slow (under valgrind, a read takes
 * microseconds). */
static void
test_clock(void)
{
    uint64_t start = monotonic_ns(), prev = 0, worst = 0, tol;
    struct afxdp_clock c;
    long long int n = 0, n_tsc = 0;

    for (int i = 0; i < 100; i++) {
        monotonic_ns();
    }
    tol = MAX(5000, monotonic_ns() - start);
    start = monotonic_ns();
    afxdp_clock_init(&c);
    while (monotonic_ns() - start < 3 * AFXDP_CLOCK_SPAN_NS + 10000000) {
        uint64_t before = monotonic_ns();
        uint64_t now = afxdp_clock_now(&c);
        uint64_t after = monotonic_ns();

        ovs_assert(now + tol >= before && now <= after + tol);
        ovs_assert(now + tol >= prev);
        worst = MAX(worst, now < before ? before - now
                           : now > after ? now - after : 0);
        prev = now;
        n_tsc += c.mult != 0;
        n++;
    }
    ovs_assert(!c.tsc || n_tsc > n / 2);
    printf("clock: ok (%s, %lld reads, at most %"PRIu64" ns off, "
           "tolerance %"PRIu64" ns)\n",
           c.tsc ? "TSC" : "clock_gettime()", n, worst, tol);
}

/* The sampler times the first packet and then one in 'every', across
 * calls: exactly ceil(n / every) of n packets, none twice in a row unless
 * 'every' is 1. */
static void
test_sampler(void)
{
    static const uint32_t everys[] = { 1, 2, 16, 1000, 65536 };

    for (size_t i = 0; i < ARRAY_SIZE(everys); i++) {
        struct afxdp_latency_sampler s;
        uint32_t every = everys[i];
        uint64_t n_timed = 0, last = 0;

        afxdp_latency_sampler_init(&s, every);
        for (uint64_t n = 1; n <= 200000; n++) {
            if (afxdp_latency_sample(&s)) {
                ovs_assert(n_timed == 0 || n - last == every);
                last = n;
                n_timed++;
            }
            ovs_assert(n_timed == DIV_ROUND_UP(n, every));
        }
    }

    /* 0 means every packet; init starts again with the next one. */
    struct afxdp_latency_sampler s;

    afxdp_latency_sampler_init(&s, 0);
    ovs_assert(afxdp_latency_sample(&s) && afxdp_latency_sample(&s));
    afxdp_latency_sampler_init(&s, 3);
    ovs_assert(afxdp_latency_sample(&s) && !afxdp_latency_sample(&s));
    afxdp_latency_sampler_init(&s, 3);
    ovs_assert(afxdp_latency_sample(&s));

    /* The batch form, as the receive path uses it (batches of 1 to 32
     * packets, sizes from a fixed sequence), chooses the same packets as
     * one call a packet. */
    for (size_t i = 0; i < ARRAY_SIZE(everys); i++) {
        struct afxdp_latency_sampler one, batch;
        uint32_t size = 1;

        afxdp_latency_sampler_init(&one, everys[i]);
        afxdp_latency_sampler_init(&batch, everys[i]);
        for (int b = 0; b < 20000; b++) {
            uint64_t next = afxdp_latency_sampler_first(&batch);

            size = size * 7 % 32 + 1;
            for (uint32_t k = 0; k < size; k++) {
                bool timed = k == next;

                if (timed) {
                    next += everys[i];
                }
                ovs_assert(timed == afxdp_latency_sample(&one));
            }
            afxdp_latency_sampler_advance(&batch, next, size);
        }
    }
    printf("sampler: ok\n");
}

/* The flow label of a frame: VLAN-tagged IPv4 TCP, IPv6 UDP, a later IPv4
 * fragment (no ports), a frame cut short in its IP header (nothing). */
static void
test_flow_key_parse(void)
{
    static const uint8_t v4[] = {
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x81, 0x00, 0, 5, 0x08, 0x00,
        0x45, 0, 0, 44, 0, 0, 0, 0, 64, 6, 0, 0, 10, 1, 1, 1, 10, 1, 1, 2,
        0x30, 0x39, 0x00, 0x50, 0, 0, 0, 0,
    };
    static const uint8_t v6_head[] = {
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x86, 0xdd,
        0x60, 0, 0, 0, 0, 8, 17, 64,
    };
    struct afxdp_latency_flow_key k;
    uint8_t frame[128], v6[64];

    afxdp_latency_flow_key_parse(v4, sizeof v4, &k);
    ovs_assert(k.proto == 6);
    ovs_assert(in6_addr_get_mapped_ipv4(&k.src) == htonl(0x0a010101));
    ovs_assert(in6_addr_get_mapped_ipv4(&k.dst) == htonl(0x0a010102));
    ovs_assert(k.src_port == htons(12345) && k.dst_port == htons(80));

    memcpy(frame, v4, sizeof v4);
    frame[24] = 0x00;
    frame[25] = 0x10;       /* Fragment offset 16: a later fragment. */
    afxdp_latency_flow_key_parse(frame, sizeof v4, &k);
    ovs_assert(k.proto == 6 && !k.src_port && !k.dst_port);

    afxdp_latency_flow_key_parse(v4, 30, &k);
    ovs_assert(!k.proto && !k.src_port);

    memset(v6, 0, sizeof v6);
    memcpy(v6, v6_head, sizeof v6_head);
    v6[22 + 15] = 1;        /* Source ::1. */
    v6[38 + 15] = 2;        /* Destination ::2. */
    v6[54] = 0x00;
    v6[55] = 53;            /* Source port 53. */
    v6[57] = 7;             /* Destination port 7. */
    afxdp_latency_flow_key_parse(v6, 62, &k);
    ovs_assert(k.proto == 17 && k.src.s6_addr[15] == 1
               && k.dst.s6_addr[15] == 2);
    ovs_assert(k.src_port == htons(53) && k.dst_port == htons(7));
    printf("flow labels parsed from frames: ok\n");
}

static void
test_afxdp_latency_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    test_buckets();
    test_percentiles();
    test_reject();
    test_merge();
    test_reset();
    test_format();
    test_flows_basic();
    test_flows_heavy();
    test_flows_eviction();
    test_flows_reset();
    test_flows_threads();
    test_flows_runs();
    test_clock();
    test_sampler();
    test_flow_key_parse();
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-latency", test_afxdp_latency_main);
