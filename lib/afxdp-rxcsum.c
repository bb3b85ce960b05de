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

/* Returns true if the 'size' bytes at 'data' are a TCP or UDP packet whose
 * checksum field holds the folded pseudo-header sum and nothing else (what
 * a CHECKSUM_PARTIAL skb carries), and then fills '*info'.  Reads only the
 * headers. */
bool
afxdp_rxcsum_detect(const uint8_t *data, uint32_t size,
                    struct afxdp_rxcsum_info *info)
{
    struct afxdp_l4hdrs *h = &info->h;
    ovs_be16 field, seed;

    if (!afxdp_l4hdrs_parse(data, size, h)) {
        return false;
    }
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

/* Computes, from scratch, the TCP or UDP checksum of the packet at 'data'
 * that afxdp_rxcsum_detect() described in 'info', and stores it. */
void
afxdp_rxcsum_finish(uint8_t *data, const struct afxdp_rxcsum_info *info)
{
    afxdp_csum_l4_store(data + info->h.l4_ofs, info->h.l4_len,
                        info->csum_ofs - info->h.l4_ofs, info->h.pseudo,
                        !info->tcp);
}

/* If the packet of 'size' bytes at 'data' is a tunnel that
 * afxdp_l4hdrs_tunnel() knows, whose inner TCP or UDP checksum is partial,
 * finishes that checksum (see "Tunnels" in afxdp-rxcsum.h) and returns
 * true. */
static bool
afxdp_rxcsum_fix_inner(uint8_t *data, uint32_t size)
{
    struct afxdp_rxcsum_info info;
    struct afxdp_l4hdrs udp;
    uint32_t inner;

    if (!afxdp_l4hdrs_parse(data, size, &udp)
        || !(inner = afxdp_l4hdrs_tunnel(data, &udp))
        || !afxdp_rxcsum_detect(data + inner,
                                udp.l4_ofs + udp.l4_len - inner, &info)) {
        return false;
    }
    afxdp_rxcsum_finish(data + inner, &info);
    return true;
}

/* The rest of afxdp_rxcsum_fix(), for a packet its prefilter left. */
bool
afxdp_rxcsum_fix__(struct dp_packet *p)
{
    struct afxdp_rxcsum_info info;
    /* A tunnel's inner checksum first: the outer one covers it (a Linux
     * tunnel device's GSO packet has both partial). */
    bool inner = afxdp_rxcsum_fix_inner(dp_packet_data(p),
                                        dp_packet_size(p));

    if (OVS_LIKELY(!afxdp_rxcsum_detect(dp_packet_data(p),
                                        dp_packet_size(p), &info))) {
        return inner;
    }
    /* A tunnel's outer checksum is finished here on every OVS version:
     * OVS 3.3 to 3.6 check it when they decapsulate and drop the packet
     * if it is only partial. */
    if (AFXDP_OVS_CSUM_FALLBACK
        && (info.tcp || !afxdp_l4hdrs_tunnel(dp_packet_data(p), &info.h))) {
        afxdp_packet_set_rx_l4_partial(p, info.tcp, info.h.ipv6);
    } else {
        afxdp_rxcsum_finish(dp_packet_data(p), &info);
    }
    return true;
}
