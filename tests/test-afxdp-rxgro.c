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

/* Unit tests of the receive path's merging of TCP segments
 * (lib/afxdp-rxgro.c): a crafted TCP packet (IPv4 or IPv6, a VLAN tag,
 * bare or in VXLAN or Geneve with options, outer UDP checksum on and off)
 * is cut into segments by the send path (lib/afxdp-txseg.c), with an odd
 * segment size too; the segments, in one batch, must merge back into one
 * packet with the original's bytes, valid checksums as a receiver checks
 * them and the segment size noted.  Then the runs that must end: a gap in
 * the sequence, a segment out of order, a wrong checksum (counted, and
 * the segment left as it was), FIN, PSH in the middle, a short segment in
 * the middle, other TCP options, two connections interleaved; and small
 * segments, which are not looked at.  Trains (afxdp-txgso.h): a tunnelled
 * packet written as one by the send path must merge back into the
 * original; a 64 kB one takes two trains; a train with a wrong byte is
 * counted and left as it was.
 *
 * Usage: ovstest test-afxdp-rxgro
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
#include "afxdp-rxgro.h"
#include "afxdp-txgso.h"
#include "afxdp-txseg.h"
#include "csum.h"
#include "dp-packet.h"
#include "ovstest.h"
#include "packets.h"
#include "test-afxdp-bytes.h"
#include "test-afxdp-l4sum.h"
#include "util.h"

enum tnl { BARE, VXLAN, GENEVE };

struct gro_case {
    const char *name;
    enum tnl tnl;
    bool outer_ipv6;            /* In a tunnel. */
    bool ipv6;                  /* The TCP packet's IP. */
    bool vlan;                  /* On the outermost Ethernet. */
    bool udp_csum;              /* Outer UDP checksum set. */
    uint32_t payload;           /* TCP payload bytes. */
    uint32_t mtu;               /* Largest (outer) IP packet of a seg. */
};

/* A built packet and where its headers are. */
struct built {
    uint8_t *b;
    uint32_t size;
    uint32_t o3, o4;            /* Outer IP and UDP, in a tunnel. */
    uint32_t i3, i4;            /* The TCP packet's IP and TCP. */
};

#define TCP_HLEN 32             /* With timestamps. */

static uint32_t
put_ip(uint8_t *b, bool ipv6, uint8_t proto, uint32_t l4_len, uint8_t base)
{
    if (ipv6) {
        tab_put32(b, 0x60000000);
        tab_put16(b + 4, l4_len);
        b[6] = proto;
        b[7] = 64;
        for (int i = 0; i < 32; i++) {
            b[8 + i] = base + i;
        }
        return IPV6_HEADER_LEN;
    }
    b[0] = 0x45;
    tab_put16(b + 2, IP_HEADER_LEN + l4_len);
    tab_put16(b + 4, 0x4321);
    tab_put16(b + 6, 0x4000);
    b[8] = 64;
    b[9] = proto;
    for (int i = 0; i < 8; i++) {
        b[12 + i] = base + i;
    }
    return IP_HEADER_LEN;
}

/* Builds the packet of 'c', TCP flags ACK (and PSH if 'psh'), its
 * checksums stale: the send path computes every segment's. */
