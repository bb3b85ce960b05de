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

#include <config.h>

#include "afxdp-rxgro.h"

#include <netinet/in.h>
#include <string.h>

#include "afxdp-compat.h"
#include "afxdp-csum.h"
#include "csum.h"
#include "dp-packet.h"
#include "packets.h"
#include "util.h"

/* The largest IP packet a run may make. */
#define RXGRO_MAX_IP_LEN 65535

static uint32_t
get32(const uint8_t *p)
{
    ovs_be32 be;

    memcpy(&be, p, sizeof be);
    return ntohl(be);
}

/* Parses the 'size' bytes at 'data' into 's' if they are a TCP segment
 * that may join a run (see afxdp-rxgro.h): bare or in VXLAN or Geneve,
 * with a payload, no bytes after its IP packet, and no flag but ACK and
 * PSH, ACK set.  Reads only the headers. */
bool
afxdp_rxgro_parse(const uint8_t *data, uint32_t size,
                  struct afxdp_rxgro_seg *s)
{
    struct afxdp_l4hdrs h;
    const uint8_t *tcp;
    uint32_t thl;

    if (!afxdp_l4hdrs_parse(data, size, &h) || h.trailer) {
        return false;
    }
    s->tunnel = false;
    if (h.proto == IPPROTO_UDP) {
        uint32_t inner = afxdp_l4hdrs_tunnel(data, &h);
        struct afxdp_l4hdrs in;

        if (!inner
            || !afxdp_l4hdrs_parse(data + inner,
                                   h.l4_ofs + h.l4_len - inner, &in)
            || in.trailer || in.proto != IPPROTO_TCP) {
            return false;
        }
        s->tunnel = true;
        s->out = h;
        h = in;
        h.l3_ofs += inner;
        h.l4_ofs += inner;
    } else if (h.proto != IPPROTO_TCP) {
        return false;
    }
    if (h.l4_len < TCP_HEADER_LEN) {
        return false;
    }
    tcp = data + h.l4_ofs;
    thl = (tcp[AFXDP_TCP_DOFF] >> 4) * 4;
    if (thl < TCP_HEADER_LEN || thl >= h.l4_len
        || (tcp[AFXDP_TCP_FLAGS] & ~TCP_PSH) != TCP_ACK) {
        return false;
    }
    s->in = h;
    s->hdr_len = h.l4_ofs + thl;
    s->payload = h.l4_len - thl;
    s->seq = get32(tcp + AFXDP_TCP_SEQ);
    s->flags = tcp[AFXDP_TCP_FLAGS];
    return true;
}

/* A field that may differ between the segments of a run. */
struct rxgro_skip {
    uint32_t ofs;
    uint32_t len;
};

/* Adds to 'skip' at 'n' the fields of the IP header at 'l3' that differ
 * per segment.  Returns the new count. */
static size_t
rxgro_skip_ip(struct rxgro_skip skip[], size_t n, uint32_t l3, bool ipv6)
{
    if (ipv6) {
        skip[n++] = (struct rxgro_skip) { l3 + AFXDP_IP6_PLEN, 2 };
    } else {
        /* The total length and the identification after it. */
        skip[n++] = (struct rxgro_skip) { l3 + AFXDP_IP4_TOT_LEN, 4 };
        skip[n++] = (struct rxgro_skip) { l3 + AFXDP_IP4_CSUM, 2 };
    }
    return n;
}

/* True if segments 'a' and 'b', which afxdp_rxgro_parse() made 'sa' and
 * 'sb' of, have the same headers but for the fields that differ between
 * the segments of a run (see afxdp-rxgro.h). */
