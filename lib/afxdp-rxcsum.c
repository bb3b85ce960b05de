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

/* Received pseudo-header-only checksums: see afxdp-rxcsum.h. */

#include <config.h>

#include "afxdp-rxcsum.h"

#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "afxdp-compat.h"
#include "afxdp-csum.h"
#include "csum.h"
#include "packets.h"

/* afxdp_rxcsum_detect() for the packet at 'data' whose headers are
 * already parsed into 'info->h'. */
static bool
afxdp_rxcsum_detect_parsed(const uint8_t *data,
                           struct afxdp_rxcsum_info *info)
{
    const struct afxdp_l4hdrs *h = &info->h;
    ovs_be16 field, seed;

    if (h->proto == IPPROTO_TCP && h->l4_len >= TCP_HEADER_LEN) {
        info->tcp = true;
        info->csum_ofs = h->l4_ofs + offsetof(struct tcp_header, tcp_csum);
    } else if (h->proto == IPPROTO_UDP && h->l4_len >= UDP_HEADER_LEN) {
        info->tcp = false;
        info->csum_ofs = h->l4_ofs + offsetof(struct udp_header, udp_csum);
    } else {
        return false;
    }
    memcpy(&field, data + info->csum_ofs, sizeof field);

    /* The sender's kernel stores the folded sum, not its complement (the
     * complement of csum_finish()).  A folded sum of a nonzero
     * pseudo-header is never 0, so a UDP "no checksum" never matches. */
    seed = ~csum_finish(h->pseudo);
    return field == seed;
}

/* Returns true if the 'size' bytes at 'data' are a TCP or UDP packet whose
 * checksum field holds the folded pseudo-header sum and nothing else (what
 * a CHECKSUM_PARTIAL skb carries), and then fills '*info'.  Reads only the
 * headers. */
bool
afxdp_rxcsum_detect(const uint8_t *data, uint32_t size,
                    struct afxdp_rxcsum_info *info)
{
    return (afxdp_l4hdrs_parse(data, size, &info->h)
            && afxdp_rxcsum_detect_parsed(data, info));
}

/* Computes, from scratch, the TCP or UDP checksum of the packet at 'data'
 * that afxdp_rxcsum_detect() described in 'info', and stores it. */
void
afxdp_rxcsum_finish(uint8_t *data, const struct afxdp_rxcsum_info *info)
{
    afxdp_csum_l4_store(data + info->h.l4_ofs, info->h.l4_len,
                        info->csum_ofs - info->h.l4_ofs, info->h.pseudo,
                        !info->tcp);
}

/* The rest of afxdp_rxcsum_fix(), for a packet its prefilter left.  In a
 * tunnel that afxdp_l4hdrs_tunnel() knows, the inner checksum is checked
 * and finished first, since the outer one covers it (a Linux tunnel
 * device's GSO packet has both partial), and a partial outer one is then
 * finished here on every OVS version: OVS 3.3 to 3.6 check it when they
 * decapsulate and drop the packet if it is only partial. */
bool
afxdp_rxcsum_fix__(struct dp_packet *p)
{
    uint8_t *data = dp_packet_data(p);
    struct afxdp_rxcsum_info info, in;
    uint32_t tunnel;
    bool inner;

    if (!afxdp_l4hdrs_parse(data, dp_packet_size(p), &info.h)) {
        return false;
    }
    tunnel = afxdp_l4hdrs_tunnel(data, &info.h);
    inner = (tunnel
             && afxdp_rxcsum_detect(data + tunnel,
                                    info.h.l4_ofs + info.h.l4_len - tunnel,
                                    &in));
    if (inner) {
        afxdp_rxcsum_finish(data + tunnel, &in);
    }
    if (OVS_LIKELY(!afxdp_rxcsum_detect_parsed(data, &info))) {
        return inner;
    }
    if (AFXDP_OVS_CSUM_FALLBACK && !tunnel) {
        afxdp_packet_set_rx_l4_partial(p, info.tcp, info.h.ipv6);
    } else {
        afxdp_rxcsum_finish(data, &info);
    }
    return true;
}
