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

/* TX checksum offload of an afxdp port: see afxdp-txcsum.h. */

#include <config.h>

#include "afxdp-txcsum.h"

#include <linux/if_xdp.h>
#include <netinet/in.h>
#include <string.h>

#include "afxdp-csum.h"
#include "afxdp-l4hdrs.h"
#include "csum.h"
#include "packets.h"

/* Called by afxdp_txcsum_check() for a packet 'p' whose checksum OVS left
 * to us.  Returns what it did; fills '*md' for AFXDP_TXCSUM_REQUEST. */
enum afxdp_txcsum_action
afxdp_txcsum_prepare(struct dp_packet *p, bool offload,
                     struct afxdp_tx_metadata *md)
{
    uint8_t *data = dp_packet_data(p);
    uint32_t size = dp_packet_size(p);
    struct afxdp_l4hdrs h;
    uint32_t csum_ofs;
    ovs_be16 csum;

    if (afxdp_packet_tunnel(p)) {
        afxdp_packet_csum_by_ovs(p);
        return AFXDP_TXCSUM_SOFTWARE;
    }
    if (!afxdp_l4hdrs_parse(data, size, &h)) {
        return AFXDP_TXCSUM_UNPARSED;
    }
    if (h.proto == IPPROTO_TCP && afxdp_packet_l4_tcp(p)
        && h.l4_len >= TCP_HEADER_LEN) {
        csum_ofs = offsetof(struct tcp_header, tcp_csum);
    } else if (h.proto == IPPROTO_UDP && afxdp_packet_l4_udp(p)
               && h.l4_len >= UDP_HEADER_LEN) {
        csum_ofs = offsetof(struct udp_header, udp_csum);
    } else {
        return AFXDP_TXCSUM_UNPARSED;
    }

    /* The kernel sums from csum_start to the end of the packet, trailer
     * included, and takes csum_start as 16 bits. */
    if (offload && !h.trailer && h.l4_ofs <= UINT16_MAX
        && h.l4_ofs + csum_ofs + sizeof csum <= size) {
        csum = ~csum_finish(h.pseudo);
        memcpy(data + h.l4_ofs + csum_ofs, &csum, sizeof csum);
        memset(md, 0, sizeof *md);
        md->flags = XDP_TXMD_FLAGS_CHECKSUM;
        md->csum_start = h.l4_ofs;
        md->csum_offset = csum_ofs;
        return AFXDP_TXCSUM_REQUEST;
    }

    afxdp_csum_l4_store(data + h.l4_ofs, h.l4_len, csum_ofs, h.pseudo,
                        h.proto == IPPROTO_UDP);
    return AFXDP_TXCSUM_SOFTWARE;
}
