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

/* The crafted frames of tests/test-afxdp-offload.c (see
 * test-afxdp-offload.h), built byte by byte: OVS's packet helpers only
 * make well-formed packets, and many of these are not. */

#include <config.h>

#include "test-afxdp-offload.h"

#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "packets.h"
#include "test-afxdp-bytes.h"
#include "util.h"

static const struct eth_addr arp_sha = ETH_ADDR_C(02, 00, 00, 00, 0a, 01);
static const struct eth_addr arp_tha = ETH_ADDR_C(02, 00, 00, 00, 0b, 02);

#define TAG(TPID, TCI) { { TPID, TCI } }
#define TAGS(T1, C1, T2, C2) { { T1, C1 }, { T2, C2 } }
#define Q ETH_TYPE_VLAN_8021Q
#define AD ETH_TYPE_VLAN_8021AD
#define IP ETH_TYPE_IP
#define IP6 ETH_TYPE_IPV6
#define HIT FRAME_HIT
#define PMD FRAME_PMD

const struct frame_spec afxdp_offload_frames[] = {
    /* Frames the program parses as OVS does. */
    { "IPv4 TCP", HIT, .eth_type = IP, .proto = IPPROTO_TCP,
      .payload = 20 },
    { "IPv4 TCP with options, all flags", HIT, .eth_type = IP,
      .proto = IPPROTO_TCP, .tcp_opts = 12, .tcp_flags = 0x1ff },
    { "IPv4 UDP", HIT, .eth_type = IP, .proto = IPPROTO_UDP,
      .payload = 32 },
    { "IPv4 UDP, no payload", HIT, .eth_type = IP, .proto = IPPROTO_UDP },
    { "IPv4 UDP without checksum", HIT, .eth_type = IP,
      .proto = IPPROTO_UDP, .payload = 12, .no_l4_csum = true },
    { "IPv4 SCTP", HIT, .eth_type = IP, .proto = IPPROTO_SCTP,
      .payload = 16 },
    { "IPv4 ICMP echo request", HIT, .eth_type = IP, .proto = IPPROTO_ICMP,
      .type = 8, .payload = 56 },
    { "IPv4 ICMP port unreachable", HIT, .eth_type = IP,
      .proto = IPPROTO_ICMP, .type = 3, .code = 3, .payload = 28 },
    { "IPv4 with IP options, UDP", HIT, .eth_type = IP,
      .proto = IPPROTO_UDP, .ip_opts = 8, .payload = 4 },
    { "IPv4 with 40 bytes of options, TCP", HIT, .eth_type = IP,
      .proto = IPPROTO_TCP, .ip_opts = 40 },
    { "IPv4 UDP with Ethernet padding", HIT, .eth_type = IP,
      .proto = IPPROTO_UDP, .payload = 2, .pad = 16 },
    { "IPv4 TCP with Ethernet padding", HIT, .eth_type = IP,
      .proto = IPPROTO_TCP, .pad = 6 },
    { "IPv4 TOS 0xb9 (DSCP and ECN)", HIT, .eth_type = IP,
      .proto = IPPROTO_UDP, .tos = 0xb9 },
    { "IPv4 TTL 1", HIT, .eth_type = IP, .proto = IPPROTO_UDP, .ttl = 1 },
    { "IPv4 TTL 255", HIT, .eth_type = IP, .proto = IPPROTO_TCP,
      .ttl = 255 },
    { "IPv4 DF set (not a fragment)", HIT, .eth_type = IP,
      .proto = IPPROTO_TCP, .frag = 0x4000 },
    { "IPv4 first fragment, UDP", HIT, .eth_type = IP,
      .proto = IPPROTO_UDP, .frag = 0x2000, .payload = 64 },
    { "IPv4 later fragment", HIT, .eth_type = IP, .proto = IPPROTO_UDP,
      .frag = 0x2000 | 185, .payload = 64 },
    { "IPv4 last fragment", HIT, .eth_type = IP, .proto = IPPROTO_TCP,
      .frag = 185, .payload = 8 },
    { "IPv4 later fragment, as if TCP data offset 15", HIT,
      .eth_type = IP, .proto = IPPROTO_TCP, .frag = 185, .doff = 15,
      .payload = 8 },
    { "IPv4 later fragment, too short for TCP", HIT, .eth_type = IP,
      .proto = IPPROTO_TCP, .frag = 0x2000 | 1, .trunc = true, .keep = 8,
      .pad = 16 },
    { "IPv4 GRE (no ports)", HIT, .eth_type = IP, .proto = IPPROTO_GRE,
      .payload = 20 },
    { "IPv4 protocol 253", HIT, .eth_type = IP, .proto = 253,
      .payload = 7 },
    { "IPv4 carrying ICMPv6 (type not matched)", HIT, .eth_type = IP,
      .proto = IPPROTO_ICMPV6, .type = 128, .wild = FRAME_WILD_TP },
    { "IPv6 TCP", HIT, .eth_type = IP6, .proto = IPPROTO_TCP,
      .payload = 100 },
    { "IPv6 TCP with options", HIT, .eth_type = IP6, .proto = IPPROTO_TCP,
      .tcp_opts = 20, .tcp_flags = 0x0c2 },
    { "IPv6 UDP", HIT, .eth_type = IP6, .proto = IPPROTO_UDP,
      .payload = 10 },
    { "IPv6 UDP with Ethernet padding", HIT, .eth_type = IP6,
      .proto = IPPROTO_UDP, .pad = 12 },
    { "IPv6 SCTP", HIT, .eth_type = IP6, .proto = IPPROTO_SCTP },
    { "IPv6 ICMPv6 echo request", HIT, .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 128, .payload = 56 },
    { "IPv6 ICMPv6 echo reply", HIT, .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 129, .payload = 8 },
    { "IPv6 ICMPv6 packet too big", HIT, .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 2, .payload = 48 },
    { "IPv6 traffic class 0xa5, flow label", HIT, .eth_type = IP6,
      .proto = IPPROTO_UDP, .tos = 0xa5, .label = 0xbcdef },
    { "IPv6 traffic class 0x5a", HIT, .eth_type = IP6,
      .proto = IPPROTO_TCP, .tos = 0x5a, .label = 0x30000 },
    { "IPv6 hop limit 1", HIT, .eth_type = IP6, .proto = IPPROTO_UDP,
      .ttl = 1 },
    { "IPv6 no next header", HIT, .eth_type = IP6, .proto = 59 },
    { "IPv6 ESP (no ports)", HIT, .eth_type = IP6, .proto = 50,
      .payload = 24 },
    { "IPv6 mobility header (not walked by OVS)", HIT, .eth_type = IP6,
      .proto = 135, .payload = 16 },
    { "IPv6 carrying ICMP (type not matched)", HIT, .eth_type = IP6,
      .proto = IPPROTO_ICMP, .type = 8, .wild = FRAME_WILD_TP },
    { "802.1Q IPv4 UDP", HIT, TAG(Q, 0x2064), .eth_type = IP,
      .proto = IPPROTO_UDP },
    { "802.1Q priority tag (VID 0), IPv4 TCP", HIT, TAG(Q, 0xa000),
      .eth_type = IP, .proto = IPPROTO_TCP },
    { "802.1Q TCI 0, IPv6 UDP", HIT, TAG(Q, 0x0000), .eth_type = IP6,
      .proto = IPPROTO_UDP },
    { "802.1Q with DEI set, IPv4 ICMP", HIT, TAG(Q, 0x1005),
      .eth_type = IP, .proto = IPPROTO_ICMP, .type = 8 },
    { "802.1Q VID 4095, IPv4 later fragment", HIT, TAG(Q, 0xefff),
      .eth_type = IP, .proto = IPPROTO_UDP, .frag = 100 },
    { "802.1ad IPv4 TCP", HIT, TAG(AD, 0x0123), .eth_type = IP,
      .proto = IPPROTO_TCP },
    { "802.1Q IPv6 UDP", HIT, TAG(Q, 0x4fff), .eth_type = IP6,
      .proto = IPPROTO_UDP, .tos = 0x11 },
    { "802.1ad IPv6 ICMPv6 echo", HIT, TAG(AD, 0x0002), .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 128 },
    { "802.1Q, then EtherType 0x9100 (not a tag)", HIT, TAG(Q, 0x0064),
      .eth_type = 0x9100, .payload = 30 },
    { "802.1Q ARP request", HIT, TAG(Q, 0x000a), .eth_type = ETH_TYPE_ARP,
      .type = 1 },
    { "802.1Q LLDP", HIT, TAG(Q, 0x600a), .eth_type = 0x88cc,
      .payload = 30 },
    { "ARP request", HIT, .eth_type = ETH_TYPE_ARP, .type = 1 },
    { "ARP reply", HIT, .eth_type = ETH_TYPE_ARP, .type = 2 },
    { "RARP", HIT, .eth_type = ETH_TYPE_RARP, .type = 3 },
    { "LLDP (0x88cc)", HIT, .eth_type = 0x88cc, .payload = 40 },
    { "EtherType 0x88b5", HIT, .eth_type = 0x88b5, .payload = 46 },
    { "EtherType 0x0600 (smallest)", HIT, .eth_type = 0x0600,
      .payload = 46 },
    { "Ethernet header only", HIT, .eth_type = 0x88b5 },
    { "MPLS", HIT, .eth_type = ETH_TYPE_MPLS, .payload = 46 },

    /* Frames OVS parses in ways the key cannot hold, or that it finds
     * invalid: the program leaves them to the PMD. */
    { "802.3 length + LLC", PMD, .llc = 1, .payload = 40 },
    { "LLC/SNAP IPv4 UDP", PMD, .llc = 2, .eth_type = IP,
      .proto = IPPROTO_UDP },
    { "802.1Q + LLC", PMD, TAG(Q, 0x0005), .llc = 1, .payload = 40 },
    { "802.1ad + 802.1Q IPv4 UDP", PMD, TAGS(AD, 0x0064, Q, 0x0005),
      .eth_type = IP, .proto = IPPROTO_UDP },
    { "802.1Q + 802.1Q IPv6 TCP", PMD, TAGS(Q, 0x0064, Q, 0x0005),
      .eth_type = IP6, .proto = IPPROTO_TCP },
    { "802.1Q tag cut short", PMD, TAG(Q, 0x0064), .eth_type = IP,
      .proto = IPPROTO_UDP, .cut = 16 },
    { "IPv6 hop-by-hop options, UDP", PMD, .eth_type = IP6,
      .proto = IPPROTO_UDP, .has_ext = true, .ext = 0 },
    { "IPv6 routing header, TCP", PMD, .eth_type = IP6,
      .proto = IPPROTO_TCP, .has_ext = true, .ext = 43 },
    { "IPv6 fragment header, UDP", PMD, .eth_type = IP6,
      .proto = IPPROTO_UDP, .has_ext = true, .ext = 44 },
    { "IPv6 AH, TCP", PMD, .eth_type = IP6, .proto = IPPROTO_TCP,
      .has_ext = true, .ext = 51 },
    { "IPv6 destination options, ICMPv6", PMD, .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 128, .has_ext = true, .ext = 60 },
    { "IGMPv2 report", PMD, .eth_type = IP, .proto = IPPROTO_IGMP,
      .type = 0x16 },
    { "ICMPv6 neighbour solicitation", PMD, .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 135, .payload = 24 },
    { "ICMPv6 neighbour advertisement", PMD, .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 136, .payload = 24 },
    { "ICMPv6 router solicitation", PMD, .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 133, .payload = 8 },
    { "ICMPv6 MLD query", PMD, .eth_type = IP6, .proto = IPPROTO_ICMPV6,
      .type = 130, .payload = 16 },
    { "ICMPv6 MLDv2 report", PMD, .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 143, .payload = 20 },
    { "IPv4 total length beyond the frame", PMD, .eth_type = IP,
      .proto = IPPROTO_UDP, .len_delta = 1 },
    { "IPv4 total length shorter than its header", PMD, .eth_type = IP,
      .proto = IPPROTO_UDP, .tot_len = 19 },
    { "IPv4 IHL 4", PMD, .eth_type = IP, .proto = IPPROTO_UDP, .ihl = 4 },
    { "IPv4 IHL beyond the total length", PMD, .eth_type = IP,
      .proto = IPPROTO_UDP, .ihl = 15, .tot_len = 40, .pad = 40 },
    { "IPv4 EtherType, no IP header", PMD, .eth_type = IP, .cut = 14 },
    { "IPv4 header cut short", PMD, .eth_type = IP, .proto = IPPROTO_UDP,
      .cut = 14 + 19 },
    { "IPv4 version 6", PMD, .eth_type = IP, .proto = IPPROTO_UDP,
      .version = 6 },
    { "IPv6 payload length beyond the frame", PMD, .eth_type = IP6,
      .proto = IPPROTO_UDP, .len_delta = 1 },
    { "IPv6 header cut short", PMD, .eth_type = IP6, .proto = IPPROTO_UDP,
      .cut = 14 + 39 },
    { "IPv6 version 4", PMD, .eth_type = IP6, .proto = IPPROTO_UDP,
      .version = 4 },
    { "IPv4 TCP truncated to 19 bytes", PMD, .eth_type = IP,
      .proto = IPPROTO_TCP, .trunc = true, .keep = 19 },
    { "IPv4 TCP, no L4 bytes", PMD, .eth_type = IP, .proto = IPPROTO_TCP,
      .trunc = true, .keep = 0, .pad = 26 },
    { "IPv4 TCP data offset 4", PMD, .eth_type = IP, .proto = IPPROTO_TCP,
      .doff = 4 },
    { "IPv4 TCP data offset beyond the packet", PMD, .eth_type = IP,
      .proto = IPPROTO_TCP, .tcp_opts = 4, .doff = 7, .pad = 8 },
    { "IPv4 UDP truncated to 7 bytes", PMD, .eth_type = IP,
      .proto = IPPROTO_UDP, .trunc = true, .keep = 7, .pad = 10 },
    { "IPv4 SCTP truncated to 11 bytes", PMD, .eth_type = IP,
      .proto = IPPROTO_SCTP, .trunc = true, .keep = 11 },
    { "IPv4 ICMP truncated to 4 bytes", PMD, .eth_type = IP,
      .proto = IPPROTO_ICMP, .type = 8, .trunc = true, .keep = 4 },
    { "IPv6 TCP truncated to 16 bytes", PMD, .eth_type = IP6,
      .proto = IPPROTO_TCP, .trunc = true, .keep = 16 },
    { "IPv6 UDP truncated to 4 bytes", PMD, .eth_type = IP6,
      .proto = IPPROTO_UDP, .trunc = true, .keep = 4, .pad = 8 },
    { "IPv6 ICMPv6 truncated to 7 bytes", PMD, .eth_type = IP6,
      .proto = IPPROTO_ICMPV6, .type = 128, .trunc = true, .keep = 7 },
    { "802.1Q IPv4 UDP truncated", PMD, TAG(Q, 0x0064), .eth_type = IP,
      .proto = IPPROTO_UDP, .trunc = true, .keep = 6 },
};

