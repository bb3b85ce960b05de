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

/* Unit tests of afxdp port option parsing (lib/afxdp-config.c) and of
 * where each requested mode tries XDP (lib/afxdp-mode-plan.c).
 *
 * Usage: ovstest test-afxdp-config
 * Needs no privileges.  Prints one line per check group and "PASS" at the
 * end; any failed check aborts with the failing expression. */

#include <config.h>
#undef NDEBUG

#include <errno.h>
#include <string.h>

#include "afxdp-config.h"
#include "afxdp-mode-plan.h"
#include "ovstest.h"
#include "smap.h"
#include "util.h"

/* Parses 'key'='value' alone on port "p0"; returns the error and stores
 * the config in '*cfg' and the message (or NULL) in '*msg'. */
static int
parse1(const char *key, const char *value, struct afxdp_config *cfg,
       char **msg)
{
    struct smap args = SMAP_INITIALIZER(&args);
    int error;

    smap_add(&args, key, value);
    error = afxdp_config_parse("p0", &args, cfg, msg);
    smap_destroy(&args);
    return error;
}

/* Checks that 'key'='value' is rejected with a message naming the port, the
 * option and containing 'expected'. */
static void
check_bad(const char *key, const char *value, const char *expected)
{
    struct afxdp_config cfg;
    char *option = xasprintf("options:%s", key);
    char *msg = NULL;

    ovs_assert(parse1(key, value, &cfg, &msg) == EINVAL);
    ovs_assert(msg);
    if (!strstr(msg, "p0: ") || !strstr(msg, option)
        || !strstr(msg, expected) || !strstr(msg, value)) {
        ovs_fatal(0, "bad message for %s=%s: %s", key, value, msg);
    }
    free(option);
    free(msg);
}

static void
test_defaults(void)
{
    struct smap args = SMAP_INITIALIZER(&args);
    struct afxdp_config cfg, def;
    char *msg = NULL;

    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(!msg);
    afxdp_config_init(&def);
    ovs_assert(afxdp_config_equals(&cfg, &def));
    ovs_assert(cfg.xdp_mode == AFXDP_MODE_BEST_EFFORT);
    ovs_assert(cfg.n_rxq == 0);     /* All the device's queues. */
    ovs_assert(cfg.start_queue == 0);
    ovs_assert(cfg.latency_sample == AFXDP_CONFIG_DEFAULT_LATENCY_SAMPLE);
    ovs_assert(cfg.use_need_wakeup);
    ovs_assert(cfg.ring_size == AFXDP_CONFIG_DEFAULT_RING);
    ovs_assert(cfg.umem_frames == 0);
    ovs_assert(cfg.busy_poll == 0);
    ovs_assert(cfg.busy_poll_budget == AFXDP_CONFIG_DEFAULT_BUDGET);
    ovs_assert(cfg.prefer_busy_poll);
    ovs_assert(afxdp_config_max_listed_queue(&cfg) == -1);
    ovs_assert(afxdp_config_n_frames(&cfg, 1)
               > afxdp_config_min_frames(&cfg, 1));
    ovs_assert(afxdp_config_n_frames(&cfg, 4)
               == 4 * afxdp_config_n_frames(&cfg, 1));
    smap_destroy(&args);
    printf("defaults: ok\n");
}

