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

/* Byte offsets inside the headers that each segment rewrites. */
#define IP4_TOT_LEN 2
#define IP4_ID 4
#define IP4_CSUM 10
#define IP6_PLEN 4
#define TCP_SEQ_OFS 4
#define TCP_DOFF_OFS 12             /* Data offset, upper 4 bits. */

#define FLAG_FIN 0x01
#define FLAG_PSH 0x08

static void
put16(uint8_t *p, uint16_t v)
{
    ovs_be16 be = htons(v);

    memcpy(p, &be, sizeof be);
}

static uint16_t
get16(const uint8_t *p)
{
    ovs_be16 be;

    memcpy(&be, p, sizeof be);
    return ntohs(be);
}

/* Plans how to cut the TCP packet of 'size' bytes at 'data' into segments
 * of at most 'mtu' bytes of IP packet and 'max_len' bytes in all (from the
 * Ethernet header: what one tx frame holds), and of at most 'segsz' bytes
 * of payload unless 'segsz' is 0 (OVS's TSO segment size).  Fills '*seg'
 * for AFXDP_TXSEG_OK.  A TCP packet whose IP packet is at most 'mtu' bytes
 * is AFXDP_TXSEG_FITS, whatever its TCP header holds, unless 'segsz' is
 * nonzero and its payload is larger: a TSO packet of a few segments that
 * fits the MTU is cut too, as a TSO NIC would (its receiver may have
 * asked for segments of 'segsz' at most). */
enum afxdp_txseg_verdict
afxdp_txseg_plan(const uint8_t *data, uint32_t size, uint32_t mtu,
                 uint32_t max_len, uint32_t segsz, struct afxdp_txseg *seg)
{
    struct afxdp_l4hdrs *h = &seg->h;
    uint32_t ip_hlen, tcp_hlen, mss;
    bool fits;

    if (!afxdp_l4hdrs_parse(data, size, h) || h->proto != IPPROTO_TCP) {
        return AFXDP_TXSEG_NOT_TCP;
    }
    ip_hlen = h->l4_ofs - h->l3_ofs;
    fits = ip_hlen + h->l4_len <= mtu;
    if (fits && !segsz) {
        return AFXDP_TXSEG_FITS;
    }
    if (h->l4_len < TCP_HEADER_LEN) {
        return fits ? AFXDP_TXSEG_FITS : AFXDP_TXSEG_MALFORMED;
    }
    tcp_hlen = (data[h->l4_ofs + TCP_DOFF_OFS] >> 4) * 4;
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
    if (!mss) {
        return AFXDP_TXSEG_MALFORMED;
    }
    seg->mss = mss;
    seg->n_segs = DIV_ROUND_UP(seg->payload, mss);

    /* The pseudo-header without its length, which differs per segment. */
    if (h->ipv6) {
        seg->pseudo = csum_continue(0, data + h->l3_ofs + 8, 32);
    } else {
        seg->pseudo = csum_continue(0, data + h->l3_ofs + 12, 8);
    }
    seg->pseudo = csum_add16(seg->pseudo, htons(IPPROTO_TCP));
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

        put16(ip + IP4_CSUM, 0);
        sum = csum(ip, h->l4_ofs - h->l3_ofs);
        memcpy(ip + IP4_CSUM, &sum, sizeof sum);
    }
    sum = ~csum_finish(csum_add16(seg->pseudo, htons(l4_len)));
    memcpy(hdr + h->l4_ofs + AFXDP_TXSEG_TCP_CSUM_OFS, &sum, sizeof sum);
}

/* Writes segment 'i' (below seg->n_segs) of the packet at 'data', which
 * 'seg' planned, at 'dst', which has room for seg->hdr_len + seg->mss
 * bytes.  Returns its length.  With 'offload', fills '*md' with the
 * request for the kernel to finish its TCP checksum, else computes it. */
uint32_t
afxdp_txseg_write(const struct afxdp_txseg *seg, const uint8_t *data,
                  uint32_t i, uint8_t *dst, bool offload,
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
        put16(ip + IP6_PLEN, l4_len);
    } else {
        put16(ip + IP4_TOT_LEN, h->l4_ofs - h->l3_ofs + l4_len);
        put16(ip + IP4_ID, get16(ip + IP4_ID) + i);
    }

    memcpy(&seq, tcp + TCP_SEQ_OFS, sizeof seq);
    seq = htonl(ntohl(seq) + off);
    memcpy(tcp + TCP_SEQ_OFS, &seq, sizeof seq);
    flags = tcp[AFXDP_TXSEG_TCP_FLAGS_OFS];
    if (i) {
        flags &= ~AFXDP_TXSEG_TCP_CWR;
    }
    if (i + 1 < seg->n_segs) {
        flags &= ~(FLAG_FIN | FLAG_PSH);
    }
    tcp[AFXDP_TXSEG_TCP_FLAGS_OFS] = flags;

    afxdp_txseg_csum_partial(seg, dst, l4_len);
    if (offload) {
        memset(md, 0, sizeof *md);
        md->flags = XDP_TXMD_FLAGS_CHECKSUM;
        md->csum_start = h->l4_ofs;
        md->csum_offset = AFXDP_TXSEG_TCP_CSUM_OFS;
    } else {
        afxdp_csum_l4_store(tcp, l4_len, AFXDP_TXSEG_TCP_CSUM_OFS,
                            csum_add16(seg->pseudo, htons(l4_len)), false);
    }
    return seg->hdr_len + len;
}