bool
afxdp_rxgro_follows(const uint8_t *a, const struct afxdp_rxgro_seg *sa,
                    const uint8_t *b, const struct afxdp_rxgro_seg *sb)
{
    struct rxgro_skip skip[10];
    uint32_t pos = 0;
    size_t n = 0;

    if (sa->tunnel != sb->tunnel || sa->hdr_len != sb->hdr_len
        || sa->in.l3_ofs != sb->in.l3_ofs || sa->in.l4_ofs != sb->in.l4_ofs
        || (sa->tunnel && (sa->out.l3_ofs != sb->out.l3_ofs
                           || sa->out.l4_ofs != sb->out.l4_ofs))) {
        return false;
    }
    if (sa->tunnel) {
        n = rxgro_skip_ip(skip, n, sa->out.l3_ofs, sa->out.ipv6);
        skip[n++] = (struct rxgro_skip) { sa->out.l4_ofs + AFXDP_UDP_LEN, 4 };
    }
    n = rxgro_skip_ip(skip, n, sa->in.l3_ofs, sa->in.ipv6);
    skip[n++] = (struct rxgro_skip) { sa->in.l4_ofs + AFXDP_TCP_SEQ, 4 };
    skip[n++] = (struct rxgro_skip) { sa->in.l4_ofs + AFXDP_TCP_FLAGS, 1 };
    skip[n++] = (struct rxgro_skip) { sa->in.l4_ofs + AFXDP_TCP_CSUM, 2 };
    for (size_t i = 0; i < n; i++) {
        if (memcmp(a + pos, b + pos, skip[i].ofs - pos)) {
            return false;
        }
        pos = skip[i].ofs + skip[i].len;
    }
    return !memcmp(a + pos, b + pos, sa->hdr_len - pos);
}

/* True if every checksum of segment 'data', which afxdp_rxgro_parse() made
 * 's' of, is right: IPv4 header checksums, the (inner) TCP checksum and a
 * nonzero outer UDP checksum.  Stores the unfolded sum of its TCP payload
 * alone in '*payload_sum'. */
bool
afxdp_rxgro_csum_ok(const uint8_t *data, const struct afxdp_rxgro_seg *s,
                    uint32_t *payload_sum)
{
    const uint8_t *tcp = data + s->in.l4_ofs;
    uint32_t psum, segsum;

    if (!s->in.ipv6
        && csum(data + s->in.l3_ofs, s->in.l4_ofs - s->in.l3_ofs)) {
        return false;
    }
    if (s->tunnel && !s->out.ipv6
        && csum(data + s->out.l3_ofs, s->out.l4_ofs - s->out.l3_ofs)) {
        return false;
    }
    psum = afxdp_csum_continue(0, data + s->hdr_len, s->payload);
    /* The TCP header is a whole number of 32-bit words: the payload's sum
     * lines up with it. */
    segsum = afxdp_csum_fold16((uint64_t) psum
                               + csum_continue(0, tcp,
                                               s->hdr_len - s->in.l4_ofs));
    if (afxdp_csum_fold16((uint64_t) segsum + s->in.pseudo) != 0xffff) {
        return false;
    }
    if (s->tunnel
        && afxdp_l4hdrs_get16(data + s->out.l4_ofs + AFXDP_UDP_CSUM)) {
        /* From the UDP header to the inner TCP header: an even number of
         * bytes (UDP 8, the tunnel's 8 and its options' 4 each, Ethernet
         * 14, VLAN tags 4, IP headers 20 + 4 each or 40). */
        uint32_t part = csum_continue(s->out.pseudo, data + s->out.l4_ofs,
                                      s->in.l4_ofs - s->out.l4_ofs);

        if (afxdp_csum_fold16((uint64_t) part + segsum) != 0xffff) {
            return false;
        }
    }
    *payload_sum = psum;
    return true;
}

/* The pseudo-header sum 'pseudo' of afxdp_l4hdrs_parse(), whose length was
 * 'old_len', with length 'new_len' instead. */
static uint32_t
rxgro_pseudo_len(uint32_t pseudo, uint32_t old_len, uint32_t new_len)
{
    /* Adding the complement subtracts, in ones' complement. */
    pseudo = csum_add16(pseudo, ~htons(old_len));
    return csum_add16(pseudo, htons(new_len));
}

