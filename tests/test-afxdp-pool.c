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

/* Unit tests of the UMEM pool: frame allocator and frame accounting
 * (lib/netdev-afxdp-pool.c), and of the packets copied out of several
 * frames (lib/afxdp-big-packet.c), and of the frames that come back from
 * a completion ring (lib/afxdp-xsk.h).
 *
 * Usage: ovstest test-afxdp-pool
 * Needs no privileges (the area is ordinary anonymous memory; nothing is
 * registered with the kernel).  Aborts on the first failed check. */

#include <config.h>
#undef NDEBUG

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "afxdp-big-packet.h"
#include "afxdp-xsk.h"
#include "bitmap.h"
#include "dp-packet.h"
#include "netdev-afxdp-pool.h"
#include "ovs-thread.h"
#include "openvswitch/vlog.h"
#include "ovstest.h"
#include "util.h"

#define FRAME 4096

static struct afxdp_pool *
make_pool(uint32_t n_frames)
{
    struct afxdp_pool_params p = {
        .n_frames = n_frames, .frame_size = FRAME, .numa_id = -1,
        .hugepages = false,
    };
    struct afxdp_pool *pool;
    char *msg;

    ovs_assert(!afxdp_pool_create(&p, &pool, &msg));
    ovs_assert(!msg);
    return pool;
}

static void
check_counts(struct afxdp_pool *pool, uint32_t n_free, uint32_t n_in_ovs)
{
    struct afxdp_pool_counts c;

    afxdp_pool_get_counts(pool, &c);
    if (c.n_free != n_free || c.n_in_ovs != n_in_ovs) {
        ovs_fatal(0, "counts: free %"PRIu32" (want %"PRIu32"), in_ovs "
                  "%"PRIu32" (want %"PRIu32")",
                  c.n_free, n_free, c.n_in_ovs, n_in_ovs);
    }
}

static void
test_bad_geometry(void)
{
    struct afxdp_pool_params p = { 0, FRAME, -1, false };
    struct afxdp_pool *pool;
    char *msg;

    ovs_assert(afxdp_pool_create(&p, &pool, &msg) == EINVAL && msg && !pool);
    free(msg);
    p.n_frames = 8;
    p.frame_size = 3000;
    ovs_assert(afxdp_pool_create(&p, &pool, &msg) == EINVAL && msg);
    free(msg);
    p.frame_size = 1024;
    ovs_assert(afxdp_pool_create(&p, &pool, &msg) == EINVAL && msg);
    free(msg);
    printf("bad geometry: ok\n");
}

/* Every frame can be taken once, each is aligned, inside the area and
 * distinct; an empty pool gives nothing; everything goes back. */
static void
test_get_put(void)
{
    const uint32_t n = 300;
    struct afxdp_pool *pool = make_pool(n);
    unsigned long *seen = bitmap_allocate(n);
    uint64_t *addrs = xmalloc((n + 10) * sizeof *addrs);
    uint32_t got = 0;

    ovs_assert(afxdp_pool_area_size(pool) == (size_t) n * FRAME);
    /* Batches of uneven sizes, as rx refills and tx would take them. */
    while (got < n) {
        uint32_t k = afxdp_pool_get(pool, &addrs[got], 7);

        ovs_assert(k == MIN(7, n - got));
        got += k;
    }
    ovs_assert(afxdp_pool_get(pool, &addrs[got], 10) == 0);
    for (uint32_t i = 0; i < n; i++) {
        ovs_assert(addrs[i] % FRAME == 0);
        ovs_assert(addrs[i] < (uint64_t) n * FRAME);
        ovs_assert(!bitmap_is_set(seen, addrs[i] / FRAME));
        bitmap_set1(seen, addrs[i] / FRAME);
    }
    check_counts(pool, 0, 0);
    afxdp_pool_put(pool, addrs, n);
    check_counts(pool, n, 0);

    /* LIFO: what was put last comes out first (cache-warm frames). */
    afxdp_pool_get(pool, addrs, 1);
    ovs_assert(addrs[0] == addrs[n - 1] || n == 1);
    afxdp_pool_put(pool, addrs, 1);

    bitmap_free(seen);
    free(addrs);
    afxdp_pool_release(pool);
    printf("get/put: ok\n");
}

