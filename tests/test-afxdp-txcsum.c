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

/* Unit tests of TX checksum offload requests (lib/afxdp-txcsum.c): which
 * packets get a request, which are finished in software, and that both
 * give checksums the receiver accepts once the kernel has done its part.
 * Also, with the same packets, of the receive side (lib/afxdp-rxcsum.c):
 * which checksums it takes for pseudo-header-only ones, and what it makes
 * of them ("ovstest test-afxdp-rxcsum").
 *
 * Usage: ovstest test-afxdp-txcsum [bench]
 *        ovstest test-afxdp-rxcsum [bench]
 * Needs no privileges.  Prints one line per case and "PASS" at the end;
 * any failed check aborts with the failing expression.  With "bench",
 * prints instead the time per packet of a request and of a software
 * checksum; for rxcsum, the time per received packet of the check, on a
 * packet with a complete checksum and on a pseudo-header-only one. */

#include <config.h>
#undef NDEBUG

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "afxdp-compat.h"
#include "afxdp-rxcsum.h"
#include "afxdp-txcsum.h"
#include "csum.h"
#include "dp-packet.h"
#include "ovstest.h"
#include "packets.h"
#include "random.h"
#include "timeval.h"
#include "util.h"

/* How a test packet is made. */
struct pkt_spec {
    bool ipv6;                  /* IPv6, else IPv4. */
    bool tcp;                   /* TCP, else UDP. */
    int n_vlans;                /* VLAN tags after the Ethernet header. */
    bool ext_header;            /* IPv6 with a hop-by-hop header. */
    uint32_t payload;           /* L4 payload bytes. */
    uint32_t trailer;           /* Bytes after the IP payload. */
    bool partial;               /* Marked as a tap marks it. */
    bool mark_other;            /* Marked with the other L4 protocol. */
};

/* Appends 'n' bytes of 'p' to 'b'. */
static void
put(struct dp_packet *b, const void *p, size_t n)
{
    dp_packet_put(b, p, n);
}

/* Builds the packet 'spec' describes, with a stale value in its checksum
 * field.  Stores where its L3 and L4 headers start. */
static struct dp_packet *
make_packet(const struct pkt_spec *spec, uint32_t *l3, uint32_t *l4)
{
    static const uint8_t eth[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };
    uint32_t l4_len = (spec->tcp ? TCP_HEADER_LEN : UDP_HEADER_LEN)
                      + spec->payload;
    struct dp_packet *b = dp_packet_new(256 + l4_len);
    ovs_be16 type;
    uint8_t l4h[TCP_HEADER_LEN];

    put(b, eth, sizeof eth);
    for (int i = 0; i < spec->n_vlans; i++) {
        ovs_be16 tag[2] = { htons(ETH_TYPE_VLAN_8021Q), htons(100 + i) };

        put(b, tag, sizeof tag);
    }
    type = htons(spec->ipv6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP);
    put(b, &type, sizeof type);
    *l3 = dp_packet_size(b);
    if (!spec->ipv6) {
        struct ip_header ip;

        memset(&ip, 0, sizeof ip);
        ip.ip_ihl_ver = IP_IHL_VER(5, 4);
        ip.ip_tot_len = htons(IP_HEADER_LEN + l4_len);
        ip.ip_ttl = 64;
        ip.ip_proto = spec->tcp ? IPPROTO_TCP : IPPROTO_UDP;
        put_16aligned_be32(&ip.ip_src, htonl(0x0a010164));
        put_16aligned_be32(&ip.ip_dst, htonl(0x0a010101));
        ip.ip_csum = csum(&ip, sizeof ip);
        put(b, &ip, sizeof ip);
    } else {
        struct ovs_16aligned_ip6_hdr ip6;
        uint8_t hbh[8] = { 0, 0, 1, 4, 0, 0, 0, 0 };

        memset(&ip6, 0, sizeof ip6);
        put_16aligned_be32(&ip6.ip6_ctlun.ip6_un1.ip6_un1_flow,
                           htonl(6 << 28));
        ip6.ip6_ctlun.ip6_un1.ip6_un1_plen = htons(
            l4_len + (spec->ext_header ? sizeof hbh : 0));
        ip6.ip6_ctlun.ip6_un1.ip6_un1_hlim = 64;
        ip6.ip6_ctlun.ip6_un1.ip6_un1_nxt = (spec->ext_header
                                             ? IPPROTO_HOPOPTS
                                             : spec->tcp ? IPPROTO_TCP
                                             : IPPROTO_UDP);
        for (int i = 0; i < 16; i++) {
            ((uint8_t *) &ip6.ip6_src)[i] = 0x20 + i;
            ((uint8_t *) &ip6.ip6_dst)[i] = 0x40 + i;
        }
        put(b, &ip6, sizeof ip6);
        if (spec->ext_header) {
            hbh[0] = spec->tcp ? IPPROTO_TCP : IPPROTO_UDP;
            put(b, hbh, sizeof hbh);
        }
    }
    *l4 = dp_packet_size(b);
    memset(l4h, 0, sizeof l4h);
    l4h[1] = 80;                    /* Source port. */
    l4h[3] = 81;                    /* Destination port. */
    if (spec->tcp) {
        l4h[12] = 5 << 4;           /* Data offset. */
        l4h[16] = 0xde;             /* Stale checksum. */
        l4h[17] = 0xad;
    } else {
        l4h[4] = l4_len >> 8;
        l4h[5] = l4_len;
        l4h[6] = 0xbe;              /* Stale checksum. */
        l4h[7] = 0xef;
    }
    put(b, l4h, spec->tcp ? TCP_HEADER_LEN : UDP_HEADER_LEN);
    for (uint32_t i = 0; i < spec->payload; i++) {
        uint8_t c = i * 7 + 3;

        put(b, &c, 1);
    }
    for (uint32_t i = 0; i < spec->trailer; i++) {
        uint8_t c = 0x5a;

        put(b, &c, 1);
    }
    if (spec->partial) {
        afxdp_packet_set_l4_partial(b, spec->tcp != spec->mark_other);
    }
    return b;
}