/* Writes the IP length 'len' (of the IP packet, header included) into the
 * IP header at 'ip' of 'hlen' bytes, with the IPv4 header checksum. */
static void
rxgro_write_ip(uint8_t *ip, bool ipv6, uint32_t hlen, uint32_t len)
{
    ovs_be16 sum;

    if (ipv6) {
        afxdp_l4hdrs_put16(ip + AFXDP_IP6_PLEN, len - hlen);
        return;
    }
    afxdp_l4hdrs_put16(ip + AFXDP_IP4_TOT_LEN, len);
    afxdp_l4hdrs_put16(ip + AFXDP_IP4_CSUM, 0);
    sum = csum(ip, hlen);
    memcpy(ip + AFXDP_IP4_CSUM, &sum, sizeof sum);
}

/* Merges the 'n' segments at 'datas', which afxdp_rxgro_parse() made
 * 'segs' of and whose payload sums are 'psums', into one new packet from
 * 'new_packet' with 'first' (the packet the first segment came in), and
 * returns it.  Reads the first segment's headers and every segment's
 * payload (at datas[k] + segs[0].hdr_len) only. */
static struct dp_packet *
rxgro_merge(const struct dp_packet *first, const uint8_t *const datas[],
            const struct afxdp_rxgro_seg segs[], const uint32_t psums[],
            size_t n, afxdp_rxgro_new_packet *new_packet)
{
    const struct afxdp_rxgro_seg *a = &segs[0];
    uint32_t in_hlen = a->in.l4_ofs - a->in.l3_ofs;
    uint32_t thl = a->hdr_len - a->in.l4_ofs;
    uint32_t payload = 0, size, tcp_len, pseudo, pos = 0;
    uint64_t sum = 0;
    struct dp_packet *m;
    uint16_t tcp_csum;
    uint8_t *d, *tcp;

    for (size_t k = 0; k < n; k++) {
        payload += segs[k].payload;
    }
    size = a->hdr_len + payload;
    m = new_packet(first, size, in_hlen + thl + a->payload);
    d = dp_packet_put_uninit(m, size);
    memcpy(d, datas[0], a->hdr_len);
    for (size_t k = 0; k < n; k++) {
        uint16_t s = afxdp_csum_fold16(psums[k]);

        memcpy(d + a->hdr_len + pos, datas[k] + a->hdr_len, segs[k].payload);
        /* A payload that starts at an odd byte of the merged one adds its
         * 16-bit words the other way round. */
        sum += pos & 1 ? (uint16_t) ((s << 8) | (s >> 8)) : s;
        pos += segs[k].payload;
    }

    tcp_len = size - a->in.l4_ofs;
    rxgro_write_ip(d + a->in.l3_ofs, a->in.ipv6, in_hlen, in_hlen + tcp_len);
    tcp = d + a->in.l4_ofs;
    tcp[AFXDP_TCP_FLAGS] |= segs[n - 1].flags & TCP_PSH;
    afxdp_l4hdrs_put16(tcp + AFXDP_TCP_CSUM, 0);
    pseudo = rxgro_pseudo_len(a->in.pseudo, a->in.l4_len, tcp_len);
    sum += csum_continue(pseudo, tcp, thl);
    tcp_csum = ~afxdp_csum_fold16(sum);
    memcpy(tcp + AFXDP_TCP_CSUM, &tcp_csum, sizeof tcp_csum);

    if (a->tunnel) {
        uint32_t udp_len = size - a->out.l4_ofs;
        uint8_t *udp = d + a->out.l4_ofs;

        rxgro_write_ip(d + a->out.l3_ofs, a->out.ipv6,
                       a->out.l4_ofs - a->out.l3_ofs, size - a->out.l3_ofs);
        afxdp_l4hdrs_put16(udp + AFXDP_UDP_LEN, udp_len);
        if (afxdp_l4hdrs_get16(udp + AFXDP_UDP_CSUM)) {
            /* The inner segment's checksum being right, it sums to the
             * complement of its pseudo-header's sum (see afxdp-txseg.h's
             * "Tunnels"): only the headers in between are summed. */
            uint32_t part;
            ovs_be16 c;

            afxdp_l4hdrs_put16(udp + AFXDP_UDP_CSUM, 0);
            part = csum_continue(rxgro_pseudo_len(a->out.pseudo,
                                                  a->out.l4_len, udp_len),
                                 udp, a->in.l4_ofs - a->out.l4_ofs);
            part = csum_add16(part, csum_finish(pseudo));
            c = csum_finish(part);
            memcpy(udp + AFXDP_UDP_CSUM, &c, sizeof c);
            if (!c) {
                afxdp_l4hdrs_put16(udp + AFXDP_UDP_CSUM, 0xffff);
            }
            /* Right by construction, from segments whose checksums were
             * all checked: OVS need not sum 64 kB again to decapsulate. */
            afxdp_packet_set_rx_l4_good(m);
        }
    }
    return m;
}