#undef TAG
#undef TAGS
#undef Q
#undef AD
#undef IP
#undef IP6
#undef HIT
#undef PMD

const size_t afxdp_offload_n_frames = ARRAY_SIZE(afxdp_offload_frames);

/* Appends to 'b' the L4 header and payload of 's' (at most 'keep' bytes
 * of them when 's->trunc'). */
static void
put_l4(struct dp_packet *b, const struct frame_spec *s)
{
    size_t start = dp_packet_size(b);
    bool icmp = s->proto == IPPROTO_ICMP || s->proto == IPPROTO_ICMPV6;
    uint8_t *h;

    if (s->proto == IPPROTO_TCP) {
        int doff = s->doff ? s->doff : 5 + s->tcp_opts / 4;
        uint16_t flags = s->tcp_flags ? s->tcp_flags : TCP_SYN | TCP_ACK;

        h = dp_packet_put_zeros(b, 20 + s->tcp_opts);
        tab_put16(h, 40000);
        tab_put16(h + 2, 443);
        tab_put32(h + 4, 0x01020304);
        tab_put16(h + 12, doff << 12 | flags);
        tab_put16(h + 14, 65535);
        memset(h + 20, 1, s->tcp_opts);             /* NOPs. */
    } else if (s->proto == IPPROTO_UDP) {
        h = dp_packet_put_zeros(b, 8);
        tab_put16(h, 5353);
        tab_put16(h + 2, 53);
        tab_put16(h + 4, 8 + s->payload);
    } else if (s->proto == IPPROTO_SCTP) {
        h = dp_packet_put_zeros(b, 12);
        tab_put16(h, 2905);
        tab_put16(h + 2, 36412);
        tab_put32(h + 4, 0xdeadbeef);
    } else if (icmp || s->proto == IPPROTO_IGMP) {
        h = dp_packet_put_zeros(b, 8);
        h[0] = s->type;
        h[1] = s->code;
        tab_put32(h + 4, 0xe00000fb);
    } else if (s->proto == IPPROTO_GRE) {
        h = dp_packet_put_zeros(b, 4);
        tab_put16(h + 2, ETH_TYPE_TEB);
    }
    for (int i = 0; i < s->payload; i++) {
        dp_packet_put(b, &(uint8_t) { 0x40 + i }, 1);
    }
    if (s->trunc && dp_packet_size(b) - start > s->keep) {
        dp_packet_set_size(b, start + s->keep);
    }
}