/* Frames handed to OVS are counted until their dp_packets come back. */
static void
test_ovs_accounting(void)
{
    struct afxdp_pool *pool = make_pool(64);
    const struct afxdp_pool_layout *l = afxdp_pool_layout(pool);
    uint64_t fill[64], back[64];
    uint32_t n;

    /* The "kernel" gets 32 frames for its fill ring. */
    n = afxdp_pool_to_ovs(pool, 0, fill, 32);
    ovs_assert(n == 32);
    check_counts(pool, 32, 0);

    /* 20 of them come back received and go to OVS; the fill ring is
     * topped up with 20 fresh frames in the same call. */
    n = afxdp_pool_to_ovs(pool, 20, &fill[32], 20);
    ovs_assert(n == 20);
    check_counts(pool, 12, 20);

    /* The packets map to their frames and back. */
    for (int i = 0; i < 20; i++) {
        struct dp_packet_afxdp *xp = afxdp_pool_packet(l, fill[i] + 256);

        /* As the receive path makes them. */
        dp_packet_use_afxdp(&xp->packet, afxdp_pool_ptr(l, fill[i] + 256),
                            FRAME, 256);
        ovs_assert(afxdp_pool_from_umem_pool(xp->mpool) == pool);
        ovs_assert(afxdp_pool_packet_addr(l, xp) == fill[i]);
        ovs_assert(afxdp_pool_frame_addr(l, fill[i] + 4095) == fill[i]);
        back[i] = fill[i];
    }

    /* OVS frees them, some one by one, the rest in a batch. */
    afxdp_pool_from_ovs(pool, back, 1);
    afxdp_pool_from_ovs(pool, &back[1], 1);
    afxdp_pool_from_ovs(pool, &back[2], 18);
    check_counts(pool, 32, 0);

    /* Asking for more than there is gives what there is. */
    n = afxdp_pool_to_ovs(pool, 0, back, 64);
    ovs_assert(n == 32);
    check_counts(pool, 0, 0);
    afxdp_pool_put(pool, back, n);
    afxdp_pool_put(pool, &fill[20], 32);
    check_counts(pool, 64, 0);
    afxdp_pool_release(pool);
    printf("OVS accounting: ok\n");
}

/* A released pool with dp_packets still in OVS lives until the last one
 * comes back, and is freed then. */
static void
test_late_free(void)
{
    unsigned int live = afxdp_pool_count_live();
    struct afxdp_pool *pool = make_pool(16);
    uint64_t addrs[16];

    ovs_assert(afxdp_pool_count_live() == live + 1);
    ovs_assert(afxdp_pool_to_ovs(pool, 0, addrs, 16) == 16);
    afxdp_pool_to_ovs(pool, 3, NULL, 0);   /* 3 of them go to OVS. */
    afxdp_pool_put(pool, &addrs[3], 13);   /* The rest was in rings. */
    check_counts(pool, 13, 3);

    afxdp_pool_release(pool);
    ovs_assert(afxdp_pool_count_live() == live + 1);
    afxdp_pool_from_ovs(pool, addrs, 2);
    ovs_assert(afxdp_pool_count_live() == live + 1);
    afxdp_pool_from_ovs(pool, &addrs[2], 1);
    ovs_assert(afxdp_pool_count_live() == live);

    /* Released with nothing in OVS: freed at once. */
    pool = make_pool(4);
    afxdp_pool_release(pool);
    ovs_assert(afxdp_pool_count_live() == live);
    printf("late free: ok\n");
}

/* Several threads take and return frames at the same time, as rx, tx and
 * dp_packet frees of different PMDs do.  Nothing is lost or duplicated. */
struct stress_arg {
    struct afxdp_pool *pool;
    unsigned int seed;
};

static void *
stress_thread(void *arg_)
{
    struct stress_arg *arg = arg_;
    uint64_t held[64];
    uint32_t n_held = 0;

    for (int i = 0; i < 200000; i++) {
        unsigned int r = rand_r(&arg->seed);
        uint32_t k = 1 + r % 32;

        if (r & 0x100 && n_held + k <= ARRAY_SIZE(held)) {
            uint32_t got = afxdp_pool_to_ovs(arg->pool, 0, &held[n_held], k);

            afxdp_pool_to_ovs(arg->pool, got, NULL, 0);
            n_held += got;
        } else if (n_held) {
            k = MIN(k, n_held);
            n_held -= k;
            afxdp_pool_from_ovs(arg->pool, &held[n_held], k);
        }
    }
    afxdp_pool_from_ovs(arg->pool, held, n_held);
    return NULL;
}

