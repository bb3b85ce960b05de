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

#include "afxdp-config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "bitmap.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "smap.h"
#include "util.h"

/* Spellings of enum afxdp_mode accepted in options:xdp-mode. */
static const char *const afxdp_mode_names[AFXDP_MODE_MAX] = {
    [AFXDP_MODE_UNSPEC] = "unspecified",
    [AFXDP_MODE_BEST_EFFORT] = "best-effort",
    [AFXDP_MODE_NATIVE_ZC] = "native-with-zerocopy",
    [AFXDP_MODE_NATIVE] = "native",
    [AFXDP_MODE_GENERIC] = "generic",
};

/* Every option key this provider knows.  Anything else is a typo that we
 * would otherwise silently ignore. */
static const char *const afxdp_option_keys[] = {
    "xdp-mode", "n_rxq", "start-queue", "use-need-wakeup", "xsk-ring-size",
    "umem-frames", "umem-hugepages", "rxq-xsk-mode", "busy-poll",
    "busy-poll-budget",
    "prefer-busy-poll", "rxq-busy-poll", "xdp-hints", "xdp-hints-dev-bound",
    "latency-sample", "tx-checksum-offload", "rx-checksum-partial",
    "tx-segmentation", "rx-gro",
};

static const char *const afxdp_hints_names[] = {
    [XDP_HINTS_OFF] = "off",
    [XDP_HINTS_TS] = "ts",
    [XDP_HINTS_TS_HASH] = "ts-hash",
};

static const char *const afxdp_xsk_mode_names[] = {
    [AFXDP_XSK_DEFAULT] = "default",
    [AFXDP_XSK_ZERO_COPY] = "zero-copy",
    [AFXDP_XSK_COPY] = "copy",
    [AFXDP_XSK_AUTO] = "auto",
};

const char *
afxdp_mode_to_string(enum afxdp_mode mode)
{
    return mode < AFXDP_MODE_MAX ? afxdp_mode_names[mode] : "invalid";
}

const char *
afxdp_hints_mode_to_string(enum xdp_hints_mode mode)
{
    return (mode < ARRAY_SIZE(afxdp_hints_names)
            ? afxdp_hints_names[mode] : "invalid");
}

const char *
afxdp_xsk_mode_to_string(enum afxdp_xsk_mode mode)
{
    return (mode < ARRAY_SIZE(afxdp_xsk_mode_names)
            ? afxdp_xsk_mode_names[mode] : "invalid");
}

/* Initializes 'cfg' with every option at its default. */
void
afxdp_config_init(struct afxdp_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->xdp_mode = AFXDP_MODE_BEST_EFFORT;
    cfg->use_need_wakeup = true;
    cfg->ring_size = AFXDP_CONFIG_DEFAULT_RING;
    cfg->ring_size_auto = true;
    cfg->umem_frames = 0;
    cfg->umem_hugepages = false;
    /* On: it changes only the packets whose checksum OVS would otherwise
     * finish in software, and a kernel without TX metadata turns it off
     * by itself (see afxdp-txcsum.h). */
    cfg->tx_csum_offload = true;
    /* Automatic: on where partial checksums can arrive (without it, TCP
     * and UDP from a sender with TX checksum offload on, a container's
     * default, arrive with wrong checksums: see afxdp-rxcsum.h), off on a
     * NIC, which spares each packet a look at its headers. */
    cfg->rx_csum_partial = true;
    cfg->rx_csum_partial_auto = true;
    /* The kernel: a TCP packet over the MTU leaves whole, as one GSO skb,
     * far cheaper than an skb per segment (see afxdp-txgso.h). */
    cfg->tx_seg_kernel = true;
    /* On: consecutive TCP segments received back to back, a NIC's or a
     * tunnel's, go through OVS and out of their port as one packet (see
     * afxdp-rxgro.h). */
    cfg->rx_gro = true;
    cfg->n_rxq = 0;
    cfg->start_queue = 0;
    cfg->busy_poll = 0;
    cfg->busy_poll_budget = AFXDP_CONFIG_DEFAULT_BUDGET;
    cfg->prefer_busy_poll = true;
    cfg->hints = XDP_HINTS_TS_HASH;
    /* Off by default: Linux 6.18 can oops when a device is unregistered
     * while a device-bound program is attached to it (see
     * Documentation/topics/afxdp-options.rst), and a switch does not
     * control when its devices go away. */
    cfg->hints_dev_bound = false;
    cfg->latency_sample = AFXDP_CONFIG_DEFAULT_LATENCY_SAMPLE;
    for (int i = 0; i < AFXDP_CONFIG_MAX_RXQ; i++) {
        cfg->rxq_mode[i] = AFXDP_XSK_DEFAULT;
        cfg->rxq_busy_poll[i] = -1;
    }
}

