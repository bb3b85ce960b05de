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

/* ovstest test-afxdp-csum: afxdp_csum_continue() against OVS's
 * csum_continue(), folded by csum_finish(), for every length up to 300 at
 * every start within a word, for random data and partial sums, for the
 * edges (all zero, all 0xff, sums that fold to 0xffff) and for lengths up
 * to 64 kB.  "ovstest test-afxdp-csum bench" prints how long each takes
 * over 64 kB (information only, no pass or fail). */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afxdp-csum.h"
#include "csum.h"
#include "ovstest.h"
#include "random.h"
#include "timeval.h"
#include "util.h"

#define BUF_SIZE 65536

static int n_checked;

/* Checks that both sums of 'n' bytes at 'data' after 'partial' fold into
 * the same checksum. */
static void
check(const uint8_t *data, size_t n, uint32_t partial, const char *what)
{
    ovs_be16 want = csum_finish(csum_continue(partial, data, n));
    ovs_be16 got = csum_finish(afxdp_csum_continue(partial, data, n));

    if (want != got) {
        fprintf(stderr, "%s: %"PRIuSIZE" bytes at offset %u, partial "
                "0x%"PRIx32": csum_continue 0x%04x, ours 0x%04x\n", what,
                n, (unsigned int) ((uintptr_t) data & 7), partial,
                ntohs(want), ntohs(got));
        exit(EXIT_FAILURE);
    }
    n_checked++;
}

static void
bench(const uint8_t *buf)
{
    const int reps = 20000;
    uint32_t sink = 0;
    long long int start;
    double ovs_ns, ours_ns;

    start = time_usec();
    for (int i = 0; i < reps; i++) {
        sink += csum_continue(i, buf, BUF_SIZE);
    }
    ovs_ns = (time_usec() - start) * 1000.0 / reps;
    start = time_usec();
    for (int i = 0; i < reps; i++) {
        sink += afxdp_csum_continue(i, buf, BUF_SIZE);
    }
    ours_ns = (time_usec() - start) * 1000.0 / reps;
    printf("64 kB: csum_continue %.0f ns, afxdp_csum_continue %.0f ns "
           "(%.1f times as fast) [%"PRIu32"]\n", ovs_ns, ours_ns,
           ours_ns ? ovs_ns / ours_ns : 0, sink & 1);
}

static void
test_afxdp_csum_main(int argc, char *argv[])
{
    uint8_t *buf = xmalloc(BUF_SIZE + 8);
    /* csum_continue() adds to its 32-bit partial without carrying out of
     * it: the partials leave room for the sum of 64 kB of data (at most
     * 32768 * 0xffff, just under 2^31), as callers' pseudo-header sums
     * do. */
    static const uint32_t partials[] = {
        0, 1, 0xfffe, 0xffff, 0x10000, 0x12345678, 0x7fffffff,
    };

    random_set_seed(1);
    random_bytes(buf, BUF_SIZE + 8);
    if (argc > 1 && !strcmp(argv[1], "bench")) {
        bench(buf);
        free(buf);
        return;
    }

    /* Every length to 300 at every start within an 8-byte word. */
    for (size_t ofs = 0; ofs < 8; ofs++) {
        for (size_t n = 0; n <= 300; n++) {
            for (size_t i = 0; i < ARRAY_SIZE(partials); i++) {
                check(buf + ofs, n, partials[i], "random");
            }
            check(buf + ofs, n, random_uint32() & 0x7fffffff,
                  "random, random partial");
        }
    }

    /* Long buffers, odd and even, up to 64 kB. */
    for (size_t n = 301; n <= BUF_SIZE; n += 997) {
        check(buf + (n & 7), n, random_uint32() & 0x7fffffff, "long");
    }
    check(buf, BUF_SIZE, 0, "64 kB");

    /* All ones: every word's carry, and sums that fold to 0xffff. */
    memset(buf, 0xff, BUF_SIZE + 8);
    for (size_t n = 0; n <= 4096; n += 61) {
        for (size_t i = 0; i < ARRAY_SIZE(partials); i++) {
            check(buf + (n & 7), n, partials[i], "all 0xff");
        }
    }
    check(buf, BUF_SIZE, 0x7fffffff, "64 kB of 0xff");

    /* All zero: the sum stays zero only with a zero partial. */
    memset(buf, 0, BUF_SIZE + 8);
    for (size_t n = 0; n <= 300; n++) {
        check(buf + (n & 7), n, 0, "all zero");
        check(buf + (n & 7), n, 0xffff, "all zero, partial 0xffff");
    }

    /* Words whose sum is exactly a multiple of 0xffff: 0x8000 + 0x7fff. */
    for (size_t n = 0; n + 4 <= 256; n += 4) {
        buf[n] = 0x80;
        buf[n + 1] = 0x00;
        buf[n + 2] = 0x7f;
        buf[n + 3] = 0xff;
        check(buf, n + 4, 0, "sums of 0xffff");
    }

    printf("%d sums agree with csum_continue(): ok\nPASS\n", n_checked);
    free(buf);
}

OVSTEST_REGISTER("test-afxdp-csum", test_afxdp_csum_main);
