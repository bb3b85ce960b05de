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

/* Unit tests of the send path's TCP segmentation (lib/afxdp-txseg.c):
 * crafted IPv4 and IPv6 TCP packets, with and without VLAN tags, IP and
 * TCP options and FIN/PSH/CWR, are cut for several MTUs, frame sizes and
 * TSO segment sizes; every header field and both checksums of every
 * segment are checked against the original packet, with the checksum
 * finished in software and through a TX metadata request (finished here
 * as the kernel would); packets of more segments than AFXDP_TXSEG_BURST
 * too (a receiver's MSS of 500, and less).  Then the packets it must send
 * whole (within the MTU) or refuse.
 *
 * Usage: ovstest test-afxdp-txseg [bench]
 * Needs no privileges.  Prints one line per case and "PASS" at the end;
 * any failed check aborts with the failing expression.  With "bench",
 * prints the time to cut a 64 kB packet for MTU 1500. */

#include <config.h>
#undef NDEBUG

#include <linux/if_xdp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afxdp-compat.h"
#include "afxdp-txseg.h"
#include "csum.h"
#include "ovstest.h"
#include "packets.h"
#include "test-afxdp-bytes.h"
#include "test-afxdp-l4sum.h"
#include "timeval.h"
#include "util.h"

/* A crafted packet. */
struct seg_case {
    const char *name;
    bool ipv6;                  /* IPv6, else IPv4. */
    int n_vlans;                /* VLAN tags. */
    int ip_opts;                /* IPv4 option bytes (multiple of 4). */
    int tcp_opts;               /* TCP option bytes (multiple of 4). */
    uint8_t flags;              /* TCP flags of the packet. */
    uint32_t payload;           /* TCP payload bytes. */
    uint32_t trailer;           /* Bytes after the IP packet. */
    uint32_t mtu;               /* Largest IP packet of a segment. */
    uint32_t max_len;           /* Largest segment, from Ethernet. */
    uint32_t segsz;             /* TSO segment size, 0 for none. */
};

#define SEQ0 0xfffff000u        /* Wraps within the first 64 kB. */
#define ACK0 0x01020304u
#define ID0 0xfffe              /* Wraps after two segments. */

/* Builds the packet of 'c' in a new buffer; stores its size and where
 * its IP header, TCP header and payload start. */
static uint8_t *
build(const struct seg_case *c, uint32_t *size, uint32_t *l3, uint32_t *l4,
      uint32_t *pl)
{
    uint32_t ip_hlen = c->ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN + c->ip_opts;
    uint32_t tcp_hlen = TCP_HEADER_LEN + c->tcp_opts;
    uint32_t n = ETH_HEADER_LEN + c->n_vlans * VLAN_HEADER_LEN + ip_hlen
                 + tcp_hlen + c->payload + c->trailer;
    uint8_t *b = xzalloc(n);
    uint32_t o = 0;

    for (int i = 0; i < 12; i++) {
        b[o++] = 0x10 + i;
    }
    for (int i = 0; i < c->n_vlans; i++) {
        tab_put16(b + o, i ? ETH_TYPE_VLAN_8021Q : ETH_TYPE_VLAN_8021AD);
        tab_put16(b + o + 2, 200 + i);
        o += VLAN_HEADER_LEN;
    }
    tab_put16(b + o, c->ipv6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP);
    o += 2;
    *l3 = o;
    if (c->ipv6) {
        tab_put32(b + o, 0x60012345);            /* Version, class, flow. */
        tab_put16(b + o + 4, tcp_hlen + c->payload);
        b[o + 6] = IPPROTO_TCP;
        b[o + 7] = 63;
        for (int i = 0; i < 32; i++) {
            b[o + 8 + i] = 0xa0 + i;
        }
    } else {
        b[o] = 0x40 | (ip_hlen / 4);
        b[o + 1] = 0x28;                    /* DSCP, ECN. */
        tab_put16(b + o + 2, ip_hlen + tcp_hlen + c->payload);
        tab_put16(b + o + 4, ID0);
        tab_put16(b + o + 6, 0x4000);            /* DF. */
        b[o + 8] = 61;
        b[o + 9] = IPPROTO_TCP;
        tab_put32(b + o + 12, 0xc0a80001);
        tab_put32(b + o + 16, 0xc0a80102);
        for (int i = 0; i < c->ip_opts; i++) {
            b[o + IP_HEADER_LEN + i] = 1;   /* NOPs. */
        }
        tab_put16(b + o + 10, 0x1111);           /* Stale. */
    }
    o += ip_hlen;
    *l4 = o;
    tab_put16(b + o, 40000);
    tab_put16(b + o + 2, 443);
    tab_put32(b + o + 4, SEQ0);
    tab_put32(b + o + 8, ACK0);
    b[o + 12] = (tcp_hlen / 4) << 4;
    b[o + 13] = c->flags;
    tab_put16(b + o + 14, 501);
    tab_put16(b + o + 16, 0x2222);               /* Stale. */
    tab_put16(b + o + 18, 7);
    for (int i = 0; i < c->tcp_opts; i++) {
        b[o + TCP_HEADER_LEN + i] = 0x30 + i;
    }
    o += tcp_hlen;
    *pl = o;
    for (uint32_t i = 0; i < c->payload; i++) {
        b[o++] = (i * 131 + i / 251) & 0xff;
    }
    for (uint32_t i = 0; i < c->trailer; i++) {
        b[o++] = 0xee;
    }
    ovs_assert(o == n);
    *size = n;
    return b;
}

