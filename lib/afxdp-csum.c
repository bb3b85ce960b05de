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

/* The Internet checksum a word at a time: see afxdp-csum.h. */

#include <config.h>

#include "afxdp-csum.h"

#include <string.h>

#include "csum.h"
#include "openvswitch/types.h"
#include "packets.h"

/* Adds 'w' to '*sum', counting a carry out of 64 bits in '*carries'. */
static inline void
add64(uint64_t *sum, uint64_t *carries, uint64_t w)
{
    *sum += w;
    *carries += *sum < w;
}

uint32_t
afxdp_csum_continue(uint32_t partial, const void *data_, size_t n)
{
    const uint8_t *data = data_;
    uint64_t s0 = partial, s1 = 0, c0 = 0, c1 = 0;
    uint64_t sum, carries;
    uint64_t w[4];

    /* Two independent chains, so that each add waits for only half of the
     * others.  Each round adds at most 2 carries: no carry count can wrap
     * for any buffer that fits in memory. */
    for (; n >= sizeof w; n -= sizeof w, data += sizeof w) {
        memcpy(w, data, sizeof w);
        add64(&s0, &c0, w[0]);
        add64(&s1, &c1, w[1]);
        add64(&s0, &c0, w[2]);
        add64(&s1, &c1, w[3]);
    }
    for (; n >= sizeof w[0]; n -= sizeof w[0], data += sizeof w[0]) {
        memcpy(w, data, sizeof w[0]);
        add64(&s0, &c0, w[0]);
    }
    if (n) {
        /* The rest as one word, the missing bytes zero: the 16-bit words
         * keep their places, and a last odd byte its place in its word. */
        w[0] = 0;
        memcpy(w, data, n);
        add64(&s0, &c0, w[0]);
    }

    /* The carries are worth 1 each (2^64 is 1 modulo 0xffff), and so is
     * a carry out of adding them: after one that wraps, 'sum' is below
     * 'carries', so adding that 1 cannot wrap again. */
    carries = c0 + c1;
    sum = s0;
    add64(&sum, &carries, s1);
    sum += carries;
    sum += sum < carries;
    /* Fold into 32 bits: 2^32 is 1 modulo 0xffff. */
    sum = (sum & UINT32_MAX) + (sum >> 32);
    sum = (sum & UINT32_MAX) + (sum >> 32);
    return sum;
}

void
afxdp_csum_l4_store(uint8_t *l4, uint32_t l4_len, uint32_t csum_ofs,
                    uint32_t pseudo, bool udp)
{
    ovs_be16 csum = 0;

    memcpy(l4 + csum_ofs, &csum, sizeof csum);
    csum = csum_finish(afxdp_csum_continue(pseudo, l4, l4_len));
    if (udp && !csum) {
        csum = htons(0xffff);
    }
    memcpy(l4 + csum_ofs, &csum, sizeof csum);
}
