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

/* Unit tests of the send path's segmentation of TCP packets in a tunnel
 * (lib/afxdp-txseg.c, "Tunnels" in afxdp-txseg.h): a container's 64 kB
 * TCP packet that OVS wrapped in VXLAN or Geneve (with and without Geneve
 * options, IPv4 and IPv6 outer and inner headers, an outer VLAN tag, outer
 * UDP checksum on and off) is cut for several MTUs; every segment's outer
 * and inner headers, lengths and checksums are checked as a receiver
 * would, with the outer UDP checksum finished in software and through a
 * TX metadata request (finished here as the kernel would).  Then the
 * packets it must send whole or leave alone: within the MTU, a tunnel on
 * another port, UDP inside.  And the receive side's part
 * (lib/afxdp-rxcsum.c, "Tunnels"): an inner checksum left partial by a
 * Linux tunnel device (outer checksum computed for the finished inner
 * one) is finished, and the outer one stays valid.
 *
 * Usage: ovstest test-afxdp-tunnel
 * Needs no privileges.  Prints one line per case and "PASS" at the end;
 * any failed check aborts with the failing expression. */

#include <config.h>
#undef NDEBUG

#include <linux/if_xdp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afxdp-compat.h"
#include "afxdp-rxcsum.h"
#include "afxdp-txseg.h"
#include "csum.h"
#include "ovstest.h"
#include "packets.h"
#include "test-afxdp-bytes.h"
#include "test-afxdp-l4sum.h"
#include "util.h"

enum tnl_kind { TNL_VXLAN, TNL_GENEVE };

/* A crafted tunnelled packet. */
struct tnl_case {
    const char *name;
    enum tnl_kind kind;
    int geneve_opts;            /* Geneve option bytes (multiple of 4). */
    bool outer_ipv6;            /* Outer IPv6, else IPv4. */
    bool inner_ipv6;            /* Inner IPv6, else IPv4. */
    bool outer_vlan;            /* An 802.1Q tag on the outer frame. */
    bool udp_csum;              /* Outer UDP checksum set, else zero. */
    uint16_t dst_port;          /* Outer UDP destination port. */
    uint8_t inner_proto;        /* IPPROTO_TCP or IPPROTO_UDP. */
    uint32_t payload;           /* Inner TCP payload bytes. */
    uint32_t mtu;               /* Largest outer IP packet. */
    uint32_t max_len;           /* Largest segment, from Ethernet. */
    uint32_t src_mtu;           /* Largest inner IP packet, 0: none. */
};

/* Offsets of a built packet. */
struct tnl_ofs {
    uint32_t o3, o4;            /* Outer IP, UDP. */
    uint32_t in;                /* Inner Ethernet. */
    uint32_t i3, i4, pl;        /* Inner IP, TCP, payload. */
    uint32_t size;
};

#define SEQ0 0x7ffff000u
#define ID_OUT 0x1234
#define ID_IN 0xfffe
#define TCP_HLEN 32             /* With timestamps. */

/* Writes an IP header at 'b' for 'l4_len' bytes of protocol 'proto';
 * returns its length. */
static uint32_t
put_ip(uint8_t *b, bool ipv6, uint8_t proto, uint32_t l4_len, uint16_t id,
       uint8_t addr_base)
{
    if (ipv6) {
        tab_put32(b, 0x60054321);
        tab_put16(b + 4, l4_len);
        b[6] = proto;
        b[7] = 64;
        for (int i = 0; i < 32; i++) {
            b[8 + i] = addr_base + i;
        }
        return IPV6_HEADER_LEN;
    }
    b[0] = 0x45;
    tab_put16(b + 2, IP_HEADER_LEN + l4_len);
    tab_put16(b + 4, id);
    tab_put16(b + 6, 0x4000);
    b[8] = 64;
    b[9] = proto;
    for (int i = 0; i < 8; i++) {
        b[12 + i] = addr_base + i;
    }
    tab_put16(b + 10, 0x5555);                  /* Stale. */
    return IP_HEADER_LEN;
}

