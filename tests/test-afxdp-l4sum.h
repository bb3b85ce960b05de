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

#ifndef TEST_AFXDP_L4SUM_H
#define TEST_AFXDP_L4SUM_H 1

/* TCP and UDP checksums as a receiver checks them, for the unit tests of
 * the send path's segmentation: computed apart from the code under test,
 * with OVS's csum_continue(). */

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "csum.h"

/* The pseudo-header sum of the IPv4 or IPv6 header at 's' + 'l3' for
 * 'l4_len' bytes of protocol 'proto'. */
static inline uint32_t
tab_l4_pseudo(const uint8_t *s, uint32_t l3, bool ipv6, uint8_t proto,
              uint32_t l4_len)
{
    uint32_t p = (ipv6 ? csum_continue(0, s + l3 + 8, 32)
                  : csum_continue(0, s + l3 + 12, 8));

    p = csum_add16(p, htons(proto));
    return csum_add16(p, htons(l4_len));
}

/* The sum a receiver checks over the 'l4_len' bytes of TCP or UDP at
 * 's' + 'l4', its IP header at 's' + 'l3': 0 when valid. */
static inline uint16_t
tab_l4_sum(const uint8_t *s, uint32_t l3, uint32_t l4, uint32_t l4_len,
           bool ipv6, uint8_t proto)
{
    return csum_finish(csum_continue(tab_l4_pseudo(s, l3, ipv6, proto,
                                                   l4_len),
                                     s + l4, l4_len));
}

#endif /* test-afxdp-l4sum.h */