/* Parses packet 'p' into 's' if it may join a run: see
 * afxdp_rxgro_parse().  A packet shorter than AFXDP_RXGRO_MIN_LEN is not
 * looked at.  A packet whose checksum the receive path marked partial for
 * OVS (OVS 3.3 and later: afxdp-rxcsum.h) holds only the pseudo-header's
 * sum, which no check here would take: it is left as it is. */
static bool
rxgro_candidate(struct dp_packet *p, struct afxdp_rxgro_seg *s)
{
    return (dp_packet_size(p) >= AFXDP_RXGRO_MIN_LEN
            && !afxdp_packet_l4_partial(p)
            && afxdp_rxgro_parse(dp_packet_data(p), dp_packet_size(p), s));
}

/* The IP packet's length of segment 's': the outer one in a tunnel. */
static uint32_t
rxgro_ip_len(const struct afxdp_rxgro_seg *s)
{
    return s->hdr_len + s->payload
           - (s->tunnel ? s->out.l3_ofs : s->in.l3_ofs);
}

/* Merges, in 'batch' from its 'first'th packet on, every run of adjacent
 * segments of one TCP connection into one packet from 'new_packet' (see
 * afxdp-rxgro.h), which takes the run's place; the segments merged are
 * freed.  Adds what it did to 'st'. */
void
afxdp_rxgro_batch(struct dp_packet_batch *batch, size_t first,
                  afxdp_rxgro_new_packet *new_packet,
                  struct afxdp_rxgro_stats *st)
{
    struct afxdp_rxgro_seg segs[AFXDP_RXGRO_MAX_SEGS];
    uint32_t psums[AFXDP_RXGRO_MAX_SEGS];
    size_t n = batch->count, out = first, i = first;
    size_t bad = SIZE_MAX;      /* A segment whose checksum failed. */

    while (i < n) {
        struct dp_packet *p = batch->packets[i];
        const uint8_t *pd = dp_packet_data(p);
        size_t k = 1;

        if (i != bad
            && rxgro_candidate(p, &segs[0])
            && !(segs[0].flags & TCP_PSH)) {
            uint32_t next = segs[0].seq + segs[0].payload;
            uint32_t ip_len = rxgro_ip_len(&segs[0]);
            bool checked = false;

            while (i + k < n && k < AFXDP_RXGRO_MAX_SEGS) {
                struct dp_packet *q = batch->packets[i + k];
                const uint8_t *qd = dp_packet_data(q);
                struct afxdp_rxgro_seg *s = &segs[k];

                if (!rxgro_candidate(q, s)
                    || s->seq != next || s->payload > segs[0].payload
                    || ip_len + s->payload > RXGRO_MAX_IP_LEN
                    || !afxdp_rxgro_follows(pd, &segs[0], qd, s)) {
                    break;
                }
                if (!checked) {
                    if (!afxdp_rxgro_csum_ok(pd, &segs[0], &psums[0])) {
                        st->bad_csum++;
                        break;
                    }
                    checked = true;
                }
                if (!afxdp_rxgro_csum_ok(qd, s, &psums[k])) {
                    st->bad_csum++;
                    bad = i + k;
                    break;
                }
                next += s->payload;
                ip_len += s->payload;
                k++;
                if (s->payload < segs[0].payload || s->flags & TCP_PSH) {
                    break;
                }
            }
        }
        if (k > 1) {
            const uint8_t *datas[AFXDP_RXGRO_MAX_SEGS];
            struct dp_packet *m;

            for (size_t j = 0; j < k; j++) {
                datas[j] = dp_packet_data(batch->packets[i + j]);
            }
            m = rxgro_merge(p, datas, segs, psums, k, new_packet);
            for (size_t j = 0; j < k; j++) {
                dp_packet_delete(batch->packets[i + j]);
            }
            batch->packets[out++] = m;
            st->merged++;
            st->segs += k;
        } else {
            batch->packets[out++] = p;
        }
        i += k;
    }
    batch->count = out;
}