static void
test_good_values(void)
{
    static const struct {
        const char *value;
        enum afxdp_mode mode;
    } modes[] = {
        { "best-effort", AFXDP_MODE_BEST_EFFORT },
        { "native-with-zerocopy", AFXDP_MODE_NATIVE_ZC },
        { "native", AFXDP_MODE_NATIVE },
        { "generic", AFXDP_MODE_GENERIC },
    };
    struct afxdp_config cfg;
    char *msg;

    for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
        ovs_assert(!parse1("xdp-mode", modes[i].value, &cfg, &msg));
        ovs_assert(cfg.xdp_mode == modes[i].mode);
        ovs_assert(!strcmp(afxdp_mode_to_string(cfg.xdp_mode),
                           modes[i].value));
    }
    ovs_assert(!parse1("n_rxq", "1", &cfg, &msg) && cfg.n_rxq == 1);
    ovs_assert(!parse1("n_rxq", "256", &cfg, &msg) && cfg.n_rxq == 256);
    ovs_assert(!parse1("use-need-wakeup", "false", &cfg, &msg)
               && !cfg.use_need_wakeup);
    ovs_assert(!parse1("use-need-wakeup", "true", &cfg, &msg)
               && cfg.use_need_wakeup);
    ovs_assert(!parse1("xsk-ring-size", "64", &cfg, &msg)
               && cfg.ring_size == 64);
    ovs_assert(!parse1("xsk-ring-size", "16384", &cfg, &msg)
               && cfg.ring_size == 16384);
    ovs_assert(!parse1("umem-frames", "0", &cfg, &msg)
               && cfg.umem_frames == 0);
    ovs_assert(!parse1("umem-frames", "100000", &cfg, &msg)
               && cfg.umem_frames == 100000
               && afxdp_config_n_frames(&cfg, 3) == 100000);
    ovs_assert(!parse1("start-queue", "255", &cfg, &msg)
               && cfg.start_queue == 255);
    ovs_assert(!parse1("busy-poll", "50", &cfg, &msg)
               && cfg.busy_poll == 50);
    ovs_assert(!parse1("busy-poll-budget", "16", &cfg, &msg)
               && cfg.busy_poll_budget == 16);
    ovs_assert(!parse1("prefer-busy-poll", "false", &cfg, &msg)
               && !cfg.prefer_busy_poll);
    ovs_assert(!parse1("latency-sample", "1", &cfg, &msg)
               && cfg.latency_sample == 1);
    ovs_assert(!parse1("latency-sample", "65536", &cfg, &msg)
               && cfg.latency_sample == 65536);
    printf("good values: ok\n");
}

static void
test_bad_values(void)
{
    const char *modes = "best-effort, native-with-zerocopy, native or generic";

    check_bad("xdp-mode", "foo", modes);
    check_bad("xdp-mode", "", modes);
    check_bad("xdp-mode", "Native", modes);
    check_bad("xdp-mode", "drv", modes);
    check_bad("n_rxq", "0", "an integer from 1 to 256");
    check_bad("n_rxq", "257", "an integer from 1 to 256");
    check_bad("n_rxq", "-1", "an integer from 1 to 256");
    check_bad("n_rxq", "2x", "an integer from 1 to 256");
    check_bad("n_rxq", "", "an integer from 1 to 256");
    check_bad("n_rxq", "99999999999999999999", "an integer from 1 to 256");
    check_bad("use-need-wakeup", "yes", "true or false");
    check_bad("use-need-wakeup", "1", "true or false");
    check_bad("xsk-ring-size", "100", "a power of two from 64 to 16384");
    check_bad("xsk-ring-size", "32", "a power of two from 64 to 16384");
    check_bad("xsk-ring-size", "32768", "a power of two from 64 to 16384");
    check_bad("umem-frames", "10", "0 (automatic) or an integer from");
    check_bad("umem-frames", "abc", "0 (automatic) or an integer from");
    check_bad("umem-frames", "99999999", "0 (automatic) or an integer from");
    check_bad("start-queue", "256", "an integer from 0 to 255");
    check_bad("start-queue", "-1", "an integer from 0 to 255");
    check_bad("busy-poll", "1000001", "microseconds from 0 (off) to 1000000");
    check_bad("busy-poll", "fast", "microseconds from 0 (off) to 1000000");
    check_bad("busy-poll-budget", "0", "an integer from 1 to 65535");
    check_bad("busy-poll-budget", "65536", "an integer from 1 to 65535");
    check_bad("prefer-busy-poll", "yes", "true or false");
    check_bad("rx-gro", "on", "true or false");
    check_bad("latency-sample", "0", "an integer from 1 to 65536");
    check_bad("latency-sample", "65537", "an integer from 1 to 65536");
    check_bad("latency-sample", "1/16", "an integer from 1 to 65536");
    for (size_t i = 0; i < 7; i++) {
        static const char *const bad_lists[] = {
            "0-copy", "x:copy", "0:fast", "0:copy,0:auto", "256:copy",
            "", "0:copy,,",
        };

        check_bad("rxq-xsk-mode", bad_lists[i], "QUEUE:VALUE");
    }
    check_bad("rxq-busy-poll", "0:-5", "QUEUE:VALUE");
    check_bad("rxq-busy-poll", "1:2000000", "QUEUE:VALUE");
    printf("bad values: ok\n");
}