/* Finishes the checksum of the 'len' bytes at 's' as the kernel does for
 * the request 'md'. */
static void
kernel_finish(uint8_t *s, uint32_t len, const struct afxdp_tx_metadata *md)
{
    ovs_be16 c;

    ovs_assert(md->flags == XDP_TXMD_FLAGS_CHECKSUM);
    ovs_assert(md->csum_start + md->csum_offset + 2 <= len);
    c = csum_finish(csum_continue(0, s + md->csum_start,
                                  len - md->csum_start));
    memcpy(s + md->csum_start + md->csum_offset, &c, sizeof c);
}

/* The payload per segment that 'c' must give, worked out apart from the
 * code under test. */
static uint32_t
expected_mss(const struct seg_case *c, uint32_t pl, uint32_t l3)
{
    uint32_t hdrs = pl - l3;
    uint32_t mss = c->mtu - hdrs;

    mss = MIN(mss, c->max_len - pl);
    return c->segsz ? MIN(mss, c->segsz) : mss;
}

/* Cuts the packet of 'c' and checks every segment, with the checksum
 * offloaded if 'offload'. */
static void
check_case(const struct seg_case *c, bool offload)
{
    uint32_t size, l3, l4, pl;
    uint8_t *pkt = build(c, &size, &l3, &l4, &pl);
    uint8_t *orig = xmemdup(pkt, size);
    uint32_t mss = expected_mss(c, pl, l3), n_exp, got = 0;
    uint32_t ip_hlen = l4 - l3, tcp_hlen = pl - l4;
    struct afxdp_txseg seg;
    uint8_t *s = xmalloc(c->max_len);

    ovs_assert(afxdp_txseg_plan(pkt, size, c->mtu, c->max_len, c->segsz, 0,
                                &seg) == AFXDP_TXSEG_OK);
    n_exp = DIV_ROUND_UP(c->payload, mss);
    ovs_assert(seg.mss == mss);
    ovs_assert(seg.n_segs == n_exp);
    ovs_assert(seg.hdr_len == pl);

    for (uint32_t i = 0; i < seg.n_segs; i++) {
        uint32_t len_exp = MIN(mss, c->payload - i * mss);
        struct afxdp_tx_metadata md;
        bool last = i + 1 == seg.n_segs;
        uint8_t flags;
        uint32_t len;

        memset(s, 0xcc, c->max_len);
        memset(&md, 0, sizeof md);
        len = afxdp_txseg_write(&seg, pkt, i, s, offload, &md);
        ovs_assert(len == pl + len_exp);
        ovs_assert(len <= c->max_len);
        ovs_assert(len - l3 <= c->mtu);
        ovs_assert(len == c->max_len || s[len] == 0xcc);

        /* Ethernet and VLAN headers as they were. */
        ovs_assert(!memcmp(s, orig, l3));
        if (c->ipv6) {
            ovs_assert(tab_get16(s + l3 + 4) == tcp_hlen + len_exp);
            ovs_assert(!memcmp(s + l3, orig + l3, 4));
            ovs_assert(!memcmp(s + l3 + 6, orig + l3 + 6, 34));
        } else {
            ovs_assert(s[l3] == orig[l3] && s[l3 + 1] == orig[l3 + 1]);
            ovs_assert(tab_get16(s + l3 + 2) == ip_hlen + tcp_hlen + len_exp);
            ovs_assert(tab_get16(s + l3 + 4) == (uint16_t) (ID0 + i));
            ovs_assert(!memcmp(s + l3 + 6, orig + l3 + 6, 4));
            ovs_assert(!memcmp(s + l3 + 12, orig + l3 + 12, ip_hlen - 12));
            ovs_assert(!csum(s + l3, ip_hlen));
        }

        ovs_assert(!memcmp(s + l4, orig + l4, 4));              /* Ports. */
        ovs_assert(tab_get32(s + l4 + 4) == SEQ0 + i * mss);
        ovs_assert(tab_get32(s + l4 + 8) == ACK0);
        ovs_assert(s[l4 + 12] == orig[l4 + 12]);
        flags = c->flags;
        if (i) {
            flags &= ~0x80;                                     /* CWR. */
        }
        if (!last) {
            flags &= ~0x09;                                     /* FIN PSH. */
        }
        ovs_assert(s[l4 + 13] == flags);
        ovs_assert(!memcmp(s + l4 + 14, orig + l4 + 14, 2));    /* Window. */
        ovs_assert(!memcmp(s + l4 + 18, orig + l4 + 18, 2 + c->tcp_opts));
        ovs_assert(!memcmp(s + pl, orig + pl + i * mss, len_exp));

        if (offload) {
            ovs_assert(md.csum_start == l4);
            ovs_assert(md.csum_offset == 16);
            kernel_finish(s, len, &md);
        } else {
            ovs_assert(!md.flags);
        }
        ovs_assert(!tab_l4_sum(s, l3, l4, len - l4, c->ipv6, IPPROTO_TCP));
        got += len_exp;
    }
    ovs_assert(got == c->payload);
    /* The packet itself is left as it was. */
    ovs_assert(!memcmp(pkt, orig, size));
    printf("%s, checksum %s: %"PRIu32" segments of %"PRIu32" bytes\n",
           c->name, offload ? "requested" : "in software", seg.n_segs, mss);
    free(s);
    free(orig);
    free(pkt);
}

