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

/* TCP and UDP header locator: see afxdp-l4hdrs.h. */

#include <config.h>

#include "afxdp-l4hdrs.h"

#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "csum.h"
#include "packets.h"

/* Tunnels (RFC 7348, RFC 8926). */
#define VXLAN_DST_PORT AFXDP_L4HDRS_VXLAN_PORT
#define VXLAN_HLEN 8
#define VXLAN_FLAG_I 0x08           /* First byte: the VNI is valid. */
#define GENEVE_DST_PORT AFXDP_L4HDRS_GENEVE_PORT
#define GENEVE_HLEN 8               /* Without its options. */
#define GENEVE_PROTO_TEB 0x6558     /* Transparent Ethernet bridging. */

/* Parses the IPv4 header at 'ofs' of the 'size' bytes at 'data' into 'h'.
 * Returns false if it is not a whole, unfragmented IPv4 packet. */
static bool
afxdp_l4hdrs_parse_ipv4(const uint8_t *data, uint32_t size, uint32_t ofs,
                        struct afxdp_l4hdrs *h)
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
    h->ipv6 = false;
    h->l3_ofs = ofs;
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
afxdp_l4hdrs_parse_ipv6(const uint8_t *data, uint32_t size, uint32_t ofs,
                        struct afxdp_l4hdrs *h)
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
    h->ipv6 = true;
    h->l3_ofs = ofs;
    h->l4_ofs = ofs + IPV6_HEADER_LEN;
    h->l4_len = plen;
    h->trailer = size - ofs - IPV6_HEADER_LEN - plen;
    h->pseudo = csum_continue(0, data + ofs
                              + offsetof(struct ovs_16aligned_ip6_hdr,
                                         ip6_src), 32);
    return true;
}

/* Parses the Ethernet, VLAN and IP headers of the 'size' bytes at 'data'
 * into 'h', the pseudo-header sum included (with 'h->proto', whatever it
 * is).  Returns false if they are not ones we take; 'h' is then
 * undefined. */
bool
afxdp_l4hdrs_parse(const uint8_t *data, uint32_t size,
                   struct afxdp_l4hdrs *h)
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
        ok = afxdp_l4hdrs_parse_ipv4(data, size, ofs, h);
    } else if (type == htons(ETH_TYPE_IPV6)) {
        ok = afxdp_l4hdrs_parse_ipv6(data, size, ofs, h);
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

/* If the UDP packet at 'data', whose headers 'udp' describes, is VXLAN
 * or Geneve on its IANA port, carrying Ethernet, returns the offset of the
 * inner Ethernet header from 'data'; else 0. */
uint32_t
afxdp_l4hdrs_tunnel(const uint8_t *data, const struct afxdp_l4hdrs *udp)
{
    uint32_t end = udp->l4_ofs + udp->l4_len;
    uint32_t ofs = udp->l4_ofs + UDP_HEADER_LEN;
    const uint8_t *t = data + ofs;

    if (udp->proto != IPPROTO_UDP || end < ofs + GENEVE_HLEN
        || afxdp_l4hdrs_get16(data + udp->l4_ofs + 4) != udp->l4_len) {
        return 0;
    }
    switch (afxdp_l4hdrs_get16(data + udp->l4_ofs + 2)) {
    case VXLAN_DST_PORT:
        if (!(t[0] & VXLAN_FLAG_I)) {
            return 0;
        }
        ofs += VXLAN_HLEN;
        break;
    case GENEVE_DST_PORT:
        /* Version 0, not a control packet, Ethernet inside. */
        if (t[0] >> 6 || t[1] & 0x80
            || afxdp_l4hdrs_get16(t + 2) != GENEVE_PROTO_TEB) {
            return 0;
        }
        ofs += GENEVE_HLEN + (t[0] & 0x3f) * 4;
        break;
    default:
        return 0;
    }
    return ofs + ETH_HEADER_LEN <= end ? ofs : 0;
}