int
afxdp_offload_l4_csum_ofs(uint8_t proto)
{
    return (proto == IPPROTO_TCP ? 16
            : proto == IPPROTO_UDP ? 6
            : proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6 ? 2
            : -1);
}

/* Writes the checksum of the L4 header of 's' at 'l4_ofs' in 'b' (TCP,
 * UDP, ICMP or ICMPv6), over the bytes from there to the end of 'b' and
 * the pseudo-header's sum 'pseudo' (which ICMP does not cover), as a
 * sender does. */
static void
put_l4_csum(struct dp_packet *b, const struct frame_spec *s, size_t l4_ofs,
            uint32_t pseudo)
{
    size_t len = dp_packet_size(b) - l4_ofs;
    uint8_t *l4 = (uint8_t *) dp_packet_data(b) + l4_ofs;
    int ofs = afxdp_offload_l4_csum_ofs(s->proto);
    ovs_be16 c;

    if (ofs < 0 || s->no_l4_csum || len < ofs + sizeof c) {
        return;
    }
    if (s->proto == IPPROTO_ICMP) {
        pseudo = 0;
    }
    c = csum_finish(csum_continue(pseudo, l4, len));
    if (s->proto == IPPROTO_UDP && !c) {
        c = htons(0xffff);      /* 0 would mean "none". */
    }
    memcpy(l4 + ofs, &c, sizeof c);
}