static char *
afxdp_config_bad_value(const char *devname, const char *key,
                       const char *value, const char *expected)
{
    return xasprintf("%s: invalid options:%s value '%s': expected %s",
                     devname, key, value, expected);
}

bool
afxdp_config_parse_uint(const char *value, unsigned long long min,
                        unsigned long long max, unsigned long long *out)
{
    unsigned long long x;
    char *end;

    if (!value[0] || value[0] == '-' || value[0] == '+') {
        return false;
    }
    errno = 0;
    x = strtoull(value, &end, 10);
    if (errno || *end || x < min || x > max) {
        return false;
    }
    *out = x;
    return true;
}

static int
afxdp_config_check_keys(const char *devname, const struct smap *args,
                        char **errp)
{
    const struct smap_node *node;

    SMAP_FOR_EACH (node, args) {
        bool known = false;

        for (size_t i = 0; i < ARRAY_SIZE(afxdp_option_keys); i++) {
            if (!strcmp(node->key, afxdp_option_keys[i])) {
                known = true;
                break;
            }
        }
        if (!known) {
            struct ds s = DS_EMPTY_INITIALIZER;

            for (size_t i = 0; i < ARRAY_SIZE(afxdp_option_keys); i++) {
                ds_put_format(&s, "%s%s", i ? ", " : "",
                              afxdp_option_keys[i]);
            }
            *errp = xasprintf("%s: unknown option '%s': afxdp ports accept "
                              "%s", devname, node->key, ds_cstr(&s));
            ds_destroy(&s);
            return EINVAL;
        }
    }
    return 0;
}

static int
afxdp_config_parse_mode(const char *devname, const char *value,
                        enum afxdp_mode *mode, char **errp)
{
    for (int i = AFXDP_MODE_BEST_EFFORT; i < AFXDP_MODE_MAX; i++) {
        if (!strcmp(value, afxdp_mode_names[i])) {
            *mode = i;
            return 0;
        }
    }
    *errp = afxdp_config_bad_value(devname, "xdp-mode", value,
                                   "best-effort, native-with-zerocopy, "
                                   "native or generic");
    return EINVAL;
}

/* Parses a per-queue list "Q:VALUE[,Q:VALUE...]" in option 'key' of port
 * 'devname'.  For each entry calls 'parse_value', which returns true if it
 * stored the value for queue Q.  'expected' describes VALUE for messages.
 * Returns 0 or EINVAL with a message in '*errp'. */
static int
afxdp_config_parse_list(const char *devname, const char *key,
                        const char *value, const char *expected,
                        bool (*parse_value)(struct afxdp_config *, int q,
                                            const char *),
                        struct afxdp_config *cfg, char **errp)
{
    unsigned long *seen = bitmap_allocate(AFXDP_CONFIG_MAX_RXQ);
    char *copy = xstrdup(value);
    char *entry, *next;
    int error = 0;