static void
test_unknown_key(void)
{
    struct afxdp_config cfg;
    char *msg = NULL;

    ovs_assert(parse1("xdp-mod", "native", &cfg, &msg) == EINVAL);
    ovs_assert(strstr(msg, "p0: unknown option 'xdp-mod'"));
    ovs_assert(strstr(msg, "xdp-mode"));
    free(msg);
    printf("unknown key: ok\n");
}

/* The minimum of umem-frames follows n_rxq and xsk-ring-size, whatever the
 * order the options come in. */
static void
test_min_frames(void)
{
    struct smap args = SMAP_INITIALIZER(&args);
    struct afxdp_config cfg;
    uint32_t min;
    char *msg = NULL;

    smap_add(&args, "n_rxq", "4");
    smap_add(&args, "xsk-ring-size", "256");
    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    min = afxdp_config_min_frames(&cfg, 4);
    ovs_assert(min == 4 * (2 * 256 + 32));

    smap_add_format(&args, "umem-frames", "%"PRIu32, min - 1);
    ovs_assert(afxdp_config_parse("p0", &args, &cfg, &msg) == EINVAL);
    ovs_assert(strstr(msg, "4 rx queue(s)")
               && strstr(msg, "xsk-ring-size=256"));
    free(msg);
    msg = NULL;

    smap_replace_nocopy(&args, "umem-frames", xasprintf("%"PRIu32, min));
    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(afxdp_config_n_frames(&cfg, 4) == min);
    smap_destroy(&args);
    printf("umem-frames minimum: ok\n");
}

/* The ring size in use: on a veth 64 until busy and 512 then, 2048
 * elsewhere by default, what options:xsk-ring-size says when given, and
 * the configured one when options:umem-frames fixes the frames; only the
 * automatic size on a veth grows. */
/* get_config of 'cfg' has no 'key', and parses back to 'cfg'. */
static void
check_left_out(const struct afxdp_config *cfg, const char *key)
{
    struct smap out = SMAP_INITIALIZER(&out);
    struct afxdp_config back;
    char *msg = NULL;

    afxdp_config_to_smap(cfg, &out);
    ovs_assert(!smap_get(&out, key));
    ovs_assert(!afxdp_config_parse("p0", &out, &back, &msg));
    ovs_assert(afxdp_config_equals(cfg, &back));
    smap_destroy(&out);
}

static void
test_ring_for(void)
{
    struct smap args = SMAP_INITIALIZER(&args);
    struct afxdp_config cfg;
    char *msg = NULL;

    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(cfg.ring_size_auto);
    ovs_assert(afxdp_config_ring_for(&cfg, true, false)
               == AFXDP_CONFIG_VETH_IDLE_RING);
    ovs_assert(afxdp_config_ring_for(&cfg, true, true)
               == AFXDP_CONFIG_VETH_RING);
    ovs_assert(afxdp_config_ring_can_grow(&cfg, true));
    ovs_assert(!afxdp_config_ring_can_grow(&cfg, false));
    ovs_assert(afxdp_config_ring_for(&cfg, false, false)
               == AFXDP_CONFIG_DEFAULT_RING);
    ovs_assert(afxdp_config_ring_for(&cfg, false, true)
               == AFXDP_CONFIG_DEFAULT_RING);
    /* An idle veth's UMEM: under 1 MiB. */
    {
        struct afxdp_config sized = cfg;

        sized.ring_size = afxdp_config_ring_for(&cfg, true, false);
        ovs_assert((uint64_t) afxdp_config_n_frames(&sized, 1)
                   * AFXDP_CONFIG_FRAME_SIZE < 1024 * 1024);
    }
    /* get_config leaves the ring size out while it is automatic. */
    check_left_out(&cfg, "xsk-ring-size");

    smap_add(&args, "xsk-ring-size", "2048");
    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(!cfg.ring_size_auto);
    ovs_assert(!afxdp_config_ring_can_grow(&cfg, true));
    ovs_assert(afxdp_config_ring_for(&cfg, true, false) == 2048);
    smap_clear(&args);

    smap_add(&args, "umem-frames", "8192");
    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(afxdp_config_ring_for(&cfg, true, false)
               == AFXDP_CONFIG_DEFAULT_RING);
    smap_replace(&args, "umem-frames", "0");
    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(afxdp_config_ring_for(&cfg, true, false)
               == AFXDP_CONFIG_VETH_IDLE_RING);
    smap_destroy(&args);
    printf("ring size per device: ok\n");
}