/* Returns true if the TCP or UDP ('tcp') checksum of packet 'b' (L3 at
 * 'l3', L4 at 'l4', IPv6 if 'ipv6', no extension header) is what a
 * receiver accepts, computing the IPv4 pseudo-header with OVS's own
 * function. */
static bool
csum_valid(struct dp_packet *b, uint32_t l3, uint32_t l4, bool ipv6,
           bool tcp)
{
    const uint8_t *data = dp_packet_data(b);
    uint32_t pseudo, l4_len;

    if (!ipv6) {
        struct ip_header ip;

        memcpy(&ip, data + l3, sizeof ip);
        pseudo = packet_csum_pseudoheader(&ip);
        l4_len = ntohs(ip.ip_tot_len) - IP_HEADER_LEN;
    } else {
        struct ovs_16aligned_ip6_hdr ip6;

        memcpy(&ip6, data + l3, sizeof ip6);
        l4_len = ntohs(ip6.ip6_ctlun.ip6_un1.ip6_un1_plen);
        pseudo = csum_continue(0, &ip6.ip6_src, 32);
        pseudo = csum_add16(pseudo, htons(l4_len));
        pseudo = csum_add16(pseudo, htons(tcp ? IPPROTO_TCP : IPPROTO_UDP));
    }
    return !csum_finish(csum_continue(pseudo, data + l4, l4_len));
}

/* Does what the kernel does for a CHECKSUM_PARTIAL packet with request
 * 'md': sums from csum_start to the end, the field included, and stores
 * the folded sum (0xffff for 0, as a UDP checksum must not be 0). */
static void
kernel_finish(struct dp_packet *b, const struct afxdp_tx_metadata *md)
{
    uint8_t *data = dp_packet_data(b);
    ovs_be16 c;

    ovs_assert(md->flags == XDP_TXMD_FLAGS_CHECKSUM);
    ovs_assert(md->csum_start + md->csum_offset + 2 <= dp_packet_size(b));
    c = csum_finish(csum_continue(0, data + md->csum_start,
                                  dp_packet_size(b) - md->csum_start));
    if (!c) {
        c = htons(0xffff);
    }
    memcpy(data + md->csum_start + md->csum_offset, &c, sizeof c);
}