static uint8_t *
build(const struct tnl_case *c, struct tnl_ofs *t)
{
    uint32_t tnl_hlen = 8 + (c->kind == TNL_GENEVE ? c->geneve_opts : 0);
    uint32_t i_ip = c->inner_ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN;
    uint32_t i_l4 = (c->inner_proto == IPPROTO_TCP ? TCP_HLEN
                     : UDP_HEADER_LEN) + c->payload;
    uint32_t inner_len = ETH_HEADER_LEN + i_ip + i_l4;
    uint32_t udp_len = UDP_HEADER_LEN + tnl_hlen + inner_len;
    uint8_t *b = xzalloc(256 + inner_len);
    uint32_t o;

    t->o3 = tab_put_eth(b, 0x10, c->outer_vlan, c->outer_ipv6);
    t->o4 = t->o3 + put_ip(b + t->o3, c->outer_ipv6, IPPROTO_UDP, udp_len,
                           ID_OUT, 0x40);
    tab_put16(b + t->o4, 51000);
    tab_put16(b + t->o4 + 2, c->dst_port);
    tab_put16(b + t->o4 + 4, udp_len);
    o = t->o4 + UDP_HEADER_LEN;
    if (c->kind == TNL_VXLAN) {
        b[o] = 0x08;
        tab_put32(b + o + 4, 0x00abcd00);
    } else {
        b[o] = c->geneve_opts / 4;
        tab_put16(b + o + 2, 0x6558);
        tab_put32(b + o + 4, 0x00abcd00);
        for (int i = 0; i < c->geneve_opts; i++) {
            b[o + 8 + i] = 0x70 + i;
        }
    }
    t->in = o + tnl_hlen;
    t->i3 = t->in + tab_put_eth(b + t->in, 0x20, false, c->inner_ipv6);
    t->i4 = t->i3 + put_ip(b + t->i3, c->inner_ipv6, c->inner_proto, i_l4,
                           ID_IN, 0x80);
    o = t->i4;
    tab_put16(b + o, 40000);
    tab_put16(b + o + 2, 80);
    if (c->inner_proto == IPPROTO_TCP) {
        tab_put32(b + o + 4, SEQ0);
        tab_put32(b + o + 8, 0x01020304);
        b[o + 12] = (TCP_HLEN / 4) << 4;
        b[o + 13] = 0x18;                       /* ACK PSH. */
        tab_put16(b + o + 14, 1000);
        for (int i = 20; i < TCP_HLEN; i++) {
            b[o + i] = 0x30 + i;
        }
        t->pl = o + TCP_HLEN;
        /* A complete inner checksum, as a sender with TSO leaves stale:
         * each segment's must be computed afresh anyway. */
        tab_put16(b + o + 16, 0x2222);
    } else {
        tab_put16(b + o + 4, i_l4);
        t->pl = o + UDP_HEADER_LEN;
    }
    for (uint32_t i = 0; i < c->payload; i++) {
        b[t->pl + i] = (i * 151 + i / 253) & 0xff;
    }
    t->size = t->pl + c->payload;
    if (c->udp_csum) {
        ovs_be16 sum = tab_l4_sum(b, t->o3, t->o4, udp_len, c->outer_ipv6,
                                  IPPROTO_UDP);

        memcpy(b + t->o4 + 6, &sum, sizeof sum);
    }
    return b;
}