    /* Split by hand: strtok_r() would let empty entries ("0:copy,,")
     * through. */
    for (entry = copy; entry; entry = next) {
        char *colon;

        next = strchr(entry, ',');
        if (next) {
            *next++ = '\0';
        }
        colon = strchr(entry, ':');
        unsigned long long q;

        if (!colon) {
            error = EINVAL;
            break;
        }
        *colon = '\0';
        if (!afxdp_config_parse_uint(entry, 0, AFXDP_CONFIG_MAX_RXQ - 1, &q)
            || bitmap_is_set(seen, q)
            || !parse_value(cfg, q, colon + 1)) {
            error = EINVAL;
            break;
        }
        bitmap_set1(seen, q);
    }
    if (error) {
        char *what = xasprintf("a list of QUEUE:VALUE separated by commas, "
                               "each QUEUE (0 to 255) once, VALUE %s",
                               expected);

        *errp = afxdp_config_bad_value(devname, key, value, what);
        free(what);
    }
    free(copy);
    bitmap_free(seen);
    return error;
}

static bool
afxdp_config_set_rxq_mode(struct afxdp_config *cfg, int q, const char *v)
{
    for (int m = AFXDP_XSK_ZERO_COPY; m <= AFXDP_XSK_AUTO; m++) {
        if (!strcmp(v, afxdp_xsk_mode_names[m])) {
            cfg->rxq_mode[q] = m;
            return true;
        }
    }
    return false;
}

static bool
afxdp_config_set_rxq_busy_poll(struct afxdp_config *cfg, int q,
                               const char *v)
{
    unsigned long long x;

    if (!afxdp_config_parse_uint(v, 0, AFXDP_CONFIG_MAX_BUSY_POLL, &x)) {
        return false;
    }
    cfg->rxq_busy_poll[q] = x;
    return true;
}

static int
afxdp_config_parse_bool(const char *devname, const char *key,
                        const char *value, bool *out, char **errp)
{
    if (!strcmp(value, "true")) {
        *out = true;
    } else if (!strcmp(value, "false")) {
        *out = false;
    } else {
        *errp = afxdp_config_bad_value(devname, key, value, "true or false");
        return EINVAL;
    }
    return 0;
}

/* Parses the options of issue "queues": start-queue, per-queue socket
 * modes and busy polling. */
static int
afxdp_config_parse_queues(const char *devname, const struct smap *args,
                          struct afxdp_config *cfg, char **errp)
{
    unsigned long long x;
    const char *value;
    int error;

    value = smap_get(args, "start-queue");
    if (value) {
        if (!afxdp_config_parse_uint(value, 0, AFXDP_CONFIG_MAX_RXQ - 1,
                                     &x)) {
            *errp = afxdp_config_bad_value(devname, "start-queue", value,
                                           "an integer from 0 to 255");
            return EINVAL;
        }
        cfg->start_queue = x;
    }

    value = smap_get(args, "rxq-xsk-mode");
    if (value) {
        error = afxdp_config_parse_list(devname, "rxq-xsk-mode", value,
                                        "zero-copy, copy or auto",
                                        afxdp_config_set_rxq_mode, cfg, errp);
        if (error) {
            return error;
        }
    }
    if (cfg->xdp_mode == AFXDP_MODE_GENERIC) {
        for (int q = 0; q < AFXDP_CONFIG_MAX_RXQ; q++) {
            if (cfg->rxq_mode[q] == AFXDP_XSK_ZERO_COPY) {
                *errp = xasprintf("%s: options:rxq-xsk-mode asks zero-copy "
                                  "for queue %d, but zero-copy needs native "
                                  "XDP and options:xdp-mode is generic",
                                  devname, q);
                return EINVAL;
            }
        }
    }