static struct built
build(const struct gro_case *c, bool psh)
{
    uint32_t tnl_hlen = c->tnl == GENEVE ? 16 : 8;
    uint32_t ip = c->ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN;
    uint32_t tcp_len = TCP_HLEN + c->payload;
    struct built t;
    uint32_t o;

    t.b = xzalloc(256 + tcp_len);
    if (c->tnl == BARE) {
        t.o3 = t.o4 = 0;
        t.i3 = tab_put_eth(t.b, 0x20, c->vlan, c->ipv6);
    } else {
        uint32_t udp_len = UDP_HEADER_LEN + tnl_hlen + ETH_HEADER_LEN + ip
                           + tcp_len;

        t.o3 = tab_put_eth(t.b, 0x10, c->vlan, c->outer_ipv6);
        t.o4 = t.o3 + put_ip(t.b + t.o3, c->outer_ipv6, IPPROTO_UDP,
                             udp_len, 0x40);
        tab_put16(t.b + t.o4, 51000);
        tab_put16(t.b + t.o4 + 2, c->tnl == VXLAN ? 4789 : 6081);
        tab_put16(t.b + t.o4 + 4, udp_len);
        tab_put16(t.b + t.o4 + 6, c->udp_csum ? 0x7777 : 0);
        o = t.o4 + UDP_HEADER_LEN;
        if (c->tnl == VXLAN) {
            t.b[o] = 0x08;
        } else {
            t.b[o] = 2;                         /* 8 option bytes. */
            tab_put16(t.b + o + 2, 0x6558);
            for (int i = 0; i < 8; i++) {
                t.b[o + 8 + i] = 0x70 + i;
            }
        }
        tab_put32(t.b + o + 4, 0x00abcd00);
        o += tnl_hlen;
        t.i3 = o + tab_put_eth(t.b + o, 0x20, false, c->ipv6);
    }
    t.i4 = t.i3 + put_ip(t.b + t.i3, c->ipv6, IPPROTO_TCP, tcp_len, 0x80);
    o = t.i4;
    tab_put16(t.b + o, 40000);
    tab_put16(t.b + o + 2, 80);
    tab_put32(t.b + o + 4, 0xfffff000u);        /* Wraps. */
    tab_put32(t.b + o + 8, 0x01020304);
    t.b[o + 12] = (TCP_HLEN / 4) << 4;
    t.b[o + 13] = psh ? 0x18 : 0x10;
    tab_put16(t.b + o + 14, 1000);
    t.b[o + 20] = 1;                            /* NOP NOP timestamps. */
    t.b[o + 21] = 1;
    t.b[o + 22] = 8;
    t.b[o + 23] = 10;
    tab_put32(t.b + o + 24, 0x11111111);
    tab_put32(t.b + o + 28, 0x22222222);
    for (uint32_t i = 0; i < c->payload; i++) {
        t.b[o + TCP_HLEN + i] = (i * 151 + i / 253) & 0xff;
    }
    t.size = o + tcp_len;
    return t;
}

/* Cuts 'pkt' for 'c''s MTU into 'batch' (emptied first), each segment in a
 * packet of its own; returns the segment size. */
static uint32_t
cut(const struct gro_case *c, const struct built *pkt,
    struct dp_packet_batch *batch)
{
    struct afxdp_txseg seg;
    uint8_t *buf = xmalloc(65536);

    ovs_assert(afxdp_txseg_plan(pkt->b, pkt->size, c->mtu, UINT32_MAX, 0, 0,
                                &seg) == AFXDP_TXSEG_OK);
    ovs_assert(seg.n_segs <= NETDEV_MAX_BURST);
    dp_packet_batch_init(batch);
    for (uint32_t i = 0; i < seg.n_segs; i++) {
        struct afxdp_tx_metadata md;
        uint32_t len = afxdp_txseg_write(&seg, pkt->b, i, buf, false, &md);

        dp_packet_batch_add(batch, dp_packet_clone_data(buf, len));
    }
    free(buf);
    return seg.mss;
}

static uint32_t last_seg_mtu;

static struct dp_packet *
new_packet(const struct dp_packet *first OVS_UNUSED, uint32_t size,
           uint32_t seg_mtu)
{
    last_seg_mtu = seg_mtu;
    return dp_packet_new_with_headroom(size, 64);
}