/* Trains (see afxdp-rxgro.h). */

/* Longest outer headers of a train: Ethernet, two VLAN tags, IPv4 with
 * options, UDP. */
#define RXGRO_TRAIN_MAX_OUTER (ETH_HEADER_LEN + 8 + 60 + UDP_HEADER_LEN)

/* Rewrites the outer headers at 'hdr', which 'out' describes, for a
 * segment of 'len' bytes of UDP payload: the IP and UDP lengths, the IPv4
 * header checksum, and no UDP checksum (a train's is only partial: its
 * sender's kernel computes each segment's). */
static void
rxgro_train_outer(uint8_t *hdr, const struct afxdp_l4hdrs *out, uint32_t len)
{
    uint32_t ip_hlen = out->l4_ofs - out->l3_ofs;

    rxgro_write_ip(hdr + out->l3_ofs, out->ipv6, ip_hlen,
                   ip_hlen + UDP_HEADER_LEN + len);
    afxdp_l4hdrs_put16(hdr + out->l4_ofs + AFXDP_UDP_LEN,
                       UDP_HEADER_LEN + len);
    afxdp_l4hdrs_put16(hdr + out->l4_ofs + AFXDP_UDP_CSUM, 0);
}

/* Checks the 'n' segments of 'chunk' bytes of the train at 'd', whose
 * first 'o_len' bytes are its outer headers 'out' (a copy of them in
 * 'orig'), of 'udp_pl' bytes of UDP payload in all.  Each segment is
 * looked at in place as a packet of its own: the outer headers, rewritten
 * for it, go in front of it, over the last bytes of the segment before
 * (saved and put back once it is checked; the segment before was checked
 * already), so that afxdp_rxgro_parse(), afxdp_rxgro_follows() and
 * afxdp_rxgro_csum_ok() take it as they take a received segment.  Fills
 * 'segs', 'psums' and 'datas' for rxgro_merge(); leaves the first
 * segment's outer headers in front of the train (the caller puts 'orig'
 * back).  Returns true if the train is one run. */
static bool
rxgro_train_check(uint8_t *d, const struct afxdp_l4hdrs *out,
                  const uint8_t orig[], uint32_t o_len, uint32_t chunk,
                  uint32_t udp_pl, uint32_t n, struct afxdp_rxgro_seg segs[],
                  uint32_t psums[], const uint8_t *datas[])
{
    uint8_t stash[RXGRO_TRAIN_MAX_OUTER];
    uint32_t next = 0;

    for (uint32_t k = 0; k < n; k++) {
        uint32_t len = MIN(chunk, udp_pl - k * chunk);
        uint8_t *v = d + k * chunk;
        struct afxdp_rxgro_seg *s = &segs[k];
        bool last = k + 1 == n;
        bool ok;

        if (k) {
            memcpy(stash, v, o_len);
            memcpy(v, orig, o_len);
        }
        rxgro_train_outer(v, out, len);
        ok = afxdp_rxgro_parse(v, o_len + len, s) && s->tunnel;
        if (ok && !k) {
            /* Each view's outer headers lie over the segment before's
             * last bytes, never over the first one's headers. */
            ok = s->payload >= o_len && !(s->flags & TCP_PSH);
        } else if (ok) {
            ok = (s->seq == next
                  && (last ? s->payload <= segs[0].payload
                      : (s->payload == segs[0].payload
                         && !(s->flags & TCP_PSH)))
                  && afxdp_rxgro_follows(d, &segs[0], v, s));
        }
        ok = ok && afxdp_rxgro_csum_ok(v, s, &psums[k]);
        if (k) {
            memcpy(v, stash, o_len);
        }
        if (!ok) {
            return false;
        }
        next = s->seq + s->payload;
        datas[k] = v;
    }
    return true;
}

