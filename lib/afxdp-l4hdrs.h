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

#ifndef AFXDP_L4HDRS_H
#define AFXDP_L4HDRS_H 1

/* Where a packet's TCP or UDP checksum is, found from the packet's own
 * bytes: the parser that both the send path (afxdp-txcsum) and the receive
 * path (afxdp-rxcsum) use, so that they take exactly the same packets.
 *
 * It takes Ethernet, up to two VLAN tags (802.1Q or 802.1ad), then IPv4
 * (options allowed, no fragment) or IPv6 without extension headers.  It
 * never trusts OVS's offsets or flags.  It reads only the headers.
 *
 * Pure functions: any thread may call them. */

#include <stdbool.h>
#include <stdint.h>

/* What afxdp_l4hdrs_parse() found. */
struct afxdp_l4hdrs {
    uint32_t l3_ofs;            /* IPv4 or IPv6 header, from the start. */
    uint32_t l4_ofs;            /* TCP or UDP header, from the start. */
    uint32_t l4_len;            /* Bytes from there, as the IP header
                                 * says. */
    uint32_t trailer;           /* Bytes after the IP payload. */
    uint32_t pseudo;            /* Pseudo-header sum, not folded. */
    uint8_t proto;              /* IP protocol (next header). */
    bool ipv6;                  /* IPv6, else IPv4. */
};

bool afxdp_l4hdrs_parse(const uint8_t *data, uint32_t size,
                        struct afxdp_l4hdrs *);

/* The UDP tunnels whose inner packets the send path cuts (afxdp-txseg.h)
 * and the receive path checks (afxdp-rxcsum.h): VXLAN on UDP port 4789
 * and Geneve on 6081, carrying Ethernet. */
#define AFXDP_L4HDRS_VXLAN_PORT 4789
#define AFXDP_L4HDRS_GENEVE_PORT 6081
uint32_t afxdp_l4hdrs_tunnel(const uint8_t *data,
                             const struct afxdp_l4hdrs *udp);

/* Byte offsets of the header fields that the send and receive paths
 * rewrite (segments cut, runs merged, trains): in the IPv4, IPv6, UDP and
 * TCP headers. */
#define AFXDP_IP4_TOT_LEN 2
#define AFXDP_IP4_ID 4
#define AFXDP_IP4_CSUM 10
#define AFXDP_IP6_PLEN 4
#define AFXDP_UDP_LEN 4
#define AFXDP_UDP_CSUM 6
#define AFXDP_TCP_SEQ 4
#define AFXDP_TCP_DOFF 12           /* Data offset, upper 4 bits. */
#define AFXDP_TCP_FLAGS 13          /* CWR ECE URG ACK PSH RST SYN FIN. */
#define AFXDP_TCP_CSUM 16
#define AFXDP_TCP_CWR 0x80          /* The flag OVS's packets.h lacks. */

/* The 16-bit big-endian field at 'p', in host order; and a store of one:
 * for the header fields that the send and receive paths rewrite. */
static inline uint16_t
afxdp_l4hdrs_get16(const uint8_t *p)
{
    return (p[0] << 8) | p[1];
}

static inline void
afxdp_l4hdrs_put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

#endif /* afxdp-l4hdrs.h */