    value = smap_get(args, "busy-poll");
    if (value) {
        if (!afxdp_config_parse_uint(value, 0, AFXDP_CONFIG_MAX_BUSY_POLL,
                                     &x)) {
            *errp = afxdp_config_bad_value(devname, "busy-poll", value,
                                           "microseconds from 0 (off) to "
                                           "1000000");
            return EINVAL;
        }
        cfg->busy_poll = x;
    }
    value = smap_get(args, "rxq-busy-poll");
    if (value) {
        error = afxdp_config_parse_list(devname, "rxq-busy-poll", value,
                                        "microseconds from 0 (off) to "
                                        "1000000",
                                        afxdp_config_set_rxq_busy_poll, cfg,
                                        errp);
        if (error) {
            return error;
        }
    }
    value = smap_get(args, "busy-poll-budget");
    if (value) {
        if (!afxdp_config_parse_uint(value, 1, UINT16_MAX, &x)) {
            *errp = afxdp_config_bad_value(devname, "busy-poll-budget",
                                           value, "an integer from 1 to "
                                           "65535");
            return EINVAL;
        }
        cfg->busy_poll_budget = x;
    }
    value = smap_get(args, "prefer-busy-poll");
    if (value) {
        error = afxdp_config_parse_bool(devname, "prefer-busy-poll", value,
                                        &cfg->prefer_busy_poll, errp);
        if (error) {
            return error;
        }
    }
    return 0;
}

/* Parses the XDP hints options. */
static int
afxdp_config_parse_hints(const char *devname, const struct smap *args,
                         struct afxdp_config *cfg, char **errp)
{
    const char *value = smap_get(args, "xdp-hints");

    if (value) {
        bool found = false;

        for (size_t i = 0; i < ARRAY_SIZE(afxdp_hints_names); i++) {
            if (!strcmp(value, afxdp_hints_names[i])) {
                cfg->hints = i;
                found = true;
            }
        }
        if (!found) {
            *errp = afxdp_config_bad_value(devname, "xdp-hints", value,
                                           "off, ts or ts-hash");
            return EINVAL;
        }
    }
    value = smap_get(args, "xdp-hints-dev-bound");
    if (value) {
        int error = afxdp_config_parse_bool(devname, "xdp-hints-dev-bound",
                                            value, &cfg->hints_dev_bound,
                                            errp);
        if (error) {
            return error;
        }
    }
    value = smap_get(args, "latency-sample");
    if (value) {
        unsigned long long x;

        if (!afxdp_config_parse_uint(value, 1,
                                     AFXDP_CONFIG_MAX_LATENCY_SAMPLE, &x)) {
            *errp = afxdp_config_bad_value(devname, "latency-sample", value,
                                           "an integer from 1 to 65536");
            return EINVAL;
        }
        cfg->latency_sample = x;
    }
    return 0;
}

/* Parses the options in 'args' of the port named 'devname' into '*cfg'
 * (options not given take their defaults).  Returns 0 on success.  On
 * failure returns EINVAL and stores in '*errp' a malloc'd message naming the
 * port, the option and the accepted values; '*cfg' is then unspecified. */
int
afxdp_config_parse(const char *devname, const struct smap *args,
                   struct afxdp_config *cfg, char **errp)
{
    unsigned long long x;
    const char *value;
    int error;

    *errp = NULL;
    afxdp_config_init(cfg);

    error = afxdp_config_check_keys(devname, args, errp);
    if (error) {
        return error;
    }

    value = smap_get(args, "xdp-mode");
    if (value) {
        error = afxdp_config_parse_mode(devname, value, &cfg->xdp_mode, errp);
        if (error) {
            return error;
        }
    }

    value = smap_get(args, "n_rxq");
    if (value) {
        if (!afxdp_config_parse_uint(value, 1, AFXDP_CONFIG_MAX_RXQ, &x)) {
            *errp = afxdp_config_bad_value(devname, "n_rxq", value,
                                           "an integer from 1 to 256");
            return EINVAL;
        }
        cfg->n_rxq = x;
    }

    value = smap_get(args, "tx-segmentation");
    if (value) {
        if (!strcmp(value, "kernel") || !strcmp(value, "port")) {
            cfg->tx_seg_kernel = !strcmp(value, "kernel");
        } else {
            *errp = afxdp_config_bad_value(devname, "tx-segmentation", value,
                                           "kernel or port");
            return EINVAL;
        }
    }

