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

#ifndef AFXDP_RXCSUM_H
#define AFXDP_RXCSUM_H 1

/* Received TCP and UDP checksums that only the pseudo-header is in.
 *
 * A Linux sender with TX checksum offload on (a container's veth as Docker
 * and Podman leave it) hands its device packets whose TCP or UDP checksum
 * field holds only the folded pseudo-header sum, with the skb marked
 * CHECKSUM_PARTIAL: whoever sends it on must finish the sum.  AF_XDP
 * copies the bytes and loses that mark, so such a packet, forwarded as it
 * is, reaches its receiver with a wrong checksum and is dropped there
 * (TcpInCsumErrors): TCP never connects.
 *
 * afxdp_rxcsum_fix() recognises such a packet (IPv4 or IPv6, TCP or UDP,
 * headers as afxdp-l4hdrs.h takes them; a UDP checksum of 0 means "none"
 * and is left alone) by its checksum field being equal to the folded
 * pseudo-header sum, and then:
 *   - with OVS 3.3 and later (AFXDP_OVS_CSUM_FALLBACK), marks the L4
 *     checksum partial, as a netdev does for a CHECKSUM_PARTIAL packet:
 *     OVS finishes it at egress, in software or through the output port's
 *     offload (ours: afxdp-txcsum.h);
 *   - with older OVS, which drops a partial packet at a port that does not
 *     offload checksums, finishes it in software right here.
 * Either is right even for a complete checksum that happens to equal the
 * pseudo-header sum (1 in 65536): a checksum computed from scratch is the
 * right one whatever the field held.
 *
 * Tunnels: a VXLAN or Geneve packet's own partial UDP checksum (a Linux
 * tunnel device's, with an inner packet whose checksum is complete) is
 * finished in software on every OVS version: OVS 3.3 to 3.6 verify a
 * tunnel's UDP checksum when they decapsulate and drop a packet marked
 * partial.  And a Linux VXLAN or Geneve device encapsulating such a packet
 * leaves the inner checksum partial and computes the outer UDP checksum
 * as if it were finished (local checksum offload); a veth carries that
 * state to its peer, and AF_XDP loses it again.  So in a VXLAN or Geneve
 * packet (afxdp_l4hdrs_tunnel()) the inner TCP or UDP checksum gets the
 * same check, before the outer one (a GSO packet of such a device, which
 * a veth hands whole to generic XDP, has both partial), and a partial one is
 * finished right here on every OVS version (OVS knows no inner checksum
 * state of a packet it receives); the outer checksum, already computed
 * for the finished inner one, stays valid; an outer one that was partial
 * too is then finished over the finished inner one.
 *
 * It reads the headers only (no payload) unless it finishes a checksum in
 * software.  Any thread may call these functions; they touch only the
 * packet. */

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "afxdp-csum.h"
#include "afxdp-l4hdrs.h"
#include "dp-packet.h"
#include "packets.h"

/* What afxdp_rxcsum_detect() found in a packet's checksum field. */
struct afxdp_rxcsum_info {
    struct afxdp_l4hdrs h;      /* The packet's headers. */
    uint32_t csum_ofs;          /* Checksum field, from the start. */
    bool tcp;                   /* TCP, else UDP. */
};

bool afxdp_rxcsum_detect(const uint8_t *data, uint32_t size,
                         struct afxdp_rxcsum_info *);
void afxdp_rxcsum_finish(uint8_t *data, const struct afxdp_rxcsum_info *);
bool afxdp_rxcsum_fix__(struct dp_packet *);

/* The per-packet prefilter of afxdp_rxcsum_fix(): returns false where
 * afxdp_rxcsum_detect() would, for the common packets (untagged IPv4
 * without options, untagged IPv6, carrying TCP or UDP, and anything that
 * is neither IP nor VLAN), reading only the few header bytes the sum
 * needs; true where the full check must decide.  It compares the
 * checksum field with the same pseudo-header sum the full parser
 * computes (addresses, protocol and L4 length as the IP header says), so
 * a mismatch here is a mismatch there (afxdp-csum.h: the sums of 32-bit
 * and of 16-bit words agree modulo 0xffff, and two folded nonzero sums
 * are equal exactly when they agree modulo 0xffff). */
