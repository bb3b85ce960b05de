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

/* TCP segmentation on the send path: see afxdp-txseg.h. */

#include <config.h>

#include "afxdp-txseg.h"

#include <linux/if_xdp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "afxdp-csum.h"
#include "csum.h"
#include "packets.h"
#include "util.h"

/* Sum of the pseudo-header of the IP header 'h' describes in 'data',
 * without its length, for protocol 'proto'. */
static uint32_t
afxdp_txseg_pseudo(const uint8_t *data, const struct afxdp_l4hdrs *h,
                   uint8_t proto)
{
    uint32_t sum = (h->ipv6 ? csum_continue(0, data + h->l3_ofs + 8, 32)
                    : csum_continue(0, data + h->l3_ofs + 12, 8));

    return csum_add16(sum, htons(proto));
}

/* 'seg->h' describes the UDP packet at 'data': if it is a tunnel that
 * afxdp_txseg_tunnel() knows, around an inner TCP packet that ends where
 * the UDP payload does, moves 'seg->h' to the inner headers (offsets from
 * 'data'), fills 'seg->outer' and returns true. */
static bool
afxdp_txseg_plan_tunnel(const uint8_t *data, struct afxdp_txseg *seg)
{
    struct afxdp_l4hdrs *h = &seg->h, in;
    struct afxdp_txseg_outer *o = &seg->outer;
    uint32_t inner = afxdp_l4hdrs_tunnel(data, h);

    if (!inner
        || !afxdp_l4hdrs_parse(data + inner, h->l4_ofs + h->l4_len - inner,
                               &in)
        || in.proto != IPPROTO_TCP || in.trailer) {
        return false;
    }
    o->l3_ofs = h->l3_ofs;
    o->l4_ofs = h->l4_ofs;
    o->ipv6 = h->ipv6;
    o->udp_csum = afxdp_l4hdrs_get16(data + h->l4_ofs + AFXDP_UDP_CSUM) != 0;
    o->pseudo = afxdp_txseg_pseudo(data, h, IPPROTO_UDP);
    in.l3_ofs += inner;
    in.l4_ofs += inner;
    in.trailer = h->trailer;
    *h = in;
    seg->tunnel = true;
    return true;
}

/* The 'src_mtu' for afxdp_txseg_plan() of the 'size' bytes at 'data',
 * received whole on a device of MTU 'rx_mtu' (0: unknown): 'rx_mtu', less
 * the outer headers of a tunnel that the plan knows (see "The segment
 * size" in afxdp-txseg.h). */
uint32_t
afxdp_txseg_src_mtu(const uint8_t *data, uint32_t size, uint32_t rx_mtu)
{
    struct afxdp_txseg seg;
    uint32_t outer;

    if (!rx_mtu || !afxdp_l4hdrs_parse(data, size, &seg.h)
        || seg.h.proto != IPPROTO_UDP
        || !afxdp_txseg_plan_tunnel(data, &seg)) {
        return rx_mtu;
    }
    outer = seg.h.l3_ofs - seg.outer.l3_ofs;
    return rx_mtu > outer ? rx_mtu - outer : 0;
}

/* Plans how to cut the TCP packet of 'size' bytes at 'data' into segments
 * of at most 'mtu' bytes of IP packet and 'max_len' bytes in all (from the
 * Ethernet header: what one tx frame holds), and of at most 'segsz' bytes
 * of payload unless 'segsz' is 0 (OVS's TSO segment size), with the
 * innermost IP packet of each at most 'src_mtu' bytes unless it is 0 (see
 * "The segment size" in afxdp-txseg.h).  Fills '*seg'
 * for AFXDP_TXSEG_OK.  A TCP packet whose IP packet is at most 'mtu' bytes
 * is AFXDP_TXSEG_FITS, whatever its TCP header holds, unless 'segsz' is
 * nonzero and its payload is larger: a TSO packet of a few segments that
 * fits the MTU is cut too, as a TSO NIC would (its receiver may have
 * asked for segments of 'segsz' at most). */
enum afxdp_txseg_verdict
afxdp_txseg_plan(const uint8_t *data, uint32_t size, uint32_t mtu,
                 uint32_t max_len, uint32_t segsz, uint32_t src_mtu,
                 struct afxdp_txseg *seg)
{
    struct afxdp_l4hdrs *h = &seg->h;
    uint32_t ip_hlen, in_hlen, tcp_hlen, mss;
    bool fits;