/* Checks, as a receiver would, every checksum of 'p', built as 'pkt'. */
static void
check_csums(const struct gro_case *c, const struct built *pkt,
            const uint8_t *p, uint32_t size)
{
    if (!c->ipv6) {
        ovs_assert(!csum(p + pkt->i3, IP_HEADER_LEN));
    }
    ovs_assert(!tab_l4_sum(p, pkt->i3, pkt->i4, size - pkt->i4, c->ipv6,
                           IPPROTO_TCP));
    if (c->tnl != BARE) {
        if (!c->outer_ipv6) {
            ovs_assert(!csum(p + pkt->o3, IP_HEADER_LEN));
        }
        ovs_assert(tab_get16(p + pkt->o4 + 4) == size - pkt->o4);
        if (c->udp_csum) {
            ovs_assert(tab_get16(p + pkt->o4 + 6));
            ovs_assert(!tab_l4_sum(p, pkt->o3, pkt->o4, size - pkt->o4,
                                   c->outer_ipv6, IPPROTO_UDP));
        } else {
            ovs_assert(!tab_get16(p + pkt->o4 + 6));
        }
    }
}

/* True if 'a' and 'b' of 'size' bytes differ only in checksums. */
static bool
same_but_csums(const struct built *pkt, const struct gro_case *c,
               const uint8_t *a, const uint8_t *b, uint32_t size)
{
    for (uint32_t i = 0; i < size; i++) {
        bool csum_byte = ((!c->ipv6 && i >= pkt->i3 + 10 && i < pkt->i3 + 12)
                          || (i >= pkt->i4 + 16 && i < pkt->i4 + 18)
                          || (c->tnl != BARE && !c->outer_ipv6
                              && i >= pkt->o3 + 10 && i < pkt->o3 + 12)
                          || (c->tnl != BARE
                              && i >= pkt->o4 + 6 && i < pkt->o4 + 8));

        if (!csum_byte && a[i] != b[i]) {
            return false;
        }
    }
    return true;
}

/* Cut and merged back: one packet, the original's bytes. */
static void
check_round_trip(const struct gro_case *c)
{
    struct built pkt = build(c, true);
    struct afxdp_rxgro_stats st = { 0 };
    struct dp_packet_batch batch;
    uint32_t mss = cut(c, &pkt, &batch);
    size_t n = dp_packet_batch_size(&batch);
    struct dp_packet *m;

    printf("%s: %"PRIuSIZE" segments of %"PRIu32" bytes\n", c->name, n, mss);
    afxdp_rxgro_batch(&batch, 0, new_packet, &st);
    ovs_assert(dp_packet_batch_size(&batch) == 1);
    ovs_assert(st.merged == 1 && st.segs == n && !st.bad_csum);
    m = batch.packets[0];
    ovs_assert(dp_packet_size(m) == pkt.size);
    ovs_assert(same_but_csums(&pkt, c, pkt.b, dp_packet_data(m), pkt.size));
    check_csums(c, &pkt, dp_packet_data(m), pkt.size);
    ovs_assert(last_seg_mtu == pkt.i4 - pkt.i3 + TCP_HLEN + mss);
    dp_packet_delete_batch(&batch, true);
    free(pkt.b);
}

/* The tunnelled packet of 'c', with 'payload' bytes, as trains from the
 * send path, each merged back by the receive path: one packet per train,
 * and with one train the original's bytes. */