static void
check_case(const struct tnl_case *c, bool offload)
{
    struct tnl_ofs t;
    uint8_t *pkt = build(c, &t);
    uint8_t *orig = xmemdup(pkt, t.size);
    uint32_t mss = MIN(c->mtu - (t.pl - t.o3), c->max_len - t.pl);
    uint8_t *s = xmalloc(c->max_len);
    struct afxdp_txseg seg;
    uint32_t got = 0;

    if (c->src_mtu) {
        mss = MIN(mss, c->src_mtu - (t.pl - t.i3));
    }
    ovs_assert(afxdp_txseg_plan(pkt, t.size, c->mtu, c->max_len, 0,
                                c->src_mtu, &seg) == AFXDP_TXSEG_OK);
    ovs_assert(seg.tunnel);
    ovs_assert(seg.hdr_len == t.pl);
    ovs_assert(seg.mss == mss);
    ovs_assert(seg.n_segs == DIV_ROUND_UP(c->payload, mss));

    for (uint32_t i = 0; i < seg.n_segs; i++) {
        uint32_t n = MIN(mss, c->payload - i * mss);
        struct afxdp_tx_metadata md;
        uint32_t len;

        memset(s, 0xcc, c->max_len);
        len = afxdp_txseg_write(&seg, pkt, i, s, offload, &md);
        ovs_assert(len == t.pl + n);
        ovs_assert(len - t.o3 <= c->mtu);
        ovs_assert(!c->src_mtu || len - t.i3 <= c->src_mtu);

        /* Outer Ethernet and VLAN as they were. */
        ovs_assert(!memcmp(s, orig, t.o3));
        if (c->outer_ipv6) {
            ovs_assert(tab_get16(s + t.o3 + 4) == len - t.o4);
            ovs_assert(!memcmp(s + t.o3 + 6, orig + t.o3 + 6, 34));
        } else {
            ovs_assert(tab_get16(s + t.o3 + 2) == len - t.o3);
            ovs_assert(tab_get16(s + t.o3 + 4) == (uint16_t) (ID_OUT + i));
            ovs_assert(!csum(s + t.o3, IP_HEADER_LEN));
        }
        /* UDP: ports kept, length of this segment. */
        ovs_assert(!memcmp(s + t.o4, orig + t.o4, 4));
        ovs_assert(tab_get16(s + t.o4 + 4) == len - t.o4);
        /* Tunnel header and inner Ethernet as they were. */
        ovs_assert(!memcmp(s + t.o4 + 8, orig + t.o4 + 8, t.i3 - t.o4 - 8));
        /* Inner IP and TCP. */
        if (c->inner_ipv6) {
            ovs_assert(tab_get16(s + t.i3 + 4) == len - t.i4);
        } else {
            ovs_assert(tab_get16(s + t.i3 + 2) == len - t.i3);
            ovs_assert(tab_get16(s + t.i3 + 4) == (uint16_t) (ID_IN + i));
            ovs_assert(!csum(s + t.i3, IP_HEADER_LEN));
        }
        ovs_assert(tab_get32(s + t.i4 + 4) == SEQ0 + i * mss);
        ovs_assert(s[t.i4 + 13] == (i + 1 < seg.n_segs ? 0x10 : 0x18));
        ovs_assert(!memcmp(s + t.pl, orig + t.pl + i * mss, n));
        /* The inner checksum is done before the outer one covers it. */
        ovs_assert(!tab_l4_sum(s, t.i3, t.i4, len - t.i4, c->inner_ipv6,
                           IPPROTO_TCP));
        if (!c->udp_csum) {
            ovs_assert(!md.flags);
            ovs_assert(!tab_get16(s + t.o4 + 6));
        } else {
            /* Computed from the headers, with or without offload. */
            ovs_assert(!md.flags);
            ovs_assert(tab_get16(s + t.o4 + 6));
            ovs_assert(!tab_l4_sum(s, t.o3, t.o4, len - t.o4, c->outer_ipv6,
                               IPPROTO_UDP));
        }
        got += n;
    }
    ovs_assert(got == c->payload);
    ovs_assert(!memcmp(pkt, orig, t.size));
    printf("%s, %s, outer checksum %s: %"PRIu32" segments of %"PRIu32
           " bytes\n", c->name, offload ? "offload on" : "offload off",
           c->udp_csum ? "from the headers" : "none", seg.n_segs, mss);
    free(s);
    free(orig);
    free(pkt);
}

static void
check_verdict(const char *name, const struct tnl_case *c,
              enum afxdp_txseg_verdict verdict)
{
    struct tnl_ofs t;
    uint8_t *pkt = build(c, &t);
    struct afxdp_txseg seg;

    ovs_assert(afxdp_txseg_plan(pkt, t.size, c->mtu, c->max_len, 0,
                                c->src_mtu, &seg) == verdict);
    printf("%s: %s\n", name,
           verdict == AFXDP_TXSEG_NOT_TCP ? "not TCP, sent as it is"
           : verdict == AFXDP_TXSEG_FITS ? "within the MTU, sent whole"
           : verdict == AFXDP_TXSEG_OK ? "cut" : "other");
    free(pkt);
}

/* What the receive side notes for a packet received whole: the device's
 * MTU, less the tunnel's outer headers. */