    /* The port's true/false options, checked in this order. */
    const struct {
        const char *key;
        bool *out;
    } bools[] = {
        { "use-need-wakeup", &cfg->use_need_wakeup },
        { "umem-hugepages", &cfg->umem_hugepages },
        { "tx-checksum-offload", &cfg->tx_csum_offload },
        { "rx-checksum-partial", &cfg->rx_csum_partial },
        { "rx-gro", &cfg->rx_gro },
    };
    for (size_t i = 0; i < ARRAY_SIZE(bools); i++) {
        value = smap_get(args, bools[i].key);
        if (value) {
            error = afxdp_config_parse_bool(devname, bools[i].key, value,
                                            bools[i].out, errp);
            if (error) {
                return error;
            }
        }
    }
    if (smap_get(args, "rx-checksum-partial")) {
        cfg->rx_csum_partial_auto = false;
    }

    value = smap_get(args, "xsk-ring-size");
    if (value) {
        if (!afxdp_config_parse_uint(value, AFXDP_CONFIG_MIN_RING,
                                     AFXDP_CONFIG_MAX_RING, &x)
            || !is_pow2(x)) {
            *errp = afxdp_config_bad_value(devname, "xsk-ring-size", value,
                                           "a power of two from 64 to "
                                           "16384");
            return EINVAL;
        }
        cfg->ring_size = x;
        cfg->ring_size_auto = false;
    }

    value = smap_get(args, "umem-frames");
    if (value) {
        uint32_t min = afxdp_config_min_frames(cfg, MAX(cfg->n_rxq, 1));

        if (!afxdp_config_parse_uint(value, 0, AFXDP_CONFIG_MAX_FRAMES, &x)
            || (x && x < min)) {
            char *expected = xasprintf("0 (automatic) or an integer from "
                                       "%"PRIu32" (for %d rx queue(s) and "
                                       "xsk-ring-size=%"PRIu32") to %u",
                                       min, MAX(cfg->n_rxq, 1),
                                       cfg->ring_size,
                                       AFXDP_CONFIG_MAX_FRAMES);
            *errp = afxdp_config_bad_value(devname, "umem-frames", value,
                                           expected);
            free(expected);
            return EINVAL;
        }
        cfg->umem_frames = x;
        if (x) {
            /* Frames chosen for the ring size: keep it. */
            cfg->ring_size_auto = false;
        }
    }
    error = afxdp_config_parse_queues(devname, args, cfg, errp);
    return error ? error : afxdp_config_parse_hints(devname, args, cfg, errp);
}

bool
afxdp_config_equals(const struct afxdp_config *a,
                    const struct afxdp_config *b)
{
    /* Both were set up by afxdp_config_init(), padding included. */
    return !memcmp(a, b, sizeof *a);
}

/* Appends to 'ds' the per-queue list of 'cfg' whose entries 'get' returns
 * as strings, or nothing if no queue is listed. */
static void
afxdp_config_list_to_smap(const struct afxdp_config *cfg, const char *key,
                          const char *(*get)(const struct afxdp_config *,
                                             int q, char buf[16]),
                          struct smap *args)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    char buf[16];

    for (int q = 0; q < AFXDP_CONFIG_MAX_RXQ; q++) {
        const char *v = get(cfg, q, buf);

        if (v) {
            ds_put_format(&s, "%s%d:%s", s.length ? "," : "", q, v);
        }
    }
    if (s.length) {
        smap_add(args, key, ds_cstr(&s));
    }
    ds_destroy(&s);
}

static const char *
afxdp_config_get_rxq_mode(const struct afxdp_config *cfg, int q,
                          char buf[16] OVS_UNUSED)
{
    return (cfg->rxq_mode[q] == AFXDP_XSK_DEFAULT ? NULL
            : afxdp_xsk_mode_names[cfg->rxq_mode[q]]);
}

static const char *
afxdp_config_get_rxq_busy_poll(const struct afxdp_config *cfg, int q,
                               char buf[16])
{
    if (cfg->rxq_busy_poll[q] < 0) {
        return NULL;
    }
    snprintf(buf, 16, "%"PRId32, cfg->rxq_busy_poll[q]);
    return buf;
}