/* Appends an IPv4 packet of 's' to 'b'. */
static void
put_ipv4(struct dp_packet *b, const struct frame_spec *s, int index)
{
    size_t ofs = dp_packet_size(b);
    int hlen = 20 + s->ip_opts;
    struct ip_header *ip;
    uint8_t *opts;
    int tot_len;

    ip = dp_packet_put_zeros(b, sizeof *ip);
    opts = dp_packet_put_zeros(b, s->ip_opts);
    memset(opts, 1, s->ip_opts);                    /* NOPs. */
    put_l4(b, s);

    ip = dp_packet_at_assert(b, ofs, sizeof *ip);
    tot_len = s->tot_len ? s->tot_len
                         : dp_packet_size(b) - ofs + s->len_delta;
    ip->ip_ihl_ver = IP_IHL_VER(s->ihl ? s->ihl : hlen / 4,
                                s->version ? s->version : 4);
    ip->ip_tos = s->tos;
    ip->ip_tot_len = htons(tot_len);
    ip->ip_id = htons(0x4242);
    ip->ip_frag_off = htons(s->frag);
    ip->ip_ttl = s->ttl ? s->ttl : 64;
    ip->ip_proto = s->proto;
    put_16aligned_be32(&ip->ip_src, htonl(0x0a000000 | (index + 1) << 8 | 1));
    put_16aligned_be32(&ip->ip_dst, htonl(0xc0a80000 | (index + 1)));
    ip->ip_csum = csum(ip, hlen);
    put_l4_csum(b, s, ofs + hlen, packet_csum_pseudoheader(ip));
}