/* Runs one case: 'spec' sent with 'offload', expecting 'expect'. */
static void
check(const char *name, const struct pkt_spec *spec, bool offload,
      enum afxdp_txcsum_action expect)
{
    struct afxdp_tx_metadata md;
    enum afxdp_txcsum_action a;
    uint32_t l3, l4;
    struct dp_packet *b = make_packet(spec, &l3, &l4);

    printf("%s\n", name);
    memset(&md, 0xa5, sizeof md);
    a = afxdp_txcsum_check(b, offload, &md);
    ovs_assert(a == expect);
    if (a == AFXDP_TXCSUM_REQUEST) {
        ovs_assert(md.csum_start == l4);
        ovs_assert(md.csum_offset == (spec->tcp ? 16 : 6));
        ovs_assert(!md.launch_time);
        kernel_finish(b, &md);
    }
    if (a == AFXDP_TXCSUM_REQUEST || a == AFXDP_TXCSUM_SOFTWARE) {
        ovs_assert(csum_valid(b, l3, l4, spec->ipv6, spec->tcp));
    }
    dp_packet_delete(b);
}

/* "bench": nanoseconds per packet of a TCP packet of 'payload' bytes with
 * a request and finished in software, the CPU the send path spends on a
 * checksum either way. */
static void
bench(uint32_t payload)
{
    struct pkt_spec spec = { .tcp = true, .payload = payload,
                             .partial = true };
    const int n = 200000;

    for (int offload = 1; offload >= 0; offload--) {
        struct afxdp_tx_metadata md;
        uint32_t l3, l4;
        struct dp_packet *b = make_packet(&spec, &l3, &l4);
        long long int start = time_usec();

        for (int i = 0; i < n; i++) {
            afxdp_txcsum_check(b, offload, &md);
        }
        printf("%"PRIu32"-byte payload, %s: %.1f ns per packet\n", payload,
               offload ? "request" : "software",
               (time_usec() - start) * 1000.0 / n);
        dp_packet_delete(b);
    }
}

static void
test_afxdp_txcsum_main(int argc, char *argv[])
{
    struct pkt_spec s;

    if (argc > 1 && !strcmp(argv[1], "bench")) {
        bench(64);
        bench(1400);
        bench(8900);
        return;
    }

#define SPEC(...) (s = (struct pkt_spec) { __VA_ARGS__ }, &s)
    check("not partial", SPEC(.tcp = true, .payload = 100), true,
          AFXDP_TXCSUM_NONE);
    check("ipv4 tcp, offload", SPEC(.tcp = true, .payload = 1000,
                                    .partial = true),
          true, AFXDP_TXCSUM_REQUEST);
    check("ipv4 tcp, no metadata", SPEC(.tcp = true, .payload = 1000,
                                        .partial = true),
          false, AFXDP_TXCSUM_SOFTWARE);
    check("ipv4 udp, odd length", SPEC(.payload = 333, .partial = true),
          true, AFXDP_TXCSUM_REQUEST);
    check("ipv4 udp, empty", SPEC(.payload = 0, .partial = true),
          true, AFXDP_TXCSUM_REQUEST);
    check("ipv4 udp, ethernet padding", SPEC(.payload = 2, .trailer = 16,
                                             .partial = true),
          true, AFXDP_TXCSUM_SOFTWARE);
    check("ipv4 tcp, two vlans", SPEC(.tcp = true, .n_vlans = 2,
                                      .payload = 64, .partial = true),
          true, AFXDP_TXCSUM_REQUEST);
    check("ipv6 udp, vlan", SPEC(.ipv6 = true, .n_vlans = 1,
                                 .payload = 1400, .partial = true),
          true, AFXDP_TXCSUM_REQUEST);
    check("ipv6 tcp", SPEC(.ipv6 = true, .tcp = true, .payload = 9000,
                           .partial = true),
          true, AFXDP_TXCSUM_REQUEST);
    check("ipv6 tcp, no metadata", SPEC(.ipv6 = true, .tcp = true,
                                        .payload = 77, .partial = true),
          false, AFXDP_TXCSUM_SOFTWARE);
    check("ipv6 extension header", SPEC(.ipv6 = true, .ext_header = true,
                                        .payload = 10, .partial = true),
          true, AFXDP_TXCSUM_UNPARSED);
    check("marked tcp, is udp", SPEC(.payload = 10, .partial = true,
                                     .mark_other = true),
          true, AFXDP_TXCSUM_UNPARSED);
#undef SPEC
    printf("PASS\n");
}

