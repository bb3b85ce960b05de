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

/* Unit tests of the flow mark serials of partially offloaded flows
 * (lib/afxdp-offload-marks.h): a serial stands for its OVS mark while its
 * flow is in the program, for nothing once it left, and is never given
 * again, even when OVS hands the same mark to another flow. */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>

#include "afxdp-offload-marks.h"
#include "ovs-rcu.h"
#include "ovstest.h"
#include "util.h"

static void
check_lookup(const struct afxdp_offload_marks *m, uint32_t serial,
             bool found, uint32_t ovs_mark)
{
    uint32_t mark = 0;
    bool ok = afxdp_offload_marks_lookup(m, serial, &mark);

    if (ok != found || (found && mark != ovs_mark)) {
        ovs_fatal(0, "serial %"PRIu32": %s mark %"PRIu32", expected %s "
                  "mark %"PRIu32, serial, ok ? "found" : "no", mark,
                  found ? "found" : "no", ovs_mark);
    }
}

static void
test_afxdp_offload_marks_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct afxdp_offload_marks *m = afxdp_offload_marks_create();
    uint32_t a, b, c;

    /* Flow A, OVS mark 7, goes into the program. */
    a = afxdp_offload_marks_add(m, 7);
    ovs_assert(a);
    check_lookup(m, a, true, 7);
    check_lookup(m, 0, false, 0);

    /* A leaves the program; OVS gives mark 7 to flow B.  A frame that A's
     * entry marked and that waited in the ring must not become B's. */
    afxdp_offload_marks_remove(m, a);
    check_lookup(m, a, false, 0);
    b = afxdp_offload_marks_add(m, 7);
    ovs_assert(b != a);
    check_lookup(m, a, false, 0);
    check_lookup(m, b, true, 7);

    /* Many flows in and out: no serial comes back while 2^32 have not
     * been given. */
    for (int i = 0; i < 100000; i++) {
        c = afxdp_offload_marks_add(m, i);
        ovs_assert(c != a && c != b && c);
        check_lookup(m, c, true, i);
        afxdp_offload_marks_remove(m, c);
        check_lookup(m, c, false, 0);
    }
    check_lookup(m, b, true, 7);
    printf("serials: ok\n");

    /* Wrap-around: the counter comes back to 1 while B (a long-lived
     * flow) still has its serial, and to the serials of C and D, added
     * just before the wrap, still in use too.  None is given twice. */
    afxdp_offload_marks_set_next(m, UINT32_MAX - 1);
    c = afxdp_offload_marks_add(m, 8);
    ovs_assert(c == UINT32_MAX - 1);
    a = afxdp_offload_marks_add(m, 9);
    ovs_assert(a == UINT32_MAX);
    afxdp_offload_marks_set_next(m, b);
    for (int i = 0; i < 3; i++) {
        uint32_t d = afxdp_offload_marks_add(m, 10 + i);

        ovs_assert(d && d != b && d != c && d != a);
        check_lookup(m, d, true, 10 + i);
        afxdp_offload_marks_remove(m, d);
    }
    afxdp_offload_marks_set_next(m, UINT32_MAX - 1);
    c = afxdp_offload_marks_add(m, 11);
    ovs_assert(c != UINT32_MAX - 1 && c != UINT32_MAX && c != b && c);
    check_lookup(m, b, true, 7);
    check_lookup(m, UINT32_MAX - 1, true, 8);
    check_lookup(m, UINT32_MAX, true, 9);
    check_lookup(m, c, true, 11);
    afxdp_offload_marks_remove(m, UINT32_MAX - 1);
    afxdp_offload_marks_remove(m, UINT32_MAX);
    afxdp_offload_marks_remove(m, c);
    afxdp_offload_marks_remove(m, b);
    printf("wrap-around: ok\n");

    afxdp_offload_marks_destroy(m);
    ovsrcu_exit();
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-offload-marks", test_afxdp_offload_marks_main);
