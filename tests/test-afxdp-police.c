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

/* Unit tests of ingress policing: the meters userspace computes from OVS's
 * settings (lib/afxdp-police.c), then our XDP program itself
 * (bpf/afxdp-police.bpf.h), loaded from its skeleton without a device and
 * run on frames with BPF_PROG_TEST_RUN: a byte limit and a packet limit
 * pass exactly their burst from a full meter, a frame larger than the
 * burst passes an empty meter and then its debt holds the next ones, the
 * limits lifted pass everything, and every drop is counted in
 * xdp_policed.
 *
 * Usage: ovstest test-afxdp-police [prog]
 *
 * Without an argument, the meters (pure logic: the unit suite, also under
 * valgrind and the sanitizers); with "prog", the program (root: the
 * system suite runs it; exits 77 otherwise). */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "afxdp-police.h"
#include "afxdp-xdp.h"
#include "bpf/afxdp-shared.h"
#include "bpf/afxdp.skel.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "openvswitch/vlog.h"
#include "ovstest.h"
#include "timeval.h"
#include "util.h"

#define CHECK(COND) ovs_assert(COND)

static void
test_config(void)
{
    struct afxdp_police_config c = { .kbits_rate = 10000 };
    struct afxdp_police e;
    struct ds s = DS_EMPTY_INITIALIZER;

    /* OVS's defaults for a burst of 0, and no burst without a rate. */
    afxdp_police_config_normalize(&c);
    CHECK(c.kbits_burst == AFXDP_POLICE_KBITS_BURST_DEFAULT);
    CHECK(c.kpkts_burst == 0);
    c = (struct afxdp_police_config) { .kpkts_rate = 5, .kbits_burst = 7 };
    afxdp_police_config_normalize(&c);
    CHECK(c.kbits_burst == 0 && c.kpkts_burst == 16);
    CHECK(afxdp_police_config_on(&c));
    c = (struct afxdp_police_config) { .kbits_burst = 7, .kpkts_burst = 1 };
    afxdp_police_config_normalize(&c);
    CHECK(!afxdp_police_config_on(&c) && !c.kbits_burst && !c.kpkts_burst);

    /* 10 Mbit/s: a byte is 800 ns; a burst of 1000 kbit is 0.1 s. */
    c = (struct afxdp_police_config) { .kbits_rate = 10000,
                                       .kbits_burst = 1000 };
    afxdp_police_compile(&c, &e);
    CHECK(e.on);
    CHECK(e.bytes.cost == 800ULL << AFXDP_POLICE_SHIFT);
    CHECK(e.bytes.burst == 100000000ULL);
    CHECK(!e.packets.cost && !e.bytes.tat);
    /* 3 kpkts/s, burst 2 kpkts: 333,333.33 ns a packet, 0.667 s. */
    c = (struct afxdp_police_config) { .kpkts_rate = 3, .kpkts_burst = 2 };
    afxdp_police_compile(&c, &e);
    CHECK(!e.bytes.cost);
    CHECK(e.packets.cost == (1000000ULL << AFXDP_POLICE_SHIFT) / 3);
    CHECK(e.packets.burst == 666666666ULL);
    /* The largest settings fit: 2^32-1 kbit/s and kbit, and the
     * smallest rate with the largest burst. */
    c = (struct afxdp_police_config) { .kbits_rate = UINT32_MAX,
                                       .kbits_burst = UINT32_MAX };
    afxdp_police_compile(&c, &e);
    CHECK(e.bytes.cost >= 1 && e.bytes.burst == 1000000000ULL);
    c = (struct afxdp_police_config) { .kbits_rate = 1,
                                       .kbits_burst = UINT32_MAX };
    afxdp_police_compile(&c, &e);
    CHECK(e.bytes.cost == 8000000ULL << AFXDP_POLICE_SHIFT);
    CHECK(e.bytes.burst == (uint64_t) UINT32_MAX * 1000000000ULL);
    c = (struct afxdp_police_config) { 0 };
    afxdp_police_compile(&c, &e);
    CHECK(!e.on);

    c = (struct afxdp_police_config) { .kbits_rate = 20000,
                                       .kbits_burst = 8000,
                                       .kpkts_rate = 1, .kpkts_burst = 16 };
    afxdp_police_format(&c, &s);
    CHECK(!strcmp(ds_cstr(&s), "20000 kbit/s, burst 8000 kbit; "
                  "1 kpkts/s, burst 16 kpkts"));
    ds_destroy(&s);
    printf("config: ok\n");
}

/* Our program, loaded, and a frame to run it on. */
struct prog {
    struct afxdp_bpf *skel;
    int fd;
    int police_fd;
    int stats_fd;
    int n_cpus;
};

