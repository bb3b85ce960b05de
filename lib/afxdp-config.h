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

#ifndef AFXDP_CONFIG_H
#define AFXDP_CONFIG_H 1

/* Options of an afxdp port (Interface options:...): parsing, validation and
 * defaults.  Pure logic: no syscalls, no global state, usable from unit
 * tests without privileges.  The reference for users is
 * Documentation/topics/afxdp-options.rst; keep both in step. */

#include <stdbool.h>
#include <stdint.h>

#include "netdev-afxdp.h"

struct smap;

/* Limits and defaults. */
#define AFXDP_CONFIG_MAX_RXQ 256            /* == AFXDP_MAX_QUEUES. */
#define AFXDP_CONFIG_DEFAULT_RING 2048      /* Descriptors per ring. */
#define AFXDP_CONFIG_MIN_RING 64
#define AFXDP_CONFIG_MAX_RING 16384
#define AFXDP_CONFIG_FRAME_SIZE 4096        /* Bytes per UMEM frame. */
#define AFXDP_CONFIG_MAX_FRAMES (1u << 20)  /* 4 GiB of UMEM at most. */

/* One port's requested configuration. */
struct afxdp_config {
    enum afxdp_mode xdp_mode;   /* options:xdp-mode. */
    int n_rxq;                  /* options:n_rxq. */
    bool use_need_wakeup;       /* options:use-need-wakeup. */
    uint32_t ring_size;         /* options:xsk-ring-size, each ring. */
    uint32_t umem_frames;       /* options:umem-frames, 0 = automatic. */
};

void afxdp_config_init(struct afxdp_config *);
int afxdp_config_parse(const char *devname, const struct smap *args,
                       struct afxdp_config *, char **errp);
bool afxdp_config_equals(const struct afxdp_config *,
                         const struct afxdp_config *);
void afxdp_config_to_smap(const struct afxdp_config *, struct smap *);

uint32_t afxdp_config_min_frames(const struct afxdp_config *);
uint32_t afxdp_config_n_frames(const struct afxdp_config *);

const char *afxdp_mode_to_string(enum afxdp_mode);

#endif /* afxdp-config.h */