    seg->tunnel = false;
    if (!afxdp_l4hdrs_parse(data, size, h)
        || (h->proto == IPPROTO_UDP ? !afxdp_txseg_plan_tunnel(data, seg)
            : h->proto != IPPROTO_TCP)) {
        return AFXDP_TXSEG_NOT_TCP;
    }
    /* IP header bytes in front of the TCP header, the outer ones and the
     * tunnel's too: what the MTU counts besides TCP. */
    ip_hlen = h->l4_ofs - (seg->tunnel ? seg->outer.l3_ofs : h->l3_ofs);
    in_hlen = h->l4_ofs - h->l3_ofs;
    fits = (ip_hlen + h->l4_len <= mtu
            && (!src_mtu || in_hlen + h->l4_len <= src_mtu));
    if (fits && !segsz) {
        return AFXDP_TXSEG_FITS;
    }
    if (h->l4_len < TCP_HEADER_LEN) {
        return fits ? AFXDP_TXSEG_FITS : AFXDP_TXSEG_MALFORMED;
    }
    tcp_hlen = (data[h->l4_ofs + AFXDP_TCP_DOFF] >> 4) * 4;
    if (tcp_hlen < TCP_HEADER_LEN || tcp_hlen >= h->l4_len) {
        return fits ? AFXDP_TXSEG_FITS : AFXDP_TXSEG_MALFORMED;
    }
    seg->hdr_len = h->l4_ofs + tcp_hlen;
    seg->payload = h->l4_len - tcp_hlen;
    if (fits && seg->payload <= segsz) {
        return AFXDP_TXSEG_FITS;
    }

    mss = mtu > ip_hlen + tcp_hlen ? mtu - ip_hlen - tcp_hlen : 0;
    mss = MIN(mss, max_len > seg->hdr_len ? max_len - seg->hdr_len : 0);
    if (segsz) {
        mss = MIN(mss, segsz);
    }
    if (src_mtu > in_hlen + tcp_hlen) {
        mss = MIN(mss, src_mtu - in_hlen - tcp_hlen);
    }
    if (!mss) {
        return AFXDP_TXSEG_MALFORMED;
    }
    seg->mss = mss;
    seg->n_segs = DIV_ROUND_UP(seg->payload, mss);

    /* The pseudo-header without its length, which differs per segment. */
    seg->pseudo = afxdp_txseg_pseudo(data, h, IPPROTO_TCP);
    return AFXDP_TXSEG_OK;
}

/* In the headers at 'hdr' (seg->hdr_len bytes, of a packet that 'seg'
 * planned, with 'l4_len' bytes of TCP header and payload): computes the
 * IPv4 header checksum afresh, and puts the pseudo-header sum in the TCP
 * checksum field, as a device that finishes TCP checksums expects. */
void
afxdp_txseg_csum_partial(const struct afxdp_txseg *seg, uint8_t *hdr,
                         uint32_t l4_len)
{
    const struct afxdp_l4hdrs *h = &seg->h;
    ovs_be16 sum;

    if (!h->ipv6) {
        uint8_t *ip = hdr + h->l3_ofs;

        afxdp_l4hdrs_put16(ip + AFXDP_IP4_CSUM, 0);
        sum = csum(ip, h->l4_ofs - h->l3_ofs);
        memcpy(ip + AFXDP_IP4_CSUM, &sum, sizeof sum);
    }
    sum = ~csum_finish(csum_add16(seg->pseudo, htons(l4_len)));
    memcpy(hdr + h->l4_ofs + AFXDP_TCP_CSUM, &sum, sizeof sum);
}

/* Rewrites the outer headers of segment 'i', 'len' bytes at 'dst', of a
 * tunnelled packet that 'seg' planned, whose inner TCP checksum is done
 * and whose inner pseudo-header sum (with its length) is 'in_pseudo': see
 * "Tunnels" in afxdp-txseg.h.
 *
 * The outer UDP checksum covers the inner TCP segment, whose sum is known
 * without reading it again: with its checksum right, the inner
 * pseudo-header and the segment sum to zero (0xffff), so the segment alone
 * sums to the complement of the pseudo-header's sum (what Linux calls
 * local checksum offload).  Only the outer UDP header, the tunnel header
 * and the inner Ethernet and IP headers are summed here, each an even
 * number of bytes, so the segment's sum lines up. */
static void
afxdp_txseg_write_outer(const struct afxdp_txseg *seg, uint32_t i,
                        uint8_t *dst, uint32_t len, uint32_t in_pseudo)
{
    const struct afxdp_txseg_outer *o = &seg->outer;
    uint32_t udp_len = len - o->l4_ofs;
    uint8_t *ip = dst + o->l3_ofs;
    uint8_t *udp = dst + o->l4_ofs;
    uint32_t part;
    ovs_be16 sum;

    if (o->ipv6) {
        afxdp_l4hdrs_put16(ip + AFXDP_IP6_PLEN, udp_len);
    } else {
        afxdp_l4hdrs_put16(ip + AFXDP_IP4_TOT_LEN, len - o->l3_ofs);
        afxdp_l4hdrs_put16(ip + AFXDP_IP4_ID,
                           afxdp_l4hdrs_get16(ip + AFXDP_IP4_ID) + i);
        afxdp_l4hdrs_put16(ip + AFXDP_IP4_CSUM, 0);
        sum = csum(ip, o->l4_ofs - o->l3_ofs);
        memcpy(ip + AFXDP_IP4_CSUM, &sum, sizeof sum);
    }
    afxdp_l4hdrs_put16(udp + AFXDP_UDP_LEN, udp_len);
    if (!o->udp_csum) {
        return;
    }
    afxdp_l4hdrs_put16(udp + AFXDP_UDP_CSUM, 0);
    part = csum_continue(csum_add16(o->pseudo, htons(udp_len)), udp,
                         seg->h.l4_ofs - o->l4_ofs);
    part = csum_add16(part, csum_finish(in_pseudo));
    sum = csum_finish(part);
    memcpy(udp + AFXDP_UDP_CSUM, &sum, sizeof sum);
    if (!sum) {
        afxdp_l4hdrs_put16(udp + AFXDP_UDP_CSUM, 0xffff);
    }
}