/* Checks that the packet of 'c', changed by 'mangle' if nonnull, gets
 * 'verdict'. */
static void
check_verdict(const char *name, const struct seg_case *c,
              void (*mangle)(uint8_t *, uint32_t *size, uint32_t l3,
                             uint32_t l4),
              enum afxdp_txseg_verdict verdict)
{
    uint32_t size, l3, l4, pl;
    uint8_t *pkt = build(c, &size, &l3, &l4, &pl);
    struct afxdp_txseg seg;

    if (mangle) {
        mangle(pkt, &size, l3, l4);
    }
    ovs_assert(afxdp_txseg_plan(pkt, size, c->mtu, c->max_len, c->segsz, 0,
                                &seg) == verdict);
    printf("%s: %s\n", name,
           verdict == AFXDP_TXSEG_NOT_TCP ? "not TCP, sent as it is"
           : verdict == AFXDP_TXSEG_FITS ? "within the MTU, sent whole"
           : verdict == AFXDP_TXSEG_OK ? "cut"
           : "malformed, dropped");
    free(pkt);
}

static void
to_udp(uint8_t *p, uint32_t *size OVS_UNUSED, uint32_t l3, uint32_t l4)
{
    p[l3 + 9] = IPPROTO_UDP;
    (void) l4;
}

static void
to_fragment(uint8_t *p, uint32_t *size OVS_UNUSED, uint32_t l3,
            uint32_t l4 OVS_UNUSED)
{
    tab_put16(p + l3 + 6, 0x2000);               /* More fragments. */
}

static void
doff_short(uint8_t *p, uint32_t *size OVS_UNUSED, uint32_t l3 OVS_UNUSED,
           uint32_t l4)
{
    p[l4 + 12] = 4 << 4;
}

static void
truncate_it(uint8_t *p OVS_UNUSED, uint32_t *size, uint32_t l3 OVS_UNUSED,
            uint32_t l4 OVS_UNUSED)
{
    *size -= 100;
}

static void
to_arp(uint8_t *p, uint32_t *size OVS_UNUSED, uint32_t l3,
       uint32_t l4 OVS_UNUSED)
{
    tab_put16(p + l3 - 2, ETH_TYPE_ARP);
}

/* A plan of more segments than AFXDP_TXSEG_BURST is not refused: 64 kB
 * at a TSO segment size of 488 (a receiver's MSS of 500) and of 1 byte,
 * IPv4 and IPv6. */
