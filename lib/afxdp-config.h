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

#ifndef AFXDP_CONFIG_H
#define AFXDP_CONFIG_H 1

/* Options of an afxdp port (Interface options:...): parsing, validation and
 * defaults.  Pure logic: no syscalls, no global state, usable from unit
 * tests without privileges.  The reference for users is
 * Documentation/topics/afxdp-options.rst; keep both in step. */

#include <stdbool.h>
#include <stdint.h>

#include "afxdp-mode.h"
#include "bpf/afxdp-hints.h"

struct smap;

/* Limits and defaults. */
#define AFXDP_CONFIG_MAX_RXQ 256            /* == AFXDP_MAX_QUEUES. */
#define AFXDP_CONFIG_DEFAULT_RING 2048      /* Descriptors per ring. */
#define AFXDP_CONFIG_VETH_RING 512          /* The same, on a busy veth. */
#define AFXDP_CONFIG_VETH_IDLE_RING 64      /* On a veth until it is busy. */
#define AFXDP_CONFIG_MIN_RING 64
#define AFXDP_CONFIG_MAX_RING 16384
#define AFXDP_CONFIG_FRAME_SIZE 4096        /* Bytes per UMEM frame. */
#define AFXDP_CONFIG_MAX_FRAMES (1u << 20)  /* 4 GiB of UMEM at most. */
#define AFXDP_CONFIG_MAX_BUSY_POLL 1000000  /* usecs. */
#define AFXDP_CONFIG_DEFAULT_BUDGET 64
#define AFXDP_CONFIG_DEFAULT_LATENCY_SAMPLE 16  /* One packet in 16. */
#define AFXDP_CONFIG_MAX_LATENCY_SAMPLE 65536

/* How a queue's socket binds, as requested. */
enum afxdp_xsk_mode {
    AFXDP_XSK_DEFAULT,          /* Not listed: follow xdp-mode. */
    AFXDP_XSK_ZERO_COPY,        /* Zero-copy or fail. */
    AFXDP_XSK_COPY,             /* Copy mode. */
    AFXDP_XSK_AUTO,             /* Zero-copy if the driver can, else copy. */
};

/* Busy-poll settings of one queue's socket. */
struct afxdp_busy_poll {
    uint32_t usecs;             /* SO_BUSY_POLL, 0 = off. */
    uint16_t budget;            /* SO_BUSY_POLL_BUDGET. */
    bool prefer;                /* SO_PREFER_BUSY_POLL. */
};

/* One port's requested configuration.  Always initialized with
 * afxdp_config_init() (which also zeroes padding), so that two configs
 * compare with memcmp(). */
struct afxdp_config {
    enum afxdp_mode xdp_mode;   /* options:xdp-mode. */
    int n_rxq;                  /* options:n_rxq, 0 = all device queues. */
    int start_queue;            /* options:start-queue. */
    bool use_need_wakeup;       /* options:use-need-wakeup. */
    uint32_t ring_size;         /* options:xsk-ring-size, each ring. */
    bool ring_size_auto;        /* Neither xsk-ring-size nor umem-frames
                                 * given: see afxdp_config_ring_for(). */
    uint32_t umem_frames;       /* options:umem-frames, 0 = automatic. */
    bool umem_hugepages;        /* options:umem-hugepages. */
    bool tx_csum_offload;       /* options:tx-checksum-offload. */
    bool rx_csum_partial;       /* options:rx-checksum-partial. */
    bool rx_csum_partial_auto;  /* Not given: afxdp_config_rx_csum_for(). */
    bool tx_seg_kernel;         /* options:tx-segmentation=kernel. */
    bool rx_gro;                /* options:rx-gro. */
    uint32_t busy_poll;         /* options:busy-poll, usecs, 0 = off. */
    uint16_t busy_poll_budget;  /* options:busy-poll-budget. */
    bool prefer_busy_poll;      /* options:prefer-busy-poll. */
    enum xdp_hints_mode hints;  /* options:xdp-hints. */
    bool hints_dev_bound;       /* options:xdp-hints-dev-bound. */
    uint32_t latency_sample;    /* options:latency-sample: time one packet
                                 * in this many, 1 = every packet. */

    /* Per-queue overrides, indexed by OVS rx queue id. */
    uint8_t rxq_mode[AFXDP_CONFIG_MAX_RXQ];     /* enum afxdp_xsk_mode. */
    int32_t rxq_busy_poll[AFXDP_CONFIG_MAX_RXQ];  /* usecs, -1 = default. */
};

void afxdp_config_init(struct afxdp_config *);

/* Parses 'value' as a decimal integer in [min, max], without a sign.
 * Returns true on success.  For every option of ours (the Interface's and
 * the QoS record's). */
bool afxdp_config_parse_uint(const char *value, unsigned long long min,
                             unsigned long long max, unsigned long long *out);
int afxdp_config_parse(const char *devname, const struct smap *args,
                       struct afxdp_config *, char **errp);
bool afxdp_config_equals(const struct afxdp_config *,
                         const struct afxdp_config *);
void afxdp_config_to_smap(const struct afxdp_config *, struct smap *);

uint32_t afxdp_config_min_frames(const struct afxdp_config *, int n_rxq);
uint32_t afxdp_config_n_frames(const struct afxdp_config *, int n_rxq);
uint32_t afxdp_config_ring_for(const struct afxdp_config *, bool veth,
                               bool busy);
bool afxdp_config_ring_can_grow(const struct afxdp_config *, bool veth);

/* Where partial checksums can come from (afxdp_config_rx_csum_for()). */
enum afxdp_rx_csum_source {
    AFXDP_RX_CSUM_NIC,          /* Native XDP on another device: frames
                                 * come from a wire, complete. */
    AFXDP_RX_CSUM_VETH,         /* A veth: its peer's packets, partial
                                 * checksums as the sender left them. */
    AFXDP_RX_CSUM_TAP,          /* A tap: its writer's, likewise. */
    AFXDP_RX_CSUM_GENERIC,      /* Generic XDP: the kernel's skbs, which
                                 * may be partial whatever the device. */
};

bool afxdp_config_rx_csum_for(const struct afxdp_config *,
                              enum afxdp_rx_csum_source);
const char *afxdp_config_rx_csum_reason(enum afxdp_rx_csum_source);
int afxdp_config_max_listed_queue(const struct afxdp_config *);

enum afxdp_xsk_mode afxdp_config_queue_mode(const struct afxdp_config *,
                                            int rxq);
void afxdp_config_queue_busy_poll(const struct afxdp_config *, int rxq,
                                  struct afxdp_busy_poll *);

const char *afxdp_mode_to_string(enum afxdp_mode);
const char *afxdp_xsk_mode_to_string(enum afxdp_xsk_mode);
const char *afxdp_hints_mode_to_string(enum xdp_hints_mode);

#endif /* afxdp-config.h */