static void
check_train(const struct gro_case *c_, uint32_t payload)
{
    struct gro_case c = *c_;
    struct built pkt;
    struct afxdp_txseg seg;
    uint8_t *buf = xmalloc(AFXDP_TXGSO_TRAIN_BUF);
    uint32_t per_train, done = 0, merged_payload = 0, n_trains = 0;

    c.payload = payload;
    pkt = build(&c, true);
    ovs_assert(afxdp_txseg_plan(pkt.b, pkt.size, c.mtu, UINT32_MAX, 0, 0,
                                &seg) == AFXDP_TXSEG_OK);
    /* A train's UDP checksum is the kernel's to finish, so each piece has
     * one: the packet merged from a train has one too. */
    c.udp_csum = true;
    per_train = afxdp_txgso_train_segs(&seg);
    while (done < seg.n_segs) {
        uint32_t n = MIN(per_train, seg.n_segs - done);
        uint32_t len = afxdp_txgso_train_write(&seg, pkt.b, done, n, buf);
        struct afxdp_rxgro_stats st = { 0 };
        struct dp_packet *t = dp_packet_clone_data(buf, len);
        struct dp_packet *m = afxdp_rxgro_train(t, new_packet, &st);
        const uint8_t *md;

        ovs_assert(len <= 65535 + pkt.o3);
        ovs_assert(m && st.trains == 1 && st.train_segs == n
                   && !st.bad_trains);
        md = dp_packet_data(m);
        check_csums(&c, &pkt, md, dp_packet_size(m));
        if (n == seg.n_segs) {
            ovs_assert(dp_packet_size(m) == pkt.size);
            ovs_assert(same_but_csums(&pkt, &c, pkt.b, md, pkt.size));
        }
        if (!c.outer_ipv6) {
            /* The kernel numbers a train's segments from its first one's
             * outer IPv4 identification: the packet's + that segment's
             * index, as every segment cut here has it. */
            ovs_assert(afxdp_l4hdrs_get16(md + pkt.o3 + 4)
                       == (uint16_t) (afxdp_l4hdrs_get16(pkt.b + pkt.o3 + 4)
                                      + done));
        }
        merged_payload += dp_packet_size(m) - seg.hdr_len;
        ovs_assert(last_seg_mtu == pkt.i4 - pkt.i3 + TCP_HLEN + seg.mss);

        /* One byte of the last segment's payload changed: refused, and
         * left as it was. */
        buf[len - 1] ^= 0x5a;
        dp_packet_delete(t);
        t = dp_packet_clone_data(buf, len);
        memset(&st, 0, sizeof st);
        ovs_assert(!afxdp_rxgro_train(t, new_packet, &st));
        ovs_assert(st.bad_trains == 1 && !st.trains);
        ovs_assert(dp_packet_size(t) == len
                   && !memcmp(dp_packet_data(t), buf, len));
        dp_packet_delete(t);
        dp_packet_delete(m);
        done += n;
        n_trains++;
    }
    ovs_assert(merged_payload == payload);
    printf("%s: %"PRIu32" bytes in %"PRIu32" train(s) of up to %"PRIu32
           " segments\n", c.name, payload, n_trains, per_train);
    free(buf);
    free(pkt.b);
}

/* Segment 'i' of 'batch'. */
static struct dp_packet *
seg_at(struct dp_packet_batch *batch, size_t i)
{
    return batch->packets[i];
}

/* Writes every checksum of segment 'p' (built like 'pkt') afresh, after a
 * test changed its bytes. */
static void
fix_csums(const struct gro_case *c, const struct built *pkt,
          struct dp_packet *p)
{
    uint8_t *d = dp_packet_data(p);
    uint32_t size = dp_packet_size(p);
    ovs_be16 sum;

    if (!c->ipv6) {
        tab_put16(d + pkt->i3 + 10, 0);
        sum = csum(d + pkt->i3, IP_HEADER_LEN);
        memcpy(d + pkt->i3 + 10, &sum, sizeof sum);
    }
    tab_put16(d + pkt->i4 + 16, 0);
    sum = tab_l4_sum(d, pkt->i3, pkt->i4, size - pkt->i4, c->ipv6,
                     IPPROTO_TCP);
    memcpy(d + pkt->i4 + 16, &sum, sizeof sum);
    if (c->tnl != BARE && c->udp_csum) {
        tab_put16(d + pkt->o4 + 6, 0);
        sum = tab_l4_sum(d, pkt->o3, pkt->o4, size - pkt->o4, c->outer_ipv6,
                         IPPROTO_UDP);
        memcpy(d + pkt->o4 + 6, &sum, sizeof sum);
    }
}