static void
test_threads(void)
{
    struct afxdp_pool *pool = make_pool(256);
    struct stress_arg args[3];
    pthread_t threads[3];
    uint64_t all[256];
    unsigned long *seen = bitmap_allocate(256);

    for (int i = 0; i < 3; i++) {
        args[i].pool = pool;
        args[i].seed = 17 + i;
        threads[i] = ovs_thread_create("afxdp-pool-stress", stress_thread,
                                       &args[i]);
    }
    for (int i = 0; i < 3; i++) {
        xpthread_join(threads[i], NULL);
    }
    check_counts(pool, 256, 0);
    ovs_assert(afxdp_pool_get(pool, all, 256) == 256);
    for (int i = 0; i < 256; i++) {
        ovs_assert(!bitmap_is_set(seen, all[i] / FRAME));
        bitmap_set1(seen, all[i] / FRAME);
    }
    afxdp_pool_put(pool, all, 256);
    bitmap_free(seen);
    afxdp_pool_release(pool);
    printf("threads: ok\n");
}

/* Received descriptors: what the rx path takes and what it drops. */
static void
test_rx_desc(void)
{
    struct afxdp_pool *pool = make_pool(8);
    const struct afxdp_pool_layout *l = afxdp_pool_layout(pool);
    static const struct {
        uint64_t addr;
        uint32_t len;
        bool ok;
    } cases[] = {
        { 256, 60, true },                  /* Usual: after the headroom. */
        { 256, FRAME - 256, true },         /* Fills the rest of its frame. */
        { 256, FRAME - 255, false },        /* One byte into the next. */
        { 7 * FRAME + 256, 1500, true },    /* Last frame. */
        { 7 * FRAME + 256, FRAME, false },  /* Past the end of the area. */
        { 8 * FRAME, 60, false },           /* Outside the area. */
        { UINT64_MAX - 10, 60, false },     /* Far outside, no wrap. */
        { 256, 14, true },                  /* Just an Ethernet header. */
        { 256, 13, false },                 /* Runt: less than that. */
        { 256, 0, false },                  /* Empty. */
        { 3 * FRAME, FRAME, true },         /* No headroom, whole frame. */
        { 3 * FRAME + FRAME - 1, 14, false }, /* Starts at the frame's
                                               * last byte. */
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        bool ok = afxdp_pool_rx_desc_ok(l, cases[i].addr, cases[i].len, 14);

        if (ok != cases[i].ok) {
            ovs_fatal(0, "rx desc %"PRIuSIZE" (addr %"PRIu64", len %"PRIu32
                      "): %s, expected %s", i, cases[i].addr, cases[i].len,
                      ok ? "ok" : "bad", cases[i].ok ? "ok" : "bad");
        }
    }
    afxdp_pool_release(pool);
    printf("rx descriptors: ok\n");
}

/* A multi-buffer packet's copy is recognised, with its timestamp and
 * port; OVS's own packets, stubs included, are not; a resize out of its
 * buffer forgets it; dp_packet_delete() frees it whole (valgrind). */
static void
test_big_packet(void)
{
    uint8_t bytes[9000], stub_buf[256];
    const struct afxdp_big_packet *c;
    struct afxdp_big_packet *bp;
    struct dp_packet *p, *stub;

    for (size_t i = 0; i < sizeof bytes; i++) {
        bytes[i] = i * 7;
    }
    bp = afxdp_big_packet_new(sizeof bytes, 256, 42);
    ovs_assert(!bp->rx_ts && bp->owner == 42);
    ovs_assert(dp_packet_headroom(&bp->packet) == 256);
    ovs_assert(dp_packet_tailroom(&bp->packet) == sizeof bytes);
    dp_packet_put(&bp->packet, bytes, 4000);
    dp_packet_put(&bp->packet, bytes + 4000, sizeof bytes - 4000);
    ovs_assert(dp_packet_size(&bp->packet) == sizeof bytes);
    ovs_assert(!memcmp(dp_packet_data(&bp->packet), bytes, sizeof bytes));
    bp->rx_ts = 123456789;
    c = afxdp_big_packet_cast(&bp->packet);
    ovs_assert(c == bp && c->rx_ts == 123456789 && c->owner == 42);

    /* A header pushed into its headroom: still ours. */
    dp_packet_push_uninit(&bp->packet, 64);
    ovs_assert(afxdp_big_packet_cast(&bp->packet) == bp);
    /* More than its headroom: the bytes move to the heap, and it is an
     * ordinary packet from then on. */
    dp_packet_push_uninit(&bp->packet, 1024);
    ovs_assert(bp->packet.source == DPBUF_MALLOC);
    ovs_assert(!afxdp_big_packet_cast(&bp->packet));
    ovs_assert(!memcmp((uint8_t *) dp_packet_data(&bp->packet) + 1088,
                       bytes, sizeof bytes));
    dp_packet_delete(&bp->packet);

    /* OVS's packets: malloc'd, and a stub with a buffer of its own. */
    p = dp_packet_new_with_headroom(100, 256);
    ovs_assert(!afxdp_big_packet_cast(p));
    dp_packet_delete(p);
    /* On the heap, exactly its size: valgrind sees any read past it. */
    stub = xmalloc(sizeof *stub);
    dp_packet_use_stub(stub, stub_buf, sizeof stub_buf);
    ovs_assert(!afxdp_big_packet_cast(stub));
    dp_packet_uninit(stub);
    free(stub);

    /* Freed whole without a resize too. */
    bp = afxdp_big_packet_new(100, 256, 1);
    dp_packet_put(&bp->packet, bytes, 100);
    dp_packet_delete(&bp->packet);
    printf("multi-buffer copies: ok\n");
}