static void
check_src_mtu(void)
{
    static const struct {
        struct tnl_case c;
        uint32_t want;
    } cases[] = {
        { { "vxlan, ipv4", TNL_VXLAN, 0, false, false, false, true, 4789,
            IPPROTO_TCP, 9000, 1500, 3840, 0 }, 1450 },
        { { "geneve with 8 option bytes, ipv4", TNL_GENEVE, 8, false, false,
            false, true, 6081, IPPROTO_TCP, 9000, 1500, 3840, 0 }, 1442 },
        { { "vxlan, ipv6, outer vlan", TNL_VXLAN, 0, true, true, true, true,
            4789, IPPROTO_TCP, 9000, 1500, 3840, 0 }, 1430 },
        { { "udp on another port", TNL_VXLAN, 0, false, false, false, true,
            8472, IPPROTO_TCP, 9000, 1500, 3840, 0 }, 1500 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct tnl_ofs t;
        uint8_t *pkt = build(&cases[i].c, &t);

        ovs_assert(afxdp_txseg_src_mtu(pkt, t.size, 1500) == cases[i].want);
        ovs_assert(afxdp_txseg_src_mtu(pkt, t.size, 0) == 0);
        printf("received whole from mtu 1500, %s: segments of at most %"
               PRIu32" bytes of ip\n", cases[i].c.name, cases[i].want);
        free(pkt);
    }
}

/* Puts in the checksum field at 'csum_ofs' of packet 'p' (a copy of
 * 'pkt') the pseudo-header sum alone, as a CHECKSUM_PARTIAL skb has it, of
 * the IP header at 'l3' for 'l4_len' bytes of 'proto'. */
static void
set_partial(struct dp_packet *p, const uint8_t *pkt, uint32_t l3,
            uint32_t csum_ofs, bool ipv6, uint8_t proto, uint32_t l4_len)
{
    ovs_be16 sum = ~csum_finish(tab_l4_pseudo(pkt, l3, ipv6, proto,
                                              l4_len));

    memcpy((uint8_t *) dp_packet_data(p) + csum_ofs, &sum, sizeof sum);
}

/* A Linux tunnel device's packet as it reaches an afxdp port through a
 * veth: the inner TCP checksum holds only the pseudo-header sum, the outer
 * UDP checksum (if any) is computed as if the inner were finished.  The
 * receive side finishes the inner one on every OVS version, and the outer
 * one then checks.  A packet whose checksums are complete is left as it
 * is. */
static void
check_rx_inner_partial(void)
{
    static const struct tnl_case cases[] = {
        { "vxlan, ipv4 in ipv4", TNL_VXLAN, 0, false, false, false, true,
          4789, IPPROTO_TCP, 3000, 1500, 3840, 0 },
        { "vxlan, ipv6 in ipv6, no outer checksum", TNL_VXLAN, 0, true, true,
          false, false, 4789, IPPROTO_TCP, 1000, 1500, 3840, 0 },
        { "geneve with options, ipv4 in ipv6", TNL_GENEVE, 8, true, false,
          false, true, 6081, IPPROTO_TCP, 60000, 1500, 3840, 0 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        const struct tnl_case *c = &cases[i];
        struct dp_packet *p;
        uint32_t udp_len, tcp_len;
        struct tnl_ofs t;
        uint8_t *pkt = build(c, &t);
        ovs_be16 sum;

        udp_len = t.size - t.o4;
        tcp_len = t.size - t.i4;
        /* Finished inner checksum, then the outer over it, then the inner
         * field back to the pseudo-header sum. */
        memset(pkt + t.i4 + 16, 0, 2);
        sum = tab_l4_sum(pkt, t.i3, t.i4, tcp_len, c->inner_ipv6,
                         IPPROTO_TCP);
        memcpy(pkt + t.i4 + 16, &sum, sizeof sum);
        if (c->udp_csum) {
            memset(pkt + t.o4 + 6, 0, 2);
            sum = tab_l4_sum(pkt, t.o3, t.o4, udp_len, c->outer_ipv6,
                             IPPROTO_UDP);
            memcpy(pkt + t.o4 + 6, &sum, sizeof sum);
        }
        p = dp_packet_new(t.size);
        dp_packet_put(p, pkt, t.size);
        /* Complete: untouched. */
        ovs_assert(!afxdp_rxcsum_fix(p));
        ovs_assert(!memcmp(dp_packet_data(p), pkt, t.size));

        set_partial(p, pkt, t.i3, t.i4 + 16, c->inner_ipv6, IPPROTO_TCP,
                    tcp_len);
        ovs_assert(afxdp_rxcsum_may_be_partial(dp_packet_data(p), t.size));
        ovs_assert(afxdp_rxcsum_fix(p));
        ovs_assert(!memcmp(dp_packet_data(p), pkt, t.size));
        ovs_assert(!tab_l4_sum(dp_packet_data(p), t.i3, t.i4, tcp_len,
                               c->inner_ipv6, IPPROTO_TCP));
        ovs_assert(!c->udp_csum
                   || !tab_l4_sum(dp_packet_data(p), t.o3, t.o4, udp_len,
                                  c->outer_ipv6, IPPROTO_UDP));
        printf("received %s, inner checksum partial: finished\n", c->name);

        /* The outer checksum partial, the inner complete (k = 0), then
         * both (k = 1, a tunnel device's GSO packet: the inner one is
         * finished first, then the outer one over it): finished in
         * software on every OVS version (OVS 3.3 to 3.6 would drop a
         * tunnel packet marked partial when they decapsulate it). */
        for (int k = 0; c->udp_csum && k < 2; k++) {
            if (k) {
                set_partial(p, pkt, t.i3, t.i4 + 16, c->inner_ipv6,
                            IPPROTO_TCP, tcp_len);
            }
            set_partial(p, pkt, t.o3, t.o4 + 6, c->outer_ipv6, IPPROTO_UDP,
                        udp_len);
            ovs_assert(afxdp_rxcsum_fix(p));
            ovs_assert(!memcmp(dp_packet_data(p), pkt, t.size));
            printf("received %s, %s partial: finished\n", c->name,
                   k ? "both checksums" : "outer checksum");
        }
        dp_packet_delete(p);
        free(pkt);
    }
}

static void
test_afxdp_tunnel_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct tnl_case cases[] = {
        { "vxlan, ipv4 in ipv4, 64 kB, mtu 1500", TNL_VXLAN, 0, false,
          false, false, true, 4789, IPPROTO_TCP, 65000, 1500, 3840, 0 },
        { "vxlan, ipv4 in ipv4, no udp checksum", TNL_VXLAN, 0, false,
          false, false, false, 4789, IPPROTO_TCP, 65000, 1500, 3840, 0 },
        { "vxlan, ipv6 in ipv6, mtu 1500", TNL_VXLAN, 0, true, true, false,
          true, 4789, IPPROTO_TCP, 40001, 1500, 3840, 0 },
        { "vxlan, ipv4 in ipv6, outer vlan", TNL_VXLAN, 0, true, false, true,
          true, 4789, IPPROTO_TCP, 20000, 1500, 3840, 0 },
        { "geneve, ipv4 in ipv4, 64 kB, mtu 1500", TNL_GENEVE, 0, false,
          false, false, true, 6081, IPPROTO_TCP, 65000, 1500, 3840, 0 },
        { "geneve, 8 option bytes (ovn), ipv4 in ipv4, mtu 1400",
          TNL_GENEVE, 8, false, false, false, true, 6081, IPPROTO_TCP, 65000,
          1400, 3840, 0 },
        { "geneve, options, ipv6 in ipv4, no udp checksum", TNL_GENEVE, 12,
          false, true, false, false, 6081, IPPROTO_TCP, 30000, 1500, 3840, 0 },
        { "geneve, ipv6 underlay, mtu 9000, one frame a segment",
          TNL_GENEVE, 8, true, false, false, true, 6081, IPPROTO_TCP, 60000,
          9000, 3840, 0 },
        /* A pod with MTU 1400 behind an underlay of 1500: segments for the
         * pod's MTU, not the 1442 bytes the underlay would carry. */
        { "geneve (ovn), from a pod with mtu 1400, underlay mtu 1500",
          TNL_GENEVE, 8, false, false, false, true, 6081, IPPROTO_TCP, 65000,
          1500, 3840, 1400 },
        { "vxlan, ipv6 in ipv6, from a pod with mtu 1280", TNL_VXLAN, 0, true,
          true, false, true, 4789, IPPROTO_TCP, 9000, 1500, 3840, 1280 },
    };
    struct tnl_case r = { "", TNL_VXLAN, 0, false, false, false, true, 4789,
                          IPPROTO_TCP, 3000, 1500, 3840, 0 };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        check_case(&cases[i], true);
        check_case(&cases[i], false);
    }

    /* 50 bytes of VXLAN, 32 of TCP, 20 of IP: 1398 bytes fit in 1500. */
    r.payload = 1398;
    check_verdict("vxlan packet of exactly the mtu", &r, AFXDP_TXSEG_FITS);
    r.src_mtu = 1400;
    check_verdict("vxlan packet within the mtu, its inner packet over the "
                  "mtu it came from", &r, AFXDP_TXSEG_OK);
    r.src_mtu = 0;
    r.payload = 3000;
    r.dst_port = 8472;
    check_verdict("vxlan on a port other than 4789", &r,
                  AFXDP_TXSEG_NOT_TCP);
    r.dst_port = 4789;
    r.inner_proto = IPPROTO_UDP;
    check_verdict("udp in vxlan", &r, AFXDP_TXSEG_NOT_TCP);
    r.inner_proto = IPPROTO_TCP;
    r.kind = TNL_GENEVE;
    r.dst_port = 4789;
    check_verdict("geneve header on the vxlan port (no I flag)", &r,
                  AFXDP_TXSEG_NOT_TCP);
    r.dst_port = 6081;
    r.kind = TNL_VXLAN;
    check_verdict("vxlan header on the geneve port (no ethernet type)", &r,
                  AFXDP_TXSEG_NOT_TCP);
    check_src_mtu();
    check_rx_inner_partial();
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-tunnel", test_afxdp_tunnel_main);