/* Merges 'batch' and checks that it became 'n' packets, made of runs of
 * the segments 'runs' says (the length of each, in order). */
static void
check_runs(struct dp_packet_batch *batch, const size_t runs[], size_t n,
           uint32_t bad)
{
    struct afxdp_rxgro_stats st = { 0 };
    size_t before = dp_packet_batch_size(batch), merged = 0, segs = 0;

    afxdp_rxgro_batch(batch, 0, new_packet, &st);
    ovs_assert(dp_packet_batch_size(batch) == n);
    for (size_t i = 0; i < n; i++) {
        if (runs[i] > 1) {
            merged++;
            segs += runs[i];
        }
    }
    ovs_assert(st.merged == merged && st.segs == segs);
    ovs_assert(st.bad_csum == bad);
    ovs_assert(before - segs + merged == n);
    dp_packet_delete_batch(batch, true);
}

static void
check_rules(void)
{
    static const struct gro_case c = {
        "geneve, ipv4", GENEVE, false, false, false, true, 12000, 1500
    };
    struct built pkt = build(&c, false);
    struct dp_packet_batch batch;
    uint8_t *d;

    /* 12000 bytes at 1390 a segment: 9 segments. */
    printf("runs that end\n");
    cut(&c, &pkt, &batch);
    ovs_assert(dp_packet_batch_size(&batch) == 9);
    check_runs(&batch, (size_t[]) { 9 }, 1, 0);

    /* Segments 2 and 3 swapped. */
    cut(&c, &pkt, &batch);
    {
        struct dp_packet *t = batch.packets[2];

        batch.packets[2] = batch.packets[3];
        batch.packets[3] = t;
    }
    check_runs(&batch, (size_t[]) { 2, 1, 1, 5 }, 4, 0);

    /* A gap: segment 4 lost. */
    cut(&c, &pkt, &batch);
    dp_packet_delete(batch.packets[4]);
    memmove(&batch.packets[4], &batch.packets[5], 4 * sizeof batch.packets[0]);
    batch.count--;
    check_runs(&batch, (size_t[]) { 4, 4 }, 2, 0);

    /* A payload byte of segment 5 changed: its checksum is wrong.  The run
     * ends before it, it stays as it was, and the next run starts after
     * it. */
    cut(&c, &pkt, &batch);
    d = dp_packet_data(seg_at(&batch, 5));
    d[dp_packet_size(seg_at(&batch, 5)) - 7] ^= 0x40;
    {
        struct dp_packet *bad = dp_packet_clone(seg_at(&batch, 5));
        struct afxdp_rxgro_stats st = { 0 };

        afxdp_rxgro_batch(&batch, 0, new_packet, &st);
        ovs_assert(dp_packet_batch_size(&batch) == 3);
        ovs_assert(st.merged == 2 && st.segs == 8 && st.bad_csum == 1);
        ovs_assert(dp_packet_equal(batch.packets[1], bad));
        dp_packet_delete(bad);
        dp_packet_delete_batch(&batch, true);
    }

    /* FIN on segment 6: it and everything after stand alone... */
    cut(&c, &pkt, &batch);
    d = dp_packet_data(seg_at(&batch, 6));
    d[pkt.i4 + 13] |= 0x01;
    check_runs(&batch, (size_t[]) { 6, 1, 2 }, 3, 0);

    /* PSH in the middle ends the run after it. */
    cut(&c, &pkt, &batch);
    d = dp_packet_data(seg_at(&batch, 3));
    d[pkt.i4 + 13] |= 0x08;
    fix_csums(&c, &pkt, seg_at(&batch, 3));
    check_runs(&batch, (size_t[]) { 4, 5 }, 2, 0);

    /* Another timestamp from segment 4 on: the options differ. */
    cut(&c, &pkt, &batch);
    for (size_t i = 4; i < 9; i++) {
        d = dp_packet_data(seg_at(&batch, i));
        d[pkt.i4 + 27]++;
        fix_csums(&c, &pkt, seg_at(&batch, i));
    }
    check_runs(&batch, (size_t[]) { 4, 5 }, 2, 0);

    /* Two connections, their segments alternating: nothing merges. */
    {
        struct dp_packet_batch other;
        struct dp_packet_batch mix;

        cut(&c, &pkt, &batch);
        cut(&c, &pkt, &other);
        dp_packet_batch_init(&mix);
        for (size_t i = 0; i < 9; i++) {
            d = dp_packet_data(other.packets[i]);
            d[pkt.i4 + 1]++;                    /* Another source port. */
            fix_csums(&c, &pkt, other.packets[i]);
            dp_packet_batch_add(&mix, batch.packets[i]);
            dp_packet_batch_add(&mix, other.packets[i]);
        }
        check_runs(&mix, (size_t[]) { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                      1, 1, 1, 1, 1, 1 }, 18, 0);
    }
    free(pkt.b);

    /* A short segment in the middle (100 bytes less, the next one's
     * sequence number moved back to follow it): it ends its run, as the
     * last segment of a sender's GSO packet would. */
    {
        static const struct gro_case s = {
            "bare ipv4", BARE, false, false, false, false, 3000, 1052
        };
        struct built p = build(&s, false);

        cut(&s, &p, &batch);
        ovs_assert(dp_packet_batch_size(&batch) == 3);
        dp_packet_set_size(batch.packets[1], dp_packet_size(batch.packets[1])
                           - 100);
        d = dp_packet_data(batch.packets[1]);
        tab_put16(d + p.i3 + 2, tab_get16(d + p.i3 + 2) - 100);
        fix_csums(&s, &p, batch.packets[1]);
        d = dp_packet_data(batch.packets[2]);
        tab_put32(d + p.i4 + 4, tab_get32(d + p.i4 + 4) - 100);
        fix_csums(&s, &p, batch.packets[2]);
        check_runs(&batch, (size_t[]) { 2, 1 }, 2, 0);
        free(p.b);
    }

    /* Segments shorter than AFXDP_RXGRO_MIN_LEN are not looked at. */
    {
        static const struct gro_case s = {
            "bare ipv4, small", BARE, false, false, false, false, 1000, 200
        };
        struct built p = build(&s, false);

        cut(&s, &p, &batch);
        ovs_assert(dp_packet_batch_size(&batch) == 7);
        ovs_assert(dp_packet_size(batch.packets[0]) < AFXDP_RXGRO_MIN_LEN);
        check_runs(&batch, (size_t[]) { 1, 1, 1, 1, 1, 1, 1 }, 7, 0);
        free(p.b);
    }
}

static void
test_afxdp_rxgro_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct gro_case cases[] = {
        { "bare ipv4, mtu 1500", BARE, false, false, false, false, 20000,
          1500 },
        { "bare ipv6, vlan, odd segment size", BARE, false, true, true, false,
          20000, 1449 },
        { "bare ipv4, 64 kB", BARE, false, false, false, false, 43000,
          1500 },
        { "vxlan, ipv4 in ipv4, udp checksum", VXLAN, false, false, false,
          true, 30000, 1500 },
        { "vxlan, ipv4 in ipv4, no udp checksum, odd segment size", VXLAN,
          false, false, false, false, 30000, 1451 },
        { "geneve, ipv4 in ipv6, vlan, udp checksum", GENEVE, true, false,
          true, true, 30000, 1500 },
        { "geneve, ipv6 in ipv4, odd segment size, udp checksum", GENEVE,
          false, true, false, true, 30000, 1449 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        check_round_trip(&cases[i]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        if (cases[i].tnl != BARE) {
            check_train(&cases[i], cases[i].payload);
            check_train(&cases[i], 64000);
        }
    }
    check_rules();
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-rxgro", test_afxdp_rxgro_main);
