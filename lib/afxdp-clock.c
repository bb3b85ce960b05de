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

#include "afxdp-clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "openvswitch/vlog.h"
#include "ovs-thread.h"

VLOG_DEFINE_THIS_MODULE(afxdp_clock);

#define AFXDP_CLOCKSOURCE \
    "/sys/devices/system/clocksource/clocksource0/current_clocksource"

/* True if the kernel keeps time with the TSC (see the top of the header). */
static bool
afxdp_clock_tsc_usable(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    static bool usable;

    if (ovsthread_once_start(&once)) {
#if defined(__x86_64__)
        char name[32] = "";
        FILE *f = fopen(AFXDP_CLOCKSOURCE, "r");

        if (f) {
            if (!fgets(name, sizeof name, f)) {
                name[0] = '\0';
            }
            fclose(f);
        }
        name[strcspn(name, "\n")] = '\0';
        usable = !strcmp(name, "tsc");
        VLOG_DBG("clocksource \"%s\": latency timestamps %s", name,
                 usable ? "from the TSC" : "from clock_gettime()");
#endif
        ovsthread_once_done(&once);
    }
    return usable;
}

void
afxdp_clock_init(struct afxdp_clock *c)
{
    memset(c, 0, sizeof *c);
    c->tsc = afxdp_clock_tsc_usable();
}

static uint64_t
afxdp_clock_gettime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Reads CLOCK_MONOTONIC into '*ns' and returns the TSC at the same moment:
 * the middle of two TSC reads around it.  Of AFXDP_CLOCK_TRIES reads, the
 * one with the two TSC reads closest together, so that a thread preempted
 * or interrupted during one of them still gets a close pair. */
#define AFXDP_CLOCK_TRIES 3
#if defined(__x86_64__)
static uint64_t
afxdp_clock_pair(uint64_t *ns)
{
    uint64_t best_tsc = 0, best_width = UINT64_MAX;

    for (int i = 0; i < AFXDP_CLOCK_TRIES; i++) {
        uint64_t t1 = __builtin_ia32_rdtsc();
        uint64_t n = afxdp_clock_gettime();
        uint64_t t2 = __builtin_ia32_rdtsc();

        if (t2 - t1 < best_width) {
            best_width = t2 - t1;
            best_tsc = t1 + best_width / 2;
            *ns = n;
        }
    }
    return best_tsc;
}
#endif

/* Reads CLOCK_MONOTONIC, and takes it as the new anchor of 'c' with the
 * TSC read around it: the rate is the anchors' ratio once they are
 * AFXDP_CLOCK_SPAN_NS apart, and a TSC that went backwards (which a usable
 * TSC does not do) starts the measurement again. */
uint64_t
afxdp_clock_anchor__(struct afxdp_clock *c)
{
#if defined(__x86_64__)
    if (c->tsc) {
        uint64_t ns = 0;
        uint64_t tsc = afxdp_clock_pair(&ns);

        if (!c->tsc0 || tsc <= c->tsc0 || ns < c->ns0) {
            c->mult = 0;
        } else if (ns - c->ns0 >= AFXDP_CLOCK_SPAN_NS) {
            unsigned __int128 elapsed = ns - c->ns0;

            c->mult = (elapsed << 32) / (tsc - c->tsc0);
            c->span = c->mult
                      ? ((unsigned __int128) AFXDP_CLOCK_SPAN_NS << 32)
                        / c->mult
                      : 0;
        } else {
            /* Too soon to measure: keep the older anchor. */
            return ns;
        }
        c->tsc0 = tsc;
        c->ns0 = ns;
        return ns;
    }
#endif
    return afxdp_clock_gettime();
}
