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

#include "afxdp-police.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <bpf/bpf.h>

#include "openvswitch/dynamic-string.h"

void
afxdp_police_config_normalize(struct afxdp_police_config *c)
{
    c->kbits_burst = (!c->kbits_rate ? 0
                      : c->kbits_burst ? c->kbits_burst
                      : AFXDP_POLICE_KBITS_BURST_DEFAULT);
    c->kpkts_burst = (!c->kpkts_rate ? 0
                      : c->kpkts_burst ? c->kpkts_burst
                      : AFXDP_POLICE_KPKTS_BURST_DEFAULT);
}

bool
afxdp_police_config_equal(const struct afxdp_police_config *a,
                          const struct afxdp_police_config *b)
{
    return (a->kbits_rate == b->kbits_rate
            && a->kbits_burst == b->kbits_burst
            && a->kpkts_rate == b->kpkts_rate
            && a->kpkts_burst == b->kpkts_burst);
}

void
afxdp_police_meter(uint64_t rate, uint64_t burst, uint64_t unit_ns,
                   struct afxdp_police_meter *m)
{
    memset(m, 0, sizeof *m);
    if (!rate) {
        return;
    }
    m->cost = (unit_ns << AFXDP_POLICE_SHIFT) / rate;
    if (!m->cost) {
        m->cost = 1;
    }
    m->burst = (uint64_t) (burst / rate) * 1000000000ULL
               + (uint64_t) (burst % rate) * 1000000000ULL / rate;
}

void
afxdp_police_compile(const struct afxdp_police_config *c,
                     struct afxdp_police *entry)
{
    memset(entry, 0, sizeof *entry);
    entry->on = afxdp_police_config_on(c);
    /* A byte is 8 bits: at 1 kbit/s it takes 8 ms, 8e6 ns. */
    afxdp_police_meter(c->kbits_rate, c->kbits_burst, 8000000,
                       &entry->bytes);
    /* A packet at 1 kpkts/s takes 1 ms, 1e6 ns. */
    afxdp_police_meter(c->kpkts_rate, c->kpkts_burst, 1000000,
                       &entry->packets);
}

int
afxdp_police_apply(int map_fd, const struct afxdp_police_config *c)
{
    struct afxdp_police entry;
    uint32_t zero = 0;

    afxdp_police_compile(c, &entry);
    /* BPF_F_LOCK: written under the entry's lock, which the program
     * holds while it reads and charges the meters. */
    if (bpf_map_update_elem(map_fd, &zero, &entry, BPF_F_LOCK)) {
        return errno ? errno : EINVAL;
    }
    return 0;
}

void
afxdp_police_format(const struct afxdp_police_config *c, struct ds *s)
{
    if (c->kbits_rate) {
        ds_put_format(s, "%"PRIu32" kbit/s, burst %"PRIu32" kbit",
                      c->kbits_rate, c->kbits_burst);
    }
    if (c->kpkts_rate) {
        ds_put_format(s, "%s%"PRIu32" kpkts/s, burst %"PRIu32" kpkts",
                      c->kbits_rate ? "; " : "", c->kpkts_rate,
                      c->kpkts_burst);
    }
}