/* Frames back from a completion ring: the addresses the kernel wrote
 * there (here written by hand, as no socket is needed) go back into the
 * pool as frames, those outside the UMEM are left out, and the socket's
 * count of frames in flight goes down by all of them. */
static void
test_completions(void)
{
    struct afxdp_pool *pool = make_pool(8);
    const struct afxdp_pool_layout *l = afxdp_pool_layout(pool);
    uint64_t sent[8], addrs[8];
    struct afxdp_xsk xsk;
    bool bad = false;
    uint32_t n;

    /* What is wrong here is logged as a warning: not on the console. */
    vlog_set_levels(vlog_module_from_name("afxdp_xsk"), VLF_ANY_DESTINATION,
                    VLL_OFF);
    memset(&xsk, 0, sizeof xsk);
    ovs_assert(afxdp_pool_get(pool, sent, 8) == 8);
    xsk.tx_in_flight = 6;

    /* Good ones, where the data of each began (after its headroom), come
     * back as their frames. */
    addrs[0] = afxdp_xsk_comp_frame(l, sent[0] + 256, &bad);
    addrs[1] = afxdp_xsk_comp_frame(l, sent[1], &bad);
    addrs[2] = afxdp_xsk_comp_frame(l, sent[2] + FRAME - 1, &bad);
    ovs_assert(!bad);
    ovs_assert(addrs[0] == sent[0] && addrs[1] == sent[1]
               && addrs[2] == sent[2]);
    ovs_assert(afxdp_xsk_comp_put(&xsk, pool, l, addrs, 3, bad) == 3);
    ovs_assert(xsk.tx_in_flight == 3);
    check_counts(pool, 3, 0);

    /* Among them, one just past the UMEM and one far outside: both are
     * left out of the pool (a frame there would be handed to the kernel
     * or to OVS later, memory that is not the UMEM's). */
    addrs[0] = afxdp_xsk_comp_frame(l, sent[3] + 256, &bad);
    addrs[1] = afxdp_xsk_comp_frame(l, 8 * FRAME + 256, &bad);
    ovs_assert(bad);
    addrs[2] = afxdp_xsk_comp_frame(l, UINT64_MAX - 10, &bad);
    n = afxdp_xsk_comp_put(&xsk, pool, l, addrs, 3, bad);
    ovs_assert(n == 1 && addrs[0] == sent[3]);
    ovs_assert(xsk.tx_in_flight == 0);
    check_counts(pool, 4, 0);

    /* More back than were in flight: counted, none left in flight. */
    bad = false;
    addrs[0] = afxdp_xsk_comp_frame(l, sent[4], &bad);
    addrs[1] = afxdp_xsk_comp_frame(l, sent[5], &bad);
    ovs_assert(afxdp_xsk_comp_put(&xsk, pool, l, addrs, 2, bad) == 2);
    ovs_assert(xsk.tx_in_flight == 0);
    check_counts(pool, 6, 0);

    afxdp_pool_put(pool, &sent[6], 2);
    check_counts(pool, 8, 0);
    afxdp_pool_release(pool);
    printf("completions: ok\n");
}

static void
test_afxdp_pool_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    test_bad_geometry();
    test_get_put();
    test_ovs_accounting();
    test_late_free();
    test_threads();
    test_rx_desc();
    test_completions();
    test_big_packet();
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-pool", test_afxdp_pool_main);