/* Adds 'cfg' to 'args' in the form afxdp_config_parse() accepts. */
void
afxdp_config_to_smap(const struct afxdp_config *cfg, struct smap *args)
{
    smap_add(args, "xdp-mode", afxdp_mode_to_string(cfg->xdp_mode));
    if (cfg->n_rxq) {
        smap_add_format(args, "n_rxq", "%d", cfg->n_rxq);
    }
    smap_add_format(args, "start-queue", "%d", cfg->start_queue);
    smap_add(args, "use-need-wakeup", cfg->use_need_wakeup ? "true" : "false");
    if (!cfg->ring_size_auto) {
        smap_add_format(args, "xsk-ring-size", "%"PRIu32, cfg->ring_size);
    }
    smap_add_format(args, "umem-frames", "%"PRIu32, cfg->umem_frames);
    smap_add(args, "umem-hugepages", cfg->umem_hugepages ? "true" : "false");
    smap_add(args, "tx-checksum-offload",
             cfg->tx_csum_offload ? "true" : "false");
    if (!cfg->rx_csum_partial_auto) {
        smap_add(args, "rx-checksum-partial",
                 cfg->rx_csum_partial ? "true" : "false");
    }
    smap_add(args, "tx-segmentation", cfg->tx_seg_kernel ? "kernel" : "port");
    smap_add(args, "rx-gro", cfg->rx_gro ? "true" : "false");
    smap_add_format(args, "busy-poll", "%"PRIu32, cfg->busy_poll);
    smap_add_format(args, "busy-poll-budget", "%"PRIu16,
                    cfg->busy_poll_budget);
    smap_add(args, "prefer-busy-poll",
             cfg->prefer_busy_poll ? "true" : "false");
    smap_add(args, "xdp-hints", afxdp_hints_mode_to_string(cfg->hints));
    smap_add(args, "xdp-hints-dev-bound",
             cfg->hints_dev_bound ? "true" : "false");
    smap_add_format(args, "latency-sample", "%"PRIu32, cfg->latency_sample);
    afxdp_config_list_to_smap(cfg, "rxq-xsk-mode", afxdp_config_get_rxq_mode,
                              args);
    afxdp_config_list_to_smap(cfg, "rxq-busy-poll",
                              afxdp_config_get_rxq_busy_poll, args);
}

/* Returns the highest queue id named in a per-queue option, or -1. */
int
afxdp_config_max_listed_queue(const struct afxdp_config *cfg)
{
    for (int q = AFXDP_CONFIG_MAX_RXQ - 1; q >= 0; q--) {
        if (cfg->rxq_mode[q] != AFXDP_XSK_DEFAULT
            || cfg->rxq_busy_poll[q] >= 0) {
            return q;
        }
    }
    return -1;
}

/* Returns how rx queue 'rxq' asks its socket to bind. */
enum afxdp_xsk_mode
afxdp_config_queue_mode(const struct afxdp_config *cfg, int rxq)
{
    if (cfg->rxq_mode[rxq] != AFXDP_XSK_DEFAULT) {
        return cfg->rxq_mode[rxq];
    }
    switch (cfg->xdp_mode) {
    case AFXDP_MODE_NATIVE_ZC:
        return AFXDP_XSK_ZERO_COPY;
    case AFXDP_MODE_NATIVE:
    case AFXDP_MODE_GENERIC:
        return AFXDP_XSK_COPY;
    case AFXDP_MODE_BEST_EFFORT:
    case AFXDP_MODE_UNSPEC:
    case AFXDP_MODE_MAX:
    default:
        return AFXDP_XSK_AUTO;
    }
}

/* Stores the busy-poll settings of rx queue 'rxq' in '*bp'. */
void
afxdp_config_queue_busy_poll(const struct afxdp_config *cfg, int rxq,
                             struct afxdp_busy_poll *bp)
{
    bp->usecs = (cfg->rxq_busy_poll[rxq] >= 0 ? cfg->rxq_busy_poll[rxq]
                 : cfg->busy_poll);
    bp->budget = cfg->busy_poll_budget;
    bp->prefer = cfg->prefer_busy_poll;
}

