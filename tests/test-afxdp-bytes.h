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

#ifndef TEST_AFXDP_BYTES_H
#define TEST_AFXDP_BYTES_H 1

/* Big-endian loads and stores at any alignment, for the unit tests that
 * build frames and read them back byte by byte. */

#include <stdbool.h>
#include <stdint.h>

#include "packets.h"

static inline uint16_t
tab_get16(const uint8_t *p)
{
    return (p[0] << 8) | p[1];
}

static inline uint32_t
tab_get32(const uint8_t *p)
{
    return ((uint32_t) tab_get16(p) << 16) | tab_get16(p + 2);
}

static inline void
tab_put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static inline void
tab_put32(uint8_t *p, uint32_t v)
{
    tab_put16(p, v >> 16);
    tab_put16(p + 2, v);
}

/* Writes at 'b' an Ethernet header (addresses 'base', 'base' + 1, ...),
 * with an 802.1Q tag if 'vlan', for IPv6 or IPv4; returns its length. */
static inline uint32_t
tab_put_eth(uint8_t *b, uint8_t base, bool vlan, bool ipv6)
{
    uint32_t o = 0;

    for (int i = 0; i < 12; i++) {
        b[o++] = base + i;
    }
    if (vlan) {
        tab_put16(b + o, ETH_TYPE_VLAN_8021Q);
        tab_put16(b + o + 2, 300);
        o += VLAN_HEADER_LEN;
    }
    tab_put16(b + o, ipv6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP);
    return o + 2;
}

#endif /* test-afxdp-bytes.h */