/* What a received packet's checksum field holds, for the rx cases. */
enum rx_field {
    RX_STALE,                   /* Neither of the below. */
    RX_PSEUDO,                  /* The folded pseudo-header sum: a
                                 * CHECKSUM_PARTIAL sender's. */
    RX_COMPLETE,                /* A complete, valid checksum. */
    RX_COMPLETE_EQ_PSEUDO,      /* A complete, valid one that equals the
                                 * pseudo-header sum (payload chosen so). */
    RX_ZERO,                    /* 0: a UDP packet without checksum. */
};

/* Stores 'c' in the checksum field of packet 'b' (L4 at 'l4'). */
static void
set_field(struct dp_packet *b, uint32_t l4, bool tcp, ovs_be16 c)
{
    memcpy((uint8_t *) dp_packet_data(b) + l4 + (tcp ? 16 : 6), &c,
           sizeof c);
}

/* Returns the checksum field of packet 'b' (L4 at 'l4'). */
static ovs_be16
get_field(struct dp_packet *b, uint32_t l4, bool tcp)
{
    ovs_be16 c;

    memcpy(&c, (uint8_t *) dp_packet_data(b) + l4 + (tcp ? 16 : 6),
           sizeof c);
    return c;
}

/* Builds the packet 'spec' describes (never marked partial) with 'field'
 * in its checksum field.  Stores where its L3 and L4 headers start and the
 * pseudo-header sum that field RX_PSEUDO holds. */
static struct dp_packet *
make_rx_packet(const struct pkt_spec *spec, enum rx_field field,
               uint32_t *l3, uint32_t *l4, ovs_be16 *seed)
{
    struct pkt_spec s = *spec;
    struct dp_packet *b;
    struct afxdp_rxcsum_info info;
    uint8_t *data;

    s.partial = false;
    b = make_packet(&s, l3, l4);
    data = dp_packet_data(b);

    /* The detector's own parse gives the pseudo-header sum; the cases
     * below check it against OVS's checksum code. */
    set_field(b, *l4, s.tcp, 0);
    info.h.pseudo = 0;
    afxdp_l4hdrs_parse(data, dp_packet_size(b), &info.h);
    *seed = ~csum_finish(info.h.pseudo);
    switch (field) {
    case RX_STALE:
        set_field(b, *l4, s.tcp, htons(0xdead));
        break;
    case RX_PSEUDO:
        set_field(b, *l4, s.tcp, *seed);
        break;
    case RX_COMPLETE:
        info.tcp = s.tcp;
        info.csum_ofs = *l4 + (s.tcp ? 16 : 6);
        afxdp_rxcsum_finish(data, &info);
        break;
    case RX_COMPLETE_EQ_PSEUDO: {
        /* The field holds the seed; the payload's first word makes the
         * whole sum valid. */
        uint32_t word = *l4 + (s.tcp ? TCP_HEADER_LEN : UDP_HEADER_LEN);
        ovs_be16 fix = 0;

        ovs_assert(s.payload >= 2);
        set_field(b, *l4, s.tcp, *seed);
        memcpy(data + word, &fix, sizeof fix);
        fix = csum_finish(csum_continue(info.h.pseudo, data + *l4,
                                        info.h.l4_len));
        memcpy(data + word, &fix, sizeof fix);
        break;
    }
    case RX_ZERO:
        break;
    }
    return b;
}

/* Runs one rx case: a packet 'spec' received with 'field' in its checksum
 * field, which the receive side takes for pseudo-header-only if
 * 'expect'. */