/* Returns the ring size a port configured as 'cfg' uses, on a veth if
 * 'veth', once found 'busy': options:xsk-ring-size if given; otherwise,
 * unless options:umem-frames is given (which is sized for a ring size),
 * other devices' rings are AFXDP_CONFIG_DEFAULT_RING entries and a veth's
 * AFXDP_CONFIG_VETH_IDLE_RING until it is busy, AFXDP_CONFIG_VETH_RING
 * then.  A container's veth is not a 100G NIC, and most pods idle: with
 * 64-entry rings a port's UMEM is 224 frames (0.9 MiB).  A busy pod's TCP
 * needs more (128 and 256 entries lost segments under TCP bursts of GSO
 * packets); with 512 it measured as with 2048, for a quarter of the
 * memory (6 MiB of UMEM instead of 24). */
uint32_t
afxdp_config_ring_for(const struct afxdp_config *cfg, bool veth, bool busy)
{
    return (!afxdp_config_ring_can_grow(cfg, veth) ? cfg->ring_size
            : busy ? AFXDP_CONFIG_VETH_RING
            : AFXDP_CONFIG_VETH_IDLE_RING);
}

/* Whether a port configured as 'cfg', on a veth if 'veth', starts with
 * small rings that grow once it is busy (see afxdp_config_ring_for()). */
bool
afxdp_config_ring_can_grow(const struct afxdp_config *cfg, bool veth)
{
    return cfg->ring_size_auto && veth;
}

/* Whether a port configured as 'cfg', whose received frames come from
 * 'src', looks for pseudo-header-only checksums in them (afxdp-rxcsum.h):
 * options:rx-checksum-partial if given; otherwise wherever a sender's
 * partial checksum can reach the port.  A NIC's frames in native mode come
 * from a wire, whose senders' NICs completed their checksums, and the
 * look at each packet's headers (about 50 instructions a packet) is
 * saved. */
bool
afxdp_config_rx_csum_for(const struct afxdp_config *cfg,
                         enum afxdp_rx_csum_source src)
{
    return (cfg->rx_csum_partial_auto ? src != AFXDP_RX_CSUM_NIC
            : cfg->rx_csum_partial);
}

/* Says, for the status, why afxdp_config_rx_csum_for() chose as it did
 * for 'src' while automatic. */
const char *
afxdp_config_rx_csum_reason(enum afxdp_rx_csum_source src)
{
    switch (src) {
    case AFXDP_RX_CSUM_VETH:
        return "veth: its peer's packets keep the partial checksums their "
               "senders left";
    case AFXDP_RX_CSUM_TAP:
        return "tap: its writer's packets may carry partial checksums";
    case AFXDP_RX_CSUM_GENERIC:
        return "generic XDP: the kernel's packets may carry partial "
               "checksums";
    case AFXDP_RX_CSUM_NIC:
    default:
        return "native XDP on a NIC: frames from the wire carry complete "
               "checksums";
    }
}

/* Returns the fewest UMEM frames that let every queue keep its fill ring
 * full and its tx ring full at the same time, plus one rx batch per queue
 * in OVS.  Fewer would starve one direction by design. */
uint32_t
afxdp_config_min_frames(const struct afxdp_config *cfg, int n_rxq)
{
    uint64_t per_queue = 2 * (uint64_t) cfg->ring_size + 32;

    return MIN(per_queue * n_rxq, AFXDP_CONFIG_MAX_FRAMES);
}

/* Returns the number of UMEM frames the port uses: options:umem-frames if
 * set, otherwise the minimum plus a ring's worth of frames per queue for
 * packets held in OVS (queued for output, in tx batches of other ports). */
uint32_t
afxdp_config_n_frames(const struct afxdp_config *cfg, int n_rxq)
{
    uint64_t n;

    if (cfg->umem_frames) {
        return cfg->umem_frames;
    }
    n = (afxdp_config_min_frames(cfg, n_rxq)
         + (uint64_t) cfg->ring_size * n_rxq);
    return MIN(n, AFXDP_CONFIG_MAX_FRAMES);
}
