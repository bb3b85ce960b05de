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
    "xdp-mode", "n_rxq", "use-need-wakeup", "xsk-ring-size", "umem-frames",
};

const char *
afxdp_mode_to_string(enum afxdp_mode mode)
{
    return mode < AFXDP_MODE_MAX ? afxdp_mode_names[mode] : "invalid";
}

/* Initializes 'cfg' with every option at its default. */
void
afxdp_config_init(struct afxdp_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->xdp_mode = AFXDP_MODE_BEST_EFFORT;
    cfg->n_rxq = 1;
    cfg->use_need_wakeup = true;
    cfg->ring_size = AFXDP_CONFIG_DEFAULT_RING;
    cfg->umem_frames = 0;
}

static char *
afxdp_config_bad_value(const char *devname, const char *key,
                       const char *value, const char *expected)
{
    return xasprintf("%s: invalid options:%s value '%s': expected %s",
                     devname, key, value, expected);
}

/* Parses 'value' as a decimal integer in [min, max].  Returns true on
 * success. */
static bool
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

    value = smap_get(args, "use-need-wakeup");
    if (value) {
        if (!strcmp(value, "true")) {
            cfg->use_need_wakeup = true;
        } else if (!strcmp(value, "false")) {
            cfg->use_need_wakeup = false;
        } else {
            *errp = afxdp_config_bad_value(devname, "use-need-wakeup",
                                           value, "true or false");
            return EINVAL;
        }
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
    }

    value = smap_get(args, "umem-frames");
    if (value) {
        uint32_t min = afxdp_config_min_frames(cfg);

        if (!afxdp_config_parse_uint(value, 0, AFXDP_CONFIG_MAX_FRAMES, &x)
            || (x && x < min)) {
            char *expected = xasprintf("0 (automatic) or an integer from "
                                       "%"PRIu32" (for n_rxq=%d and "
                                       "xsk-ring-size=%"PRIu32") to %u",
                                       min, cfg->n_rxq, cfg->ring_size,
                                       AFXDP_CONFIG_MAX_FRAMES);
            *errp = afxdp_config_bad_value(devname, "umem-frames", value,
                                           expected);
            free(expected);
            return EINVAL;
        }
        cfg->umem_frames = x;
    }
    return 0;
}

bool
afxdp_config_equals(const struct afxdp_config *a,
                    const struct afxdp_config *b)
{
    return (a->xdp_mode == b->xdp_mode
            && a->n_rxq == b->n_rxq
            && a->use_need_wakeup == b->use_need_wakeup
            && a->ring_size == b->ring_size
            && a->umem_frames == b->umem_frames);
}

/* Adds 'cfg' to 'args' in the form afxdp_config_parse() accepts. */
void
afxdp_config_to_smap(const struct afxdp_config *cfg, struct smap *args)
{
    smap_add(args, "xdp-mode", afxdp_mode_to_string(cfg->xdp_mode));
    smap_add_format(args, "n_rxq", "%d", cfg->n_rxq);
    smap_add(args, "use-need-wakeup", cfg->use_need_wakeup ? "true" : "false");
    smap_add_format(args, "xsk-ring-size", "%"PRIu32, cfg->ring_size);
    smap_add_format(args, "umem-frames", "%"PRIu32, cfg->umem_frames);
}

/* Returns the fewest UMEM frames that let every queue keep its fill ring
 * full and its tx ring full at the same time, plus one rx batch per queue
 * in OVS.  Fewer would starve one direction by design. */
uint32_t
afxdp_config_min_frames(const struct afxdp_config *cfg)
{
    uint64_t per_queue = 2 * (uint64_t) cfg->ring_size + 32;

    return MIN(per_queue * cfg->n_rxq, AFXDP_CONFIG_MAX_FRAMES);
}

/* Returns the number of UMEM frames the port uses: options:umem-frames if
 * set, otherwise the minimum plus a ring's worth of frames per queue for
 * packets held in OVS (queued for output, in tx batches of other ports). */
uint32_t
afxdp_config_n_frames(const struct afxdp_config *cfg)
{
    uint64_t n;

    if (cfg->umem_frames) {
        return cfg->umem_frames;
    }
    n = afxdp_config_min_frames(cfg) + (uint64_t) cfg->ring_size * cfg->n_rxq;
    return MIN(n, AFXDP_CONFIG_MAX_FRAMES);
}
