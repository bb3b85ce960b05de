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

/* libFuzzer target for the option parser of afxdp ports
 * (lib/afxdp-config.c): Interface options, as OVS hands them over in an
 * smap, to a configuration or an error message.
 *
 * The input is the options, one "key=value" per line (a line without '='
 * is a key with an empty value; a later line replaces an earlier one with
 * the same key, as in OVSDB's map).  tests/fuzz/afxdp-config.dict has the
 * keys and values the parser knows.
 *
 * Besides the sanitizers' findings, it checks what the parser promises;
 * a broken promise aborts:
 *   - 0 and no message, or EINVAL and a message that names the port;
 *   - an accepted configuration is within the documented ranges, and what
 *     afxdp_config_to_smap() makes of it parses back to the same one;
 *   - the per-queue accessors work for every queue of it. */

#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "afxdp-config.h"
#include "smap.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DEVNAME "p0"

/* Adds the options of 'data' to 'args'. */
static void
parse_input(const uint8_t *data, size_t size, struct smap *args)
{
    char *text = xmemdup0((const char *) data, size);
    char *line, *next;

    for (line = text; line; line = next) {
        char *eq;

        next = strchr(line, '\n');
        if (next) {
            *next++ = '\0';
        }
        eq = strchr(line, '=');
        if (eq) {
            *eq = '\0';
        }
        smap_replace(args, line, eq ? eq + 1 : "");
    }
    free(text);
}

/* Checks the ranges that Documentation/topics/afxdp-options.rst gives. */
static void
check_ranges(const struct afxdp_config *cfg)
{
    ovs_assert(cfg->xdp_mode > AFXDP_MODE_UNSPEC
               && cfg->xdp_mode < AFXDP_MODE_MAX);
    ovs_assert(cfg->n_rxq >= 0 && cfg->n_rxq <= AFXDP_CONFIG_MAX_RXQ);
    ovs_assert(cfg->start_queue >= 0
               && cfg->start_queue < AFXDP_CONFIG_MAX_RXQ);
    ovs_assert(is_pow2(cfg->ring_size)
               && cfg->ring_size >= AFXDP_CONFIG_MIN_RING
               && cfg->ring_size <= AFXDP_CONFIG_MAX_RING);
    ovs_assert(cfg->umem_frames <= AFXDP_CONFIG_MAX_FRAMES);
    ovs_assert(cfg->busy_poll <= AFXDP_CONFIG_MAX_BUSY_POLL);
    ovs_assert(cfg->busy_poll_budget >= 1);
    ovs_assert(cfg->latency_sample >= 1
               && cfg->latency_sample <= AFXDP_CONFIG_MAX_LATENCY_SAMPLE);
    for (int q = 0; q < AFXDP_CONFIG_MAX_RXQ; q++) {
        struct afxdp_busy_poll bp;
        enum afxdp_xsk_mode mode = afxdp_config_queue_mode(cfg, q);

        ovs_assert(mode != AFXDP_XSK_DEFAULT && mode <= AFXDP_XSK_AUTO);
        ovs_assert(cfg->xdp_mode != AFXDP_MODE_GENERIC
                   || mode != AFXDP_XSK_ZERO_COPY);
        afxdp_config_queue_busy_poll(cfg, q, &bp);
        ovs_assert(bp.usecs <= AFXDP_CONFIG_MAX_BUSY_POLL);
    }
    ovs_assert(afxdp_config_max_listed_queue(cfg) < AFXDP_CONFIG_MAX_RXQ);
    for (int n = 1; n <= AFXDP_CONFIG_MAX_RXQ; n *= 2) {
        uint32_t n_frames = afxdp_config_n_frames(cfg, n);

        ovs_assert(n_frames > 0 && n_frames <= AFXDP_CONFIG_MAX_FRAMES);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct smap args = SMAP_INITIALIZER(&args);
    struct smap again = SMAP_INITIALIZER(&again);
    struct afxdp_config cfg, cfg2;
    char *err;
    int error;

    parse_input(data, size, &args);
    error = afxdp_config_parse(DEVNAME, &args, &cfg, &err);
    if (error) {
        ovs_assert(error == EINVAL);
        ovs_assert(err && !strncmp(err, DEVNAME ": ", strlen(DEVNAME ": ")));
        free(err);
    } else {
        ovs_assert(!err);
        check_ranges(&cfg);

        afxdp_config_to_smap(&cfg, &again);
        ovs_assert(!afxdp_config_parse(DEVNAME, &again, &cfg2, &err));
        ovs_assert(!err);
        ovs_assert(afxdp_config_equals(&cfg, &cfg2));
    }
    smap_destroy(&again);
    smap_destroy(&args);
    return 0;
}