/* If 'p' is a train (see afxdp-rxgro.h), returns the packet its segments
 * merge into, from 'new_packet', and leaves 'p' for the caller to free;
 * else returns NULL, with 'p' as it was.  Adds what it did to 'st'. */
struct dp_packet *
afxdp_rxgro_train(struct dp_packet *p, afxdp_rxgro_new_packet *new_packet,
                  struct afxdp_rxgro_stats *st)
{
    struct afxdp_rxgro_seg segs[AFXDP_RXGRO_MAX_SEGS];
    const uint8_t *datas[AFXDP_RXGRO_MAX_SEGS];
    uint32_t psums[AFXDP_RXGRO_MAX_SEGS];
    uint8_t orig[RXGRO_TRAIN_MAX_OUTER];
    uint8_t *d = dp_packet_data(p);
    uint32_t inner, o_len, chunk, udp_pl, n;
    struct afxdp_l4hdrs out, in;
    bool ok;

    if (!afxdp_l4hdrs_parse(d, dp_packet_size(p), &out)
        || out.proto != IPPROTO_UDP) {
        return NULL;
    }
    inner = afxdp_l4hdrs_tunnel(d, &out);
    o_len = out.l4_ofs + UDP_HEADER_LEN;
    if (!inner || o_len > sizeof orig
        || !afxdp_l4hdrs_parse(d + inner, out.l4_ofs + out.l4_len - inner,
                               &in)
        || in.proto != IPPROTO_TCP || !in.trailer) {
        return NULL;
    }
    /* A segment: from the UDP payload's start to the inner IP packet's
     * end; the rest of the UDP payload is the segments after it. */
    chunk = inner + in.l4_ofs + in.l4_len - o_len;
    udp_pl = out.l4_len - UDP_HEADER_LEN;
    n = DIV_ROUND_UP(udp_pl, chunk);
    if (n > AFXDP_RXGRO_MAX_SEGS) {
        st->bad_trains++;
        return NULL;
    }
    memcpy(orig, d, o_len);
    ok = rxgro_train_check(d, &out, orig, o_len, chunk, udp_pl, n, segs,
                           psums, datas);
    /* The merged packet takes the train's own outer headers (lengths and
     * checksums are computed afresh): a partial UDP checksum, nonzero,
     * gets a full one. */
    memcpy(d, orig, o_len);
    if (!ok) {
        st->bad_trains++;
        return NULL;
    }
    st->trains++;
    st->train_segs += n;
    return rxgro_merge(p, datas, segs, psums, n, new_packet);
}

/* Replaces every train among the packets of 'batch' from its 'first'th on
 * that are longer than 'min_size' by the packet it merges into (see
 * afxdp_rxgro_train()).  Adds what it did to 'st'. */
void
afxdp_rxgro_trains(struct dp_packet_batch *batch, size_t first,
                   uint32_t min_size, afxdp_rxgro_new_packet *new_packet,
                   struct afxdp_rxgro_stats *st)
{
    for (size_t i = first; i < batch->count; i++) {
        struct dp_packet *p = batch->packets[i];
        struct dp_packet *m;

        if (dp_packet_size(p) > min_size
            && (m = afxdp_rxgro_train(p, new_packet, st))) {
            dp_packet_delete(p);
            batch->packets[i] = m;
        }
    }
}
