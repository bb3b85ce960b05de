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

#ifndef AFXDP_POLICE_USER_H
#define AFXDP_POLICE_USER_H 1

#include <stdbool.h>
#include <stdint.h>

#include "bpf/afxdp-police.h"

struct ds;

/* Ingress policing of an afxdp port, as OVS asks for it (set_policing:
 * the Interface's ingress_policing_rate, _burst, _kpkts_rate and
 * _kpkts_burst), enforced by our XDP program on every frame the device
 * receives (bpf/afxdp-police.bpf.h), dropped frames counted as
 * xdp_policed.  A burst of 0 takes the defaults of OVS's Linux ports:
 * 8000 kbit, 16 kpkts. */
struct afxdp_police_config {
    uint32_t kbits_rate;        /* kbit/s; 0: no byte limit. */
    uint32_t kbits_burst;       /* kbit. */
    uint32_t kpkts_rate;        /* Thousands of packets a second; 0: none. */
    uint32_t kpkts_burst;       /* Thousands of packets. */
};

#define AFXDP_POLICE_KBITS_BURST_DEFAULT 8000
#define AFXDP_POLICE_KPKTS_BURST_DEFAULT 16

/* Fills in the defaults (burst 0, or a burst without a rate). */
void afxdp_police_config_normalize(struct afxdp_police_config *);

bool afxdp_police_config_equal(const struct afxdp_police_config *,
                               const struct afxdp_police_config *);

static inline bool
afxdp_police_config_on(const struct afxdp_police_config *c)
{
    return c->kbits_rate || c->kpkts_rate;
}

/* A meter for 'rate' units a second (thousand units for ingress
 * policing's kbit/s and kpkts/s) and a burst of 'burst' such units, where
 * one unit at a rate of 1 takes 'unit_ns' nanoseconds (8e6 for a byte
 * under a kbit/s rate, 1e6 for a packet under kpkts/s, 1e9 for a byte
 * under bytes/s), empty; no limit if 'rate' is 0.  Everything fits 64
 * bits while 'unit_ns' << AFXDP_POLICE_SHIFT does, 'rate' is below
 * 1.8e10 and 'burst' / 'rate' below 1.8e10 seconds: the burst is computed
 * in whole seconds and the rest apart.  The cost a unit, at most
 * 'unit_ns' << AFXDP_POLICE_SHIFT, times a frame's length (under 2^18)
 * also fits while 'unit_ns' is at most 1e9. */
void afxdp_police_meter(uint64_t rate, uint64_t burst, uint64_t unit_ns,
                        struct afxdp_police_meter *m);

/* The map entry for 'c' (normalized), meters empty (pure logic). */
void afxdp_police_compile(const struct afxdp_police_config *c,
                          struct afxdp_police *entry);

/* Writes 'c' into our program's policing map 'map_fd' (its meters start
 * empty).  Returns 0 or a positive errno. */
int afxdp_police_apply(int map_fd, const struct afxdp_police_config *c);

/* "10000 kbit/s, burst 1000 kbit" and the like, for status. */
void afxdp_police_format(const struct afxdp_police_config *, struct ds *);

#endif /* afxdp-police.h */