static void
check_rx(const char *name, const struct pkt_spec *spec, enum rx_field field,
         bool expect)
{
    struct afxdp_rxcsum_info info;
    uint32_t l3, l4;
    ovs_be16 seed, before;
    struct dp_packet *b = make_rx_packet(spec, field, &l3, &l4, &seed);
    /* csum_valid() knows no IPv6 extension header (nor does the
     * detector, which leaves such a packet alone). */
    bool valid_before = !spec->ext_header
                        && csum_valid(b, l3, l4, spec->ipv6, spec->tcp);

    printf("rx: %s\n", name);
    before = get_field(b, l4, spec->tcp);
    ovs_assert(afxdp_rxcsum_detect(dp_packet_data(b), dp_packet_size(b),
                                   &info) == expect);
    /* The prefilter lets through every packet the detector takes, and
     * settles an untagged packet the detector leaves by itself. */
    ovs_assert(afxdp_rxcsum_may_be_partial(dp_packet_data(b),
                                           dp_packet_size(b))
               == (expect || spec->n_vlans > 0));
    ovs_assert(afxdp_rxcsum_fix(b) == expect);
    if (!expect) {
        /* Untouched: same field, not marked. */
        ovs_assert(get_field(b, l4, spec->tcp) == before);
        ovs_assert(!afxdp_packet_l4_partial(b));
        dp_packet_delete(b);
        return;
    }
    ovs_assert(info.tcp == spec->tcp);
    ovs_assert(info.csum_ofs == l4 + (spec->tcp ? 16 : 6));
    ovs_assert(info.h.l4_ofs == l4);
    if (AFXDP_OVS_CSUM_FALLBACK) {
        /* Marked partial, as OVS wants it; the field still holds the
         * pseudo-header sum, which is what a partial checksum is. */
        ovs_assert(afxdp_packet_l4_partial(b));
        ovs_assert(spec->tcp ? afxdp_packet_l4_tcp(b)
                             : afxdp_packet_l4_udp(b));
        ovs_assert(get_field(b, l4, spec->tcp) == seed);
        /* What OVS's software checksum (or the port's offload) will do:
         * finish it from scratch. */
        afxdp_rxcsum_finish(dp_packet_data(b), &info);
    } else {
        ovs_assert(!afxdp_packet_l4_partial(b));
    }
    ovs_assert(csum_valid(b, l3, l4, spec->ipv6, spec->tcp));
    if (valid_before) {
        /* A complete checksum equal to the seed stays what it was. */
        ovs_assert(get_field(b, l4, spec->tcp) == before);
    }
    dp_packet_delete(b);
}

/* Packets with random header bytes and sizes, from each kind of packet
 * the receive side takes, with the checksum field at random too or the
 * pseudo-header sum: the prefilter never turns away one that
 * afxdp_rxcsum_detect() takes.  Returns how many of them the detector
 * took, so that the caller can see the search found some. */
static int
check_rx_prefilter_random(void)
{
    static const int n_vlans[] = { 0, 0, 1, 2 };
    int taken = 0;

    random_set_seed(0x19);
    for (int i = 0; i < 20000; i++) {
        struct pkt_spec spec = {
            .ipv6 = random_uint32() & 1,
            .tcp = random_uint32() & 1,
            .n_vlans = n_vlans[random_range(ARRAY_SIZE(n_vlans))],
            .payload = random_range(40),
            .trailer = random_range(4) ? 0 : random_range(20),
        };
        enum rx_field field = random_range(2) ? RX_PSEUDO : RX_STALE;
        struct afxdp_rxcsum_info info;
        uint32_t l3, l4, size;
        ovs_be16 seed;
        struct dp_packet *b = make_rx_packet(&spec, field, &l3, &l4, &seed);
        uint8_t *data = dp_packet_data(b);

        /* Up to three header bytes changed (type, version, lengths,
         * protocol, addresses, checksum), and maybe a shorter packet. */
        for (int k = random_range(4); k > 0; k--) {
            data[random_range(MIN(dp_packet_size(b), 80))]
                = random_uint32();
        }
        size = dp_packet_size(b);
        if (!random_range(4)) {
            size = random_range(size + 1);
        }
        if (afxdp_rxcsum_detect(data, size, &info)) {
            ovs_assert(afxdp_rxcsum_may_be_partial(data, size));
            taken++;
        }
        dp_packet_delete(b);
    }
    return taken;
}

