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

#include <stdint.h>

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

#endif /* test-afxdp-bytes.h */