static void
prog_load(struct prog *p)
{
    int error;

    p->skel = afxdp_bpf__open();
    CHECK(p->skel);
    /* The device-bound variant needs a device. */
    bpf_program__set_autoload(p->skel->progs.afxdp_ovs_dev, false);
    error = afxdp_bpf__load(p->skel);
    if (error) {
        ovs_fatal(0, "loading the XDP program: %s", ovs_strerror(-error));
    }
    p->fd = bpf_program__fd(p->skel->progs.afxdp_ovs_redir);
    p->police_fd = bpf_map__fd(p->skel->maps.afxdp_police);
    p->stats_fd = bpf_map__fd(p->skel->maps.afxdp_stats);
    p->n_cpus = libbpf_num_possible_cpus();
    CHECK(p->n_cpus > 0);
}

/* xdp_policed, summed over CPUs. */
static uint64_t
policed(const struct prog *p)
{
    uint32_t key = AFXDP_PROG_POLICED;
    uint64_t *v = xcalloc(p->n_cpus, sizeof *v);
    uint64_t sum = 0;

    CHECK(!bpf_map_lookup_elem(p->stats_fd, &key, v));
    for (int i = 0; i < p->n_cpus; i++) {
        sum += v[i];
    }
    free(v);
    return sum;
}

/* Runs the program 'n' times, one run each, on a UDP frame of 'len' bytes
 * (no socket: a frame that passes gets XDP_PASS).  Returns how many
 * passed. */
static int
run(const struct prog *p, size_t len, int n)
{
    uint8_t *frame = xzalloc(len);
    int passed = 0;

    /* Ethernet, IPv4 (version 4, IHL 5), UDP: enough for the parser. */
    frame[12] = 0x08;
    frame[14] = 0x45;
    frame[16] = (len - 14) >> 8;
    frame[17] = (len - 14) & 0xff;
    frame[22] = 64;
    frame[23] = 17;
    for (int i = 0; i < n; i++) {
        LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
                    .data_size_in = len, .repeat = 1);

        CHECK(!bpf_prog_test_run_opts(p->fd, &opts));
        CHECK(opts.retval == XDP_PASS || opts.retval == XDP_DROP);
        passed += opts.retval == XDP_PASS;
    }
    free(frame);
    return passed;
}

static void
apply(const struct prog *p, uint32_t kbits_rate, uint32_t kbits_burst,
      uint32_t kpkts_rate, uint32_t kpkts_burst)
{
    struct afxdp_police_config c = {
        .kbits_rate = kbits_rate, .kbits_burst = kbits_burst,
        .kpkts_rate = kpkts_rate, .kpkts_burst = kpkts_burst,
    };

    CHECK(!afxdp_police_apply(p->police_fd, &c));
}

static void
test_program(void)
{
    struct prog p;
    uint64_t before;
    int passed;

    prog_load(&p);

    /* No limit: everything passes, nothing counted. */
    CHECK(run(&p, 1000, 100) == 100);
    CHECK(policed(&p) == 0);

    /* 8 kbit/s (1,000 bytes a second), burst 80 kbit (10,000 bytes): from
     * a full meter, 1000-byte frames pass while it holds no more than the
     * burst, so 11 of them (the 11th finds 10,000 bytes held), and the
     * rate adds one a second: the loop takes far less. */
    apply(&p, 8, 80, 0, 0);
    passed = run(&p, 1000, 100);
    CHECK(passed == 11);
    CHECK(policed(&p) == 89);
    printf("byte limit: ok\n");

    /* A frame larger than the burst (1000 bytes, burst 4 kbit = 500
     * bytes) passes an empty meter; the next waits for its debt. */
    apply(&p, 8, 4, 0, 0);
    CHECK(run(&p, 1000, 1) == 1);
    CHECK(run(&p, 1000, 1) == 0);
    CHECK(run(&p, 64, 10) == 0);
    printf("frame over the burst: ok\n");

    /* 1 kpkts/s, burst 1 kpkts: 1,001 frames from a full meter, plus one
     * a millisecond for as long as the loop takes. */
    before = policed(&p);
    apply(&p, 0, 0, 1, 1);
    {
        long long start = time_msec();
        long long ms;

        passed = run(&p, 64, 3000);
        ms = time_msec() - start;
        CHECK(passed >= 1001 && passed <= 1001 + ms + 1);
        CHECK(policed(&p) - before == 3000 - passed);
    }
    printf("packet limit: ok\n");

    /* Both: the tighter one holds (1,000 bytes a second lets 11 frames of
     * 1000 bytes through, the packet meter would let 1,001). */
    apply(&p, 8, 80, 1, 1);
    CHECK(run(&p, 1000, 100) == 11);
    printf("both limits: ok\n");

    /* Lifted. */
    before = policed(&p);
    apply(&p, 0, 0, 0, 0);
    CHECK(run(&p, 1000, 100) == 100);
    CHECK(policed(&p) == before);
    printf("lifted: ok\n");

    afxdp_bpf__destroy(p.skel);
}

static void
test_afxdp_police_main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_OFF);
    /* libbpf's messages through vlog (off here). */
    afxdp_xdp_init();
    if (argc > 1 && !strcmp(argv[1], "prog")) {
        if (geteuid()) {
            printf("test-afxdp-police: skipped: prog needs root\n");
            exit(77);
        }
        test_program();
    } else {
        test_config();
    }
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-police", test_afxdp_police_main);