static inline bool
afxdp_rxcsum_may_be_partial(const uint8_t *data, uint32_t size)
{
    uint32_t l4_ofs, l4_len, csum_ofs;
    uint64_t sum;
    uint16_t type, field;
    uint8_t proto;

    if (size < ETH_HEADER_LEN + IP_HEADER_LEN + UDP_HEADER_LEN) {
        return false;           /* Too short for any IP + UDP packet. */
    }
    memcpy(&type, data + ETH_ADDR_LEN * 2, sizeof type);
    if (type == htons(ETH_TYPE_IP)) {
        uint16_t tot;

        if (data[ETH_HEADER_LEN] != 0x45) {
            return true;        /* Options, or not version 4. */
        }
        proto = data[ETH_HEADER_LEN + 9];
        memcpy(&tot, data + ETH_HEADER_LEN + 2, sizeof tot);
        l4_len = ntohs(tot) - IP_HEADER_LEN;    /* Wraps if bogus. */
        l4_ofs = ETH_HEADER_LEN + IP_HEADER_LEN;
        sum = afxdp_csum_add32(0, data + ETH_HEADER_LEN + 12, 2);
    } else if (type == htons(ETH_TYPE_IPV6)) {
        uint16_t plen;

        if (size < ETH_HEADER_LEN + IPV6_HEADER_LEN + UDP_HEADER_LEN) {
            return false;
        }
        proto = data[ETH_HEADER_LEN + 6];
        memcpy(&plen, data + ETH_HEADER_LEN + 4, sizeof plen);
        l4_len = ntohs(plen);
        l4_ofs = ETH_HEADER_LEN + IPV6_HEADER_LEN;
        sum = afxdp_csum_add32(0, data + ETH_HEADER_LEN + 8, 8);
    } else {
        /* VLAN tags for the full parser; anything else is no IP. */
        return type == htons(ETH_TYPE_VLAN_8021Q)
               || type == htons(ETH_TYPE_VLAN_8021AD);
    }
    if (proto == IPPROTO_UDP) {
        csum_ofs = l4_ofs + offsetof(struct udp_header, udp_csum);
    } else if (proto == IPPROTO_TCP) {
        csum_ofs = l4_ofs + offsetof(struct tcp_header, tcp_csum);
        if (size < csum_ofs + 2) {
            return false;
        }
    } else {
        return false;
    }
    sum += htons(proto) + htons((uint16_t) l4_len);
    memcpy(&field, data + csum_ofs, sizeof field);
    if (field == afxdp_csum_fold16(sum)) {
        return true;
    }
    if (proto == IPPROTO_UDP) {
        uint16_t dst;

        /* A tunnel's inner checksum may be the partial one. */
        memcpy(&dst, data + l4_ofs + 2, sizeof dst);
        return (dst == htons(AFXDP_L4HDRS_VXLAN_PORT)
                || dst == htons(AFXDP_L4HDRS_GENEVE_PORT));
    }
    return false;
}

/* Called for each received packet 'p' while the port's
 * options:rx-checksum-partial is true.  If its checksum holds only the
 * pseudo-header sum, marks it partial or finishes it (see the top) and
 * returns true; otherwise leaves 'p' as it is and returns false.  Inline
 * for the prefilter, which settles almost every packet. */
static inline bool
afxdp_rxcsum_fix(struct dp_packet *p)
{
    return (OVS_UNLIKELY(afxdp_rxcsum_may_be_partial(dp_packet_data(p),
                                                     dp_packet_size(p)))
            && afxdp_rxcsum_fix__(p));
}

#endif /* afxdp-rxcsum.h */
