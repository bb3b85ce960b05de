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

#ifndef AFXDP_CSUM_H
#define AFXDP_CSUM_H 1

/* The Internet checksum over a packet's payload, a word at a time.
 *
 * OVS's csum_continue() adds the data 16 bits at a time: about a byte per
 * cycle, which is what finishing the TCP checksum of a container's 64 kB
 * GSO packet in software costs (OVS 3.1, afxdp-rxcsum.h) and what every
 * segment costs where the kernel cannot finish it (afxdp-txseg.h,
 * afxdp-txcsum.h).  afxdp_csum_continue() takes the same arguments and
 * gives a partial sum that csum_finish() folds into the same checksum, but
 * adds 64-bit words with their carries, four words to a round.
 *
 * Why the two agree: the ones' complement sum is the sum modulo 0xffff
 * (with 0xffff standing for a nonzero multiple), and 2^16, 2^32 and 2^64
 * are all 1 modulo 0xffff, so adding the native 64-bit words, each carry
 * out of 64 bits added back as 1, is congruent to adding the native
 * 16-bit words that csum_continue() adds.  The sum is zero only when the
 * data and 'partial' are all zero, for both.  A last odd byte counts as a
 * 16-bit word whose other byte is zero, as in csum_continue(). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

uint32_t afxdp_csum_continue(uint32_t partial, const void *data, size_t n);

/* Adds the 'n32' 32-bit words at 'p' to 'sum', in memory order: for the
 * few header bytes of a per-packet check, where a call to
 * afxdp_csum_continue() would cost more than the adds.  'sum' cannot wrap
 * for fewer than 2^32 words. */
static inline uint64_t
afxdp_csum_add32(uint64_t sum, const uint8_t *p, int n32)
{
    for (int i = 0; i < n32; i++) {
        uint32_t w;

        memcpy(&w, p + i * 4, sizeof w);
        sum += w;
    }
    return sum;
}

/* Folds the ones' complement sum 'sum' to 16 bits, end-around carries
 * included, without complementing it (what csum_finish() complements).
 * Nonzero in, nonzero out. */
static inline uint16_t
afxdp_csum_fold16(uint64_t sum)
{
    sum = (sum & UINT32_MAX) + (sum >> 32);
    sum = (sum & UINT32_MAX) + (sum >> 32);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return sum;
}

/* Computes from scratch the TCP or UDP checksum (UDP if 'udp') of the
 * 'l4_len' bytes at 'l4', whose pseudo-header sum is 'pseudo', and stores
 * it in the checksum field 'csum_ofs' bytes into 'l4'.  A UDP checksum
 * that comes out 0 is stored as 0xffff (0 means "no checksum"). */
void afxdp_csum_l4_store(uint8_t *l4, uint32_t l4_len, uint32_t csum_ofs,
                         uint32_t pseudo, bool udp);

#endif /* afxdp-csum.h */
