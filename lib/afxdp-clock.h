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

#ifndef AFXDP_CLOCK_H
#define AFXDP_CLOCK_H 1

/* CLOCK_MONOTONIC, read cheaply on the PMD fast path.
 *
 * The latency statistics compare XDP-hint timestamps, which our XDP program
 * takes with bpf_ktime_get_ns() (CLOCK_MONOTONIC), with the time a PMD
 * takes a batch off an rx ring or puts it on a tx ring.  That is a clock
 * read per batch on each side; through the vDSO each costs tens of
 * nanoseconds (more when its data has left the cache), a measurable part
 * of the cost of hints at 64-byte line rate.
 *
 * So, on x86-64 where the kernel itself keeps time with the TSC (its
 * clocksource is "tsc", which it picks only when the TSC runs at a constant
 * rate and agrees across CPUs), afxdp_clock_now() reads the TSC and scales
 * it:
 *
 *     now = ns0 + (tsc - tsc0) * mult / 2^32
 *
 * from an anchor (tsc0, ns0), a TSC and a clock_gettime() read together.
 * The anchor is taken again once AFXDP_CLOCK_SPAN_NS have passed, and
 * 'mult' is measured between consecutive anchors, so the scaled time
 * follows CLOCK_MONOTONIC's rate, NTP slewing included.  Its error stays
 * within a few tens of nanoseconds (the rate is measured over at least
 * AFXDP_CLOCK_SPAN_NS), far below the latencies measured.  Until the first
 * rate is known, and on other machines, each call is a clock_gettime().
 *
 * A 'struct afxdp_clock' has one user at a time (it is updated when read):
 * the receive and the send half of a queue each have their own. */

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

/* Time between anchors. */
#define AFXDP_CLOCK_SPAN_NS (50 * 1000 * 1000)

struct afxdp_clock {
    uint64_t tsc0;              /* TSC at the anchor. */
    uint64_t ns0;               /* CLOCK_MONOTONIC at the anchor. */
    uint64_t mult;              /* Nanoseconds per tick, times 2^32; 0
                                 * while unknown or without a usable TSC. */
    uint64_t span;              /* Ticks after 'tsc0' to anchor again. */
    bool tsc;                   /* Use the TSC at all. */
};

void afxdp_clock_init(struct afxdp_clock *);
uint64_t afxdp_clock_anchor__(struct afxdp_clock *);

/* Returns CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t
afxdp_clock_now(struct afxdp_clock *c)
{
#if defined(__x86_64__)
    if (OVS_LIKELY(c->mult)) {
        uint64_t ticks = __builtin_ia32_rdtsc() - c->tsc0;

        if (OVS_LIKELY(ticks < c->span)) {
            /* About the nanoseconds since the anchor times 2^32: below
             * 2^58 within AFXDP_CLOCK_SPAN_NS. */
            return c->ns0 + ((ticks * c->mult) >> 32);
        }
    }
#endif
    return afxdp_clock_anchor__(c);
}

#endif /* afxdp-clock.h */