/* afxdp_txseg_write(), and with 'outer' false, in a tunnel, the outer
 * headers left as copied from the packet (afxdp_txseg_write_inner()). */
static uint32_t
txseg_write(const struct afxdp_txseg *seg, const uint8_t *data, uint32_t i,
            uint8_t *dst, bool offload, bool outer,
            struct afxdp_tx_metadata *md)
{
    const struct afxdp_l4hdrs *h = &seg->h;
    uint32_t off = i * seg->mss;
    uint32_t len = MIN(seg->mss, seg->payload - off);
    uint32_t l4_len = seg->hdr_len - h->l4_ofs + len;
    uint8_t *ip = dst + h->l3_ofs;
    uint8_t *tcp = dst + h->l4_ofs;
    uint8_t flags;
    ovs_be32 seq;

    memcpy(dst, data, seg->hdr_len);
    memcpy(dst + seg->hdr_len, data + seg->hdr_len + off, len);

    if (h->ipv6) {
        afxdp_l4hdrs_put16(ip + AFXDP_IP6_PLEN, l4_len);
    } else {
        afxdp_l4hdrs_put16(ip + AFXDP_IP4_TOT_LEN,
                           h->l4_ofs - h->l3_ofs + l4_len);
        afxdp_l4hdrs_put16(ip + AFXDP_IP4_ID,
                           afxdp_l4hdrs_get16(ip + AFXDP_IP4_ID) + i);
    }

    memcpy(&seq, tcp + AFXDP_TCP_SEQ, sizeof seq);
    seq = htonl(ntohl(seq) + off);
    memcpy(tcp + AFXDP_TCP_SEQ, &seq, sizeof seq);
    flags = tcp[AFXDP_TCP_FLAGS];
    if (i) {
        flags &= ~AFXDP_TCP_CWR;
    }
    if (i + 1 < seg->n_segs) {
        flags &= ~(TCP_FIN | TCP_PSH);
    }
    tcp[AFXDP_TCP_FLAGS] = flags;

    afxdp_txseg_csum_partial(seg, dst, l4_len);
    memset(md, 0, sizeof *md);
    if (seg->tunnel) {
        uint32_t in_pseudo = csum_add16(seg->pseudo, htons(l4_len));

        afxdp_csum_l4_store(tcp, l4_len, AFXDP_TCP_CSUM,
                            in_pseudo, false);
        if (outer) {
            afxdp_txseg_write_outer(seg, i, dst, seg->hdr_len + len,
                                    in_pseudo);
        }
    } else if (offload) {
        md->flags = XDP_TXMD_FLAGS_CHECKSUM;
        md->csum_start = h->l4_ofs;
        md->csum_offset = AFXDP_TCP_CSUM;
    } else {
        afxdp_csum_l4_store(tcp, l4_len, AFXDP_TCP_CSUM,
                            csum_add16(seg->pseudo, htons(l4_len)), false);
    }
    return seg->hdr_len + len;
}

/* Writes segment 'i' (below seg->n_segs) of the packet at 'data', which
 * 'seg' planned, at 'dst', which has room for seg->hdr_len + seg->mss
 * bytes.  Returns its length.  Fills '*md': with 'offload', the request
 * for the kernel to finish the segment's TCP checksum (or its outer UDP
 * checksum, in a tunnel), and what it does not request is computed here;
 * md->flags is 0 if nothing is requested. */
uint32_t
afxdp_txseg_write(const struct afxdp_txseg *seg, const uint8_t *data,
                  uint32_t i, uint8_t *dst, bool offload,
                  struct afxdp_tx_metadata *md)
{
    return txseg_write(seg, data, i, dst, offload, true, md);
}

uint32_t
afxdp_txseg_write_inner(const struct afxdp_txseg *seg, const uint8_t *data,
                        uint32_t i, uint8_t *dst)
{
    struct afxdp_tx_metadata md;

    ovs_assert(seg->tunnel);
    return txseg_write(seg, data, i, dst, false, false, &md);
}