/* Appends an IPv6 packet of 's' to 'b'. */
static void
put_ipv6(struct dp_packet *b, const struct frame_spec *s, int index)
{
    size_t ofs = dp_packet_size(b);
    uint8_t *ip6;
    uint32_t vfc;

    dp_packet_put_zeros(b, IPV6_HEADER_LEN);
    if (s->has_ext) {
        uint8_t *ext = dp_packet_put_zeros(b, 8);

        ext[0] = s->proto;      /* Next header; length 0: 8 bytes, for
                                 * AH too ((0 + 2) * 4). */
    }
    put_l4(b, s);

    ip6 = dp_packet_at_assert(b, ofs, IPV6_HEADER_LEN);
    vfc = (uint32_t) (s->version ? s->version : 6) << 28
          | (uint32_t) s->tos << 20 | s->label;
    tab_put32(ip6, vfc);
    tab_put16(ip6 + 4,
              dp_packet_size(b) - ofs - IPV6_HEADER_LEN + s->len_delta);
    ip6[6] = s->has_ext ? s->ext : s->proto;
    ip6[7] = s->ttl ? s->ttl : 64;
    for (int i = 0; i < 8; i++) {
        /* Every 32-bit word of both addresses differs from the others. */
        tab_put16(ip6 + 8 + 2 * i, 0x2001 + i * 0x101 + index);
        tab_put16(ip6 + 24 + 2 * i, 0xfd00 + i * 0x11);
    }
    put_l4_csum(b, s, ofs + IPV6_HEADER_LEN + (s->has_ext ? 8 : 0),
                packet_csum_pseudoheader6(ALIGNED_CAST(
                    const struct ovs_16aligned_ip6_hdr *, ip6)));
}