static void
check_many_segs(void)
{
    static const struct {
        bool ipv6;
        uint32_t payload, segsz, n_segs;
    } plans[] = {
        { false, 64904, 488, 133 },
        { true, 65000, 488, 134 },
        { false, 65495, 1, 65495 },
        { true, 65515, 1, 65515 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(plans); i++) {
        struct seg_case c = { .ipv6 = plans[i].ipv6,
                              .payload = plans[i].payload, .mtu = 1500,
                              .max_len = 3840, .segsz = plans[i].segsz,
                              .flags = 0x10 };
        uint32_t size, l3, l4, pl;
        uint8_t *pkt = build(&c, &size, &l3, &l4, &pl);
        struct afxdp_txseg seg;

        ovs_assert(afxdp_txseg_plan(pkt, size, c.mtu, c.max_len, c.segsz, 0,
                                    &seg) == AFXDP_TXSEG_OK);
        ovs_assert(seg.mss == plans[i].segsz);
        ovs_assert(seg.n_segs == plans[i].n_segs);
        ovs_assert(seg.n_segs > AFXDP_TXSEG_BURST);
        printf("%s, %"PRIu32" bytes, tso segment size %"PRIu32": "
               "%"PRIu32" segments, more than AFXDP_TXSEG_BURST\n",
               c.ipv6 ? "ipv6" : "ipv4", c.payload, c.segsz, seg.n_segs);
        free(pkt);
    }
}

/* "bench": nanoseconds to cut a 64 kB IPv4 packet for MTU 1500. */
static void
bench(bool offload)
{
    struct seg_case c = { .name = "bench", .payload = 65000, .mtu = 1500,
                          .max_len = 3840, .flags = 0x18 };
    uint32_t size, l3, l4, pl;
    uint8_t *pkt = build(&c, &size, &l3, &l4, &pl);
    uint8_t *s = xmalloc(c.max_len);
    struct afxdp_tx_metadata md;
    struct afxdp_txseg seg;
    const int n = 2000;
    long long int start = time_usec();

    for (int k = 0; k < n; k++) {
        ovs_assert(afxdp_txseg_plan(pkt, size, c.mtu, c.max_len, 0, 0, &seg)
                   == AFXDP_TXSEG_OK);
        for (uint32_t i = 0; i < seg.n_segs; i++) {
            afxdp_txseg_write(&seg, pkt, i, s, offload, &md);
        }
    }
    printf("64 kB into %"PRIu32" segments, checksum %s: %.0f ns per packet\n",
           seg.n_segs, offload ? "requested" : "in software",
           (time_usec() - start) * 1000.0 / n);
    free(s);
    free(pkt);
}

static void
test_afxdp_txseg_main(int argc, char *argv[])
{
    static const struct seg_case cases[] = {
        { "ipv4, 64 kB, mtu 1500", .payload = 65000, .mtu = 1500,
          .max_len = 3840, .flags = 0x18 },
        { "ipv4, timestamps, FIN PSH CWR, mtu 1500", .tcp_opts = 12,
          .payload = 60000, .mtu = 1500, .max_len = 3840, .flags = 0x99 },
        { "ipv4, ip options, two vlans, mtu 1500", .ip_opts = 8,
          .n_vlans = 2, .tcp_opts = 12, .payload = 20000, .mtu = 1500,
          .max_len = 3840, .flags = 0x10 },
        { "ipv4, payload a multiple of the mss", .payload = 1460 * 5,
          .mtu = 1500, .max_len = 3840, .flags = 0x19 },
        { "ipv4, ethernet trailer not sent", .payload = 3000, .trailer = 6,
          .mtu = 1500, .max_len = 3840, .flags = 0x18 },
        { "ipv4, mtu 576", .payload = 65000, .mtu = 576, .max_len = 3840,
          .flags = 0x10 },
        { "ipv4, tso segment size 1000", .payload = 10000, .mtu = 1500,
          .max_len = 3840, .segsz = 1000, .flags = 0x10 },
        { "ipv4, within the mtu, tso segment size 500", .payload = 1400,
          .mtu = 1500, .max_len = 3840, .segsz = 500, .flags = 0x18 },
        { "ipv4, tso segment size above the mtu's", .payload = 10000,
          .mtu = 1500, .max_len = 3840, .segsz = 8000, .flags = 0x10 },
        { "ipv4, mtu 9000, one frame per segment", .payload = 30000,
          .mtu = 9000, .max_len = 3840, .flags = 0x10 },
        { "ipv6, 64 kB, mtu 1500", .ipv6 = true, .payload = 65000,
          .mtu = 1500, .max_len = 3840, .flags = 0x18 },
        { "ipv6, vlan, timestamps, FIN CWR", .ipv6 = true, .n_vlans = 1,
          .tcp_opts = 12, .payload = 9999, .mtu = 1500, .max_len = 3840,
          .flags = 0x81 },
        { "ipv6, mtu 1280, odd payload", .ipv6 = true, .payload = 4097,
          .mtu = 1280, .max_len = 3840, .flags = 0x18 },
        /* More segments than the send path writes at once
         * (AFXDP_TXSEG_BURST): a receiver's MSS of 500 less timestamps,
         * and smaller. */
        { "ipv4, 64 kB, timestamps, tso segment size 488", .tcp_opts = 12,
          .payload = 64904, .mtu = 1500, .max_len = 3840, .segsz = 488,
          .flags = 0x18 },
        { "ipv6, 64 kB, timestamps, tso segment size 488", .ipv6 = true,
          .tcp_opts = 12, .payload = 65000, .mtu = 1500, .max_len = 3840,
          .segsz = 488, .flags = 0x99 },
        { "ipv4, largest payload, tso segment size 8", .payload = 65495,
          .mtu = 1500, .max_len = 3840, .segsz = 8, .flags = 0x19 },
    };
    struct seg_case r = { .payload = 3000, .mtu = 1500, .max_len = 3840,
                          .flags = 0x10 };

    if (argc > 1 && !strcmp(argv[1], "bench")) {
        bench(true);
        bench(false);
        return;
    }
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        check_case(&cases[i], true);
        check_case(&cases[i], false);
    }

    r.payload = 1460;
    check_verdict("ipv4 tcp of exactly the mtu", &r, NULL, AFXDP_TXSEG_FITS);
    r.n_vlans = 2;
    check_verdict("ipv4 tcp of the mtu, two vlans", &r, NULL,
                  AFXDP_TXSEG_FITS);
    check_verdict("ipv4 tcp of the mtu, data offset below 5", &r,
                  doff_short, AFXDP_TXSEG_FITS);
    r.n_vlans = 0;
    r.segsz = 1460;
    check_verdict("ipv4 tso packet of the mtu, payload the segment size", &r,
                  NULL, AFXDP_TXSEG_FITS);
    r.segsz = 500;
    check_verdict("ipv4 tso packet of the mtu, data offset below 5", &r,
                  doff_short, AFXDP_TXSEG_FITS);
    check_verdict("ipv4 tso packet of the mtu, payload over the segment size",
                  &r, NULL, AFXDP_TXSEG_OK);
    r.segsz = 0;
    r.ipv6 = true;
    r.payload = 1440;
    check_verdict("ipv6 tcp of exactly the mtu", &r, NULL, AFXDP_TXSEG_FITS);
    r.payload = 1441;
    r.max_len = 1000;
    check_verdict("ipv6 tcp one byte over the mtu", &r, NULL,
                  AFXDP_TXSEG_OK);
    r.ipv6 = false;
    r.max_len = 3840;
    r.payload = 3000;
    check_verdict("udp", &r, to_udp, AFXDP_TXSEG_NOT_TCP);
    check_verdict("ipv4 fragment", &r, to_fragment, AFXDP_TXSEG_NOT_TCP);
    check_verdict("arp", &r, to_arp, AFXDP_TXSEG_NOT_TCP);
    check_verdict("truncated", &r, truncate_it, AFXDP_TXSEG_NOT_TCP);
    check_verdict("tcp data offset below 5", &r, doff_short,
                  AFXDP_TXSEG_MALFORMED);
    r.payload = 0;
    r.tcp_opts = 40;
    r.mtu = 64;
    check_verdict("tcp header over an mtu of 64, no payload", &r, NULL,
                  AFXDP_TXSEG_MALFORMED);
    r.payload = 3000;
    r.tcp_opts = 0;
    r.mtu = 40;
    check_verdict("mtu leaves no payload", &r, NULL, AFXDP_TXSEG_MALFORMED);
    r.mtu = 1500;
    r.payload = 60000;
    r.segsz = 200;
    check_verdict("more segments than AFXDP_TXSEG_BURST", &r, NULL,
                  AFXDP_TXSEG_OK);
    check_many_segs();
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-txseg", test_afxdp_txseg_main);