/* The receive checksum check: automatic (on wherever partial checksums
 * can arrive, off on a NIC in native mode) until the option is given,
 * which then decides everywhere. */
static void
test_rx_csum_for(void)
{
    static const enum afxdp_rx_csum_source all[] = {
        AFXDP_RX_CSUM_NIC, AFXDP_RX_CSUM_VETH, AFXDP_RX_CSUM_TAP,
        AFXDP_RX_CSUM_GENERIC,
    };
    struct smap args = SMAP_INITIALIZER(&args);
    struct afxdp_config cfg;
    char *msg = NULL;

    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(cfg.rx_csum_partial_auto);
    ovs_assert(!afxdp_config_rx_csum_for(&cfg, AFXDP_RX_CSUM_NIC));
    ovs_assert(afxdp_config_rx_csum_for(&cfg, AFXDP_RX_CSUM_VETH));
    ovs_assert(afxdp_config_rx_csum_for(&cfg, AFXDP_RX_CSUM_TAP));
    ovs_assert(afxdp_config_rx_csum_for(&cfg, AFXDP_RX_CSUM_GENERIC));
    for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
        ovs_assert(afxdp_config_rx_csum_reason(all[i])[0]);
    }
    /* get_config leaves it out while automatic. */
    check_left_out(&cfg, "rx-checksum-partial");

    for (int on = 0; on < 2; on++) {
        smap_replace(&args, "rx-checksum-partial", on ? "true" : "false");
        ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
        ovs_assert(!cfg.rx_csum_partial_auto);
        for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
            ovs_assert(afxdp_config_rx_csum_for(&cfg, all[i]) == on);
        }
        struct smap out = SMAP_INITIALIZER(&out);

        afxdp_config_to_smap(&cfg, &out);
        ovs_assert(!strcmp(smap_get(&out, "rx-checksum-partial"),
                           on ? "true" : "false"));
        smap_destroy(&out);
    }
    smap_destroy(&args);
    printf("rx checksum check per device: ok\n");
}

/* What get_config reports parses back to the same configuration. */
static void
test_round_trip(void)
{
    struct smap args = SMAP_INITIALIZER(&args);
    struct smap out = SMAP_INITIALIZER(&out);
    struct afxdp_config a, b;
    char *msg = NULL;

    smap_add(&args, "xdp-mode", "generic");
    smap_add(&args, "n_rxq", "3");
    smap_add(&args, "use-need-wakeup", "false");
    smap_add(&args, "xsk-ring-size", "512");
    smap_add(&args, "start-queue", "1");
    smap_add(&args, "rxq-xsk-mode", "2:copy,0:auto");
    smap_add(&args, "busy-poll", "20");
    smap_add(&args, "rxq-busy-poll", "1:0,2:100");
    smap_add(&args, "latency-sample", "100");
    ovs_assert(!afxdp_config_parse("p0", &args, &a, &msg));
    afxdp_config_to_smap(&a, &out);
    ovs_assert(!afxdp_config_parse("p0", &out, &b, &msg));
    ovs_assert(afxdp_config_equals(&a, &b));
    smap_destroy(&args);
    smap_destroy(&out);
    printf("round trip: ok\n");
}

/* Per-queue socket modes: explicit entries win, the rest follow
 * xdp-mode; zero-copy cannot go with generic XDP. */
