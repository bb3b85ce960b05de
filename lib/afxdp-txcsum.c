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

#include "csum.h"
#include "packets.h"

/* Where a packet's TCP or UDP checksum is, from its own headers. */
struct afxdp_txcsum_hdrs {
    uint32_t l4_ofs;            /* TCP or UDP header, from the start. */
    uint32_t l4_len;            /* Bytes from there, as the IP header
                                 * says. */
    uint32_t trailer;           /* Bytes after the IP payload. */
    uint32_t pseudo;            /* Pseudo-header sum, not folded. */
    uint8_t proto;              /* IPPROTO_TCP or IPPROTO_UDP. */
};

/* Parses the IPv4 header at 'ofs' of the 'size' bytes at 'data' into 'h'.
 * Returns false if it is not a whole, unfragmented IPv4 packet. */
static bool
afxdp_txcsum_parse_ipv4(const uint8_t *data, uint32_t size, uint32_t ofs,
                        struct afxdp_txcsum_hdrs *h)
{
    struct ip_header ip;
    uint32_t ihl, tot;

    if (size < ofs + IP_HEADER_LEN) {
        return false;
    }
    memcpy(&ip, data + ofs, sizeof ip);
    ihl = IP_IHL(ip.ip_ihl_ver) * 4;
    tot = ntohs(ip.ip_tot_len);
    if (IP_VER(ip.ip_ihl_ver) != 4 || ihl < IP_HEADER_LEN || tot < ihl
        || size - ofs < tot
        || ip.ip_frag_off & htons(IP_MORE_FRAGMENTS | IP_FRAG_OFF_MASK)) {
        return false;
    }
    h->proto = ip.ip_proto;
    h->l4_ofs = ofs + ihl;
    h->l4_len = tot - ihl;
    h->trailer = size - ofs - tot;
    h->pseudo = csum_continue(0, data + ofs + offsetof(struct ip_header,
                                                       ip_src), 8);
    return true;
}

/* Parses the IPv6 header at 'ofs' (see above).  A packet with extension
 * headers is not one we take. */
static bool
afxdp_txcsum_parse_ipv6(const uint8_t *data, uint32_t size, uint32_t ofs,
                        struct afxdp_txcsum_hdrs *h)
{
    struct ovs_16aligned_ip6_hdr ip6;
    uint32_t plen;

    if (size < ofs + IPV6_HEADER_LEN) {
        return false;
    }
    memcpy(&ip6, data + ofs, sizeof ip6);
    plen = ntohs(ip6.ip6_ctlun.ip6_un1.ip6_un1_plen);
    if (size - ofs - IPV6_HEADER_LEN < plen) {
        return false;
    }
    h->proto = ip6.ip6_ctlun.ip6_un1.ip6_un1_nxt;
    h->l4_ofs = ofs + IPV6_HEADER_LEN;
    h->l4_len = plen;
    h->trailer = size - ofs - IPV6_HEADER_LEN - plen;
    h->pseudo = csum_continue(0, data + ofs
                              + offsetof(struct ovs_16aligned_ip6_hdr,
                                         ip6_src), 32);
    return true;
}

/* Parses the Ethernet, VLAN and IP headers of the 'size' bytes at 'data'
 * into 'h'.  Returns false if they are not ones we take. */
static bool
afxdp_txcsum_parse(const uint8_t *data, uint32_t size,
                   struct afxdp_txcsum_hdrs *h)
{
    uint32_t ofs = ETH_HEADER_LEN;
    ovs_be16 type;
    bool ok;

    if (size < ETH_HEADER_LEN) {
        return false;
    }
    memcpy(&type, data + ETH_ADDR_LEN * 2, sizeof type);
    for (int i = 0; i < 2 && (type == htons(ETH_TYPE_VLAN_8021Q)
                              || type == htons(ETH_TYPE_VLAN_8021AD)); i++) {
        if (size < ofs + VLAN_HEADER_LEN) {
            return false;
        }
        memcpy(&type, data + ofs + 2, sizeof type);
        ofs += VLAN_HEADER_LEN;
    }
    if (type == htons(ETH_TYPE_IP)) {
        ok = afxdp_txcsum_parse_ipv4(data, size, ofs, h);
    } else if (type == htons(ETH_TYPE_IPV6)) {
        ok = afxdp_txcsum_parse_ipv6(data, size, ofs, h);
    } else {
        return false;
    }
    if (!ok) {
        return false;
    }
    h->pseudo = csum_add16(h->pseudo, htons(h->proto));
    h->pseudo = csum_add16(h->pseudo, htons(h->l4_len));
    return true;
}

/* Called by afxdp_txcsum_check() for a packet 'p' whose checksum OVS left
 * to us.  Returns what it did; fills '*md' for AFXDP_TXCSUM_REQUEST. */
enum afxdp_txcsum_action
afxdp_txcsum_prepare(struct dp_packet *p, bool offload,
                     struct afxdp_tx_metadata *md)
{
    uint8_t *data = dp_packet_data(p);
    uint32_t size = dp_packet_size(p);
    struct afxdp_txcsum_hdrs h;
    uint32_t csum_ofs;
    ovs_be16 csum;

    if (afxdp_packet_tunnel(p)) {
        afxdp_packet_csum_by_ovs(p);
        return AFXDP_TXCSUM_SOFTWARE;
    }
    if (!afxdp_txcsum_parse(data, size, &h)) {
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

    csum = 0;
    memcpy(data + h.l4_ofs + csum_ofs, &csum, sizeof csum);
    csum = csum_finish(csum_continue(h.pseudo, data + h.l4_ofs, h.l4_len));
    if (h.proto == IPPROTO_UDP && !csum) {
        csum = htons(0xffff);
    }
    memcpy(data + h.l4_ofs + csum_ofs, &csum, sizeof csum);
    return AFXDP_TXCSUM_SOFTWARE;
}