/* Appends the ARP packet of 's' to 'b'. */
static void
put_arp(struct dp_packet *b, const struct frame_spec *s, int index)
{
    struct arp_eth_header *arp = dp_packet_put_zeros(b, sizeof *arp);

    arp->ar_hrd = htons(ARP_HRD_ETHERNET);
    arp->ar_pro = htons(ARP_PRO_IP);
    arp->ar_hln = ETH_ADDR_LEN;
    arp->ar_pln = 4;
    arp->ar_op = htons(s->type);
    arp->ar_sha = arp_sha;
    put_16aligned_be32(&arp->ar_spa, htonl(0x0a000001 + index));
    arp->ar_tha = arp_tha;
    put_16aligned_be32(&arp->ar_tpa, htonl(0x0a0000fe));
}

struct eth_addr
afxdp_offload_frame_src(int index, bool other)
{
    struct eth_addr ea = ETH_ADDR_C(02, 00, 5e, 10, 00, 00);

    ea.ea[3] = other ? 0xee : 0x10;
    ea.ea[4] = index >> 8;
    ea.ea[5] = index;
    return ea;
}

struct dp_packet *
afxdp_offload_build_frame(int index, struct eth_addr src)
{
    const struct frame_spec *s = &afxdp_offload_frames[index];
    struct dp_packet *b = dp_packet_new(256);
    struct eth_addr dst = ETH_ADDR_C(02, 00, 5e, 20, 00, 01);
    size_t len_ofs = 0;

    if (s->eth_type == ETH_TYPE_ARP && s->type == ARP_OP_REQUEST) {
        dst = eth_addr_broadcast;
    }
    dp_packet_put(b, &dst, sizeof dst);
    dp_packet_put(b, &src, sizeof src);
    for (int i = 0; i < 2 && s->tags[i][0]; i++) {
        ovs_be16 tag[2] = { htons(s->tags[i][0]), htons(s->tags[i][1]) };

        dp_packet_put(b, tag, sizeof tag);
    }
    if (s->llc) {
        static const uint8_t llc[] = { 0x42, 0x42, 0x03 };
        static const uint8_t snap[] = { 0xaa, 0xaa, 0x03, 0, 0, 0 };

        len_ofs = dp_packet_size(b);
        dp_packet_put_zeros(b, 2);
        if (s->llc == 1) {
            dp_packet_put(b, llc, sizeof llc);
        } else {
            dp_packet_put(b, snap, sizeof snap);
        }
    }
    if (s->llc != 1) {
        ovs_be16 type = htons(s->eth_type);

        dp_packet_put(b, &type, sizeof type);
    }

    if (s->llc != 1 && s->eth_type == ETH_TYPE_IP) {
        put_ipv4(b, s, index);
    } else if (s->llc != 1 && s->eth_type == ETH_TYPE_IPV6) {
        put_ipv6(b, s, index);
    } else if (s->eth_type == ETH_TYPE_ARP || s->eth_type == ETH_TYPE_RARP) {
        put_arp(b, s, index);
    } else {
        if (s->eth_type == ETH_TYPE_MPLS) {
            /* Label 100, bottom of stack, TTL 64. */
            ovs_be32 lse = htonl(100 << 12 | 1 << 8 | 64);

            dp_packet_put(b, &lse, sizeof lse);
        }
        for (int i = 0; i < s->payload; i++) {
            dp_packet_put(b, &(uint8_t) { i }, 1);
        }
    }
    if (len_ofs) {
        ovs_be16 len = htons(dp_packet_size(b) - len_ofs - 2);

        memcpy(dp_packet_at_assert(b, len_ofs, 2), &len, 2);
    }
    dp_packet_put_zeros(b, s->pad);
    if (s->cut) {
        dp_packet_set_size(b, s->cut);
    }
    return b;
}