static void
test_queue_modes(void)
{
    struct smap args = SMAP_INITIALIZER(&args);
    struct afxdp_busy_poll bp;
    struct afxdp_config cfg;
    char *msg = NULL;

    smap_add(&args, "rxq-xsk-mode", "1:auto,3:zero-copy");
    smap_add(&args, "xdp-mode", "native");
    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(afxdp_config_queue_mode(&cfg, 0) == AFXDP_XSK_COPY);
    ovs_assert(afxdp_config_queue_mode(&cfg, 1) == AFXDP_XSK_AUTO);
    ovs_assert(afxdp_config_queue_mode(&cfg, 2) == AFXDP_XSK_COPY);
    ovs_assert(afxdp_config_queue_mode(&cfg, 3) == AFXDP_XSK_ZERO_COPY);
    ovs_assert(afxdp_config_max_listed_queue(&cfg) == 3);

    smap_replace(&args, "xdp-mode", "best-effort");
    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(afxdp_config_queue_mode(&cfg, 0) == AFXDP_XSK_AUTO);
    smap_replace(&args, "xdp-mode", "native-with-zerocopy");
    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    ovs_assert(afxdp_config_queue_mode(&cfg, 0) == AFXDP_XSK_ZERO_COPY);

    smap_replace(&args, "xdp-mode", "generic");
    ovs_assert(afxdp_config_parse("p0", &args, &cfg, &msg) == EINVAL);
    ovs_assert(strstr(msg, "p0: ") && strstr(msg, "options:rxq-xsk-mode")
               && strstr(msg, "zero-copy needs native XDP"));
    free(msg);
    msg = NULL;

    smap_clear(&args);
    smap_add(&args, "busy-poll", "50");
    smap_add(&args, "rxq-busy-poll", "1:0");
    smap_add(&args, "busy-poll-budget", "16");
    ovs_assert(!afxdp_config_parse("p0", &args, &cfg, &msg));
    afxdp_config_queue_busy_poll(&cfg, 0, &bp);
    ovs_assert(bp.usecs == 50 && bp.budget == 16 && bp.prefer);
    afxdp_config_queue_busy_poll(&cfg, 1, &bp);
    ovs_assert(bp.usecs == 0);
    smap_destroy(&args);
    printf("per-queue modes and busy polling: ok\n");
}

/* best-effort: generic first on a veth (its peer keeps TSO and GSO), native
 * first elsewhere; an explicit mode alone; a reason for each outcome. */
static void
test_mode_plan(void)
{
    struct afxdp_mode_plan plan;
    const char *why;

    afxdp_mode_plan_make(AFXDP_MODE_BEST_EFFORT, true, &plan);
    ovs_assert(plan.n_modes == 2);
    ovs_assert(plan.modes[0] == AFXDP_XDP_GENERIC);
    ovs_assert(plan.modes[1] == AFXDP_XDP_NATIVE);
    why = afxdp_mode_plan_reason(&plan, AFXDP_XDP_GENERIC);
    ovs_assert(strstr(why, "veth") && strstr(why, "GSO"));
    why = afxdp_mode_plan_reason(&plan, AFXDP_XDP_NATIVE);
    ovs_assert(strstr(why, "generic XDP failed"));

    afxdp_mode_plan_make(AFXDP_MODE_BEST_EFFORT, false, &plan);
    ovs_assert(plan.n_modes == 2);
    ovs_assert(plan.modes[0] == AFXDP_XDP_NATIVE);
    ovs_assert(plan.modes[1] == AFXDP_XDP_GENERIC);
    why = afxdp_mode_plan_reason(&plan, AFXDP_XDP_NATIVE);
    ovs_assert(strstr(why, "zero-copy"));
    why = afxdp_mode_plan_reason(&plan, AFXDP_XDP_GENERIC);
    ovs_assert(strstr(why, "no native XDP"));

    for (int veth = 0; veth < 2; veth++) {
        afxdp_mode_plan_make(AFXDP_MODE_NATIVE, veth, &plan);
        ovs_assert(plan.n_modes == 1 && plan.modes[0] == AFXDP_XDP_NATIVE);
        afxdp_mode_plan_make(AFXDP_MODE_NATIVE_ZC, veth, &plan);
        ovs_assert(plan.n_modes == 1 && plan.modes[0] == AFXDP_XDP_NATIVE);
        afxdp_mode_plan_make(AFXDP_MODE_GENERIC, veth, &plan);
        ovs_assert(plan.n_modes == 1 && plan.modes[0] == AFXDP_XDP_GENERIC);
        why = afxdp_mode_plan_reason(&plan, AFXDP_XDP_GENERIC);
        ovs_assert(strstr(why, "options:xdp-mode"));
    }
    printf("mode plan per device: ok\n");
}

static void
test_afxdp_config_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    test_defaults();
    test_good_values();
    test_bad_values();
    test_unknown_key();
    test_min_frames();
    test_ring_for();
    test_rx_csum_for();
    test_round_trip();
    test_queue_modes();
    test_mode_plan();
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-config", test_afxdp_config_main);