/* "bench" of test-afxdp-rxcsum: nanoseconds per packet that
 * afxdp_rxcsum_fix() adds to the receive path for a TCP packet of
 * 'payload' bytes with 'field'.  The marked packet is made again each
 * round, outside the timing, only where the check changes it. */
static void
bench_rx(uint32_t payload, enum rx_field field)
{
    struct pkt_spec spec = { .tcp = true, .payload = payload };
    const int n = 200000;
    uint32_t l3, l4;
    ovs_be16 seed;
    struct dp_packet *b = make_rx_packet(&spec, field, &l3, &l4, &seed);
    long long int start = time_usec();
    int hits = 0;

    for (int i = 0; i < n; i++) {
        hits += afxdp_rxcsum_fix(b);
        if (field == RX_PSEUDO && !AFXDP_OVS_CSUM_FALLBACK) {
            set_field(b, l4, true, seed);
        }
    }
    printf("%"PRIu32"-byte payload, %s: %.1f ns per packet (%d taken)\n",
           payload, field == RX_PSEUDO ? "pseudo-header only" : "complete",
           (time_usec() - start) * 1000.0 / n, hits);
    dp_packet_delete(b);
}

static void
test_afxdp_rxcsum_main(int argc, char *argv[])
{
    struct pkt_spec s;
    int taken;

    if (argc > 1 && !strcmp(argv[1], "bench")) {
        bench_rx(1400, RX_COMPLETE);
        bench_rx(1400, RX_PSEUDO);
        bench_rx(64, RX_PSEUDO);
        return;
    }

#define SPEC(...) (s = (struct pkt_spec) { __VA_ARGS__ }, &s)
    check_rx("ipv4 tcp, pseudo-header only", SPEC(.tcp = true,
                                                  .payload = 1000),
             RX_PSEUDO, true);
    check_rx("ipv4 tcp syn, no payload", SPEC(.tcp = true), RX_PSEUDO,
             true);
    check_rx("ipv4 udp, pseudo-header only, odd length",
             SPEC(.payload = 333), RX_PSEUDO, true);
    check_rx("ipv4 udp, ethernet padding", SPEC(.payload = 2,
                                                .trailer = 16),
             RX_PSEUDO, true);
    check_rx("ipv4 tcp, two vlans", SPEC(.tcp = true, .n_vlans = 2,
                                         .payload = 64),
             RX_PSEUDO, true);
    check_rx("ipv6 tcp, pseudo-header only", SPEC(.ipv6 = true, .tcp = true,
                                                  .payload = 1400),
             RX_PSEUDO, true);
    check_rx("ipv6 udp, vlan, pseudo-header only",
             SPEC(.ipv6 = true, .n_vlans = 1, .payload = 100),
             RX_PSEUDO, true);
    check_rx("ipv4 tcp, complete", SPEC(.tcp = true, .payload = 1000),
             RX_COMPLETE, false);
    check_rx("ipv6 udp, complete", SPEC(.ipv6 = true, .payload = 99),
             RX_COMPLETE, false);
    check_rx("ipv4 tcp, complete, equal to the pseudo-header sum",
             SPEC(.tcp = true, .payload = 100), RX_COMPLETE_EQ_PSEUDO, true);
    check_rx("ipv6 udp, complete, equal to the pseudo-header sum",
             SPEC(.ipv6 = true, .payload = 10), RX_COMPLETE_EQ_PSEUDO, true);
    check_rx("ipv4 tcp, wrong", SPEC(.tcp = true, .payload = 10), RX_STALE,
             false);
    check_rx("ipv4 udp, no checksum", SPEC(.payload = 10), RX_ZERO, false);
    check_rx("ipv6 udp, no checksum", SPEC(.ipv6 = true, .payload = 10),
             RX_ZERO, false);
    check_rx("ipv6 extension header", SPEC(.ipv6 = true, .ext_header = true,
                                           .tcp = true, .payload = 10),
             RX_PSEUDO, false);
#undef SPEC
    taken = check_rx_prefilter_random();
    printf("rx: prefilter, random headers: %d taken by the detector\n",
           taken);
    ovs_assert(taken > 0);
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-txcsum", test_afxdp_txcsum_main);
OVSTEST_REGISTER("test-afxdp-rxcsum", test_afxdp_rxcsum_main);
