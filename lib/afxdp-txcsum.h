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

#ifndef AFXDP_TXCSUM_H
#define AFXDP_TXCSUM_H 1

/* TX checksum offload of an afxdp port: what the send path does with a
 * packet whose TCP or UDP checksum OVS left for the port to finish.
 *
 * A port declares NETDEV_TX_OFFLOAD_TCP_CKSUM and _UDP_CKSUM to OVS only
 * while all its sockets keep TX metadata (afxdp-xsk's "TX metadata"); then
 * OVS hands it such packets instead of finishing them itself.  For each,
 * afxdp_txcsum_check():
 *   - parses the packet's headers itself (afxdp-l4hdrs.h: Ethernet, up
 *     to two VLAN tags, IPv4 or IPv6 without extension headers, TCP or
 *     UDP), never trusting OVS's offsets or the checksum field's content;
 *   - checks that the request is one the kernel takes (checksum field
 *     within the packet, start below 64 kB, no bytes after the IP payload
 *     that the kernel would add into the sum);
 *   - if so, writes the pseudo-header sum into the checksum field (what a
 *     CHECKSUM_PARTIAL skb carries: OVS's rewrites of addresses and ports,
 *     NAT included, cannot leave it stale) and fills a TX metadata request
 *     for the kernel;
 *   - if not, or if the socket keeps no metadata, finishes the checksum in
 *     software (counted);
 *   - leaves tunnelled packets (the checksum to finish is an inner one) to
 *     OVS's software checksum.
 * A kernel that refused a request would drop the packet, and an older one
 * could stall its tx ring on it: nothing the kernel would refuse is ever
 * submitted.
 *
 * Any thread may call these functions; they touch only the packet. */

#include <stdbool.h>
#include <stdint.h>

#include "afxdp-compat.h"
#include "dp-packet.h"
#include "openvswitch/compiler.h"

/* What became of one packet's checksum. */
enum afxdp_txcsum_action {
    AFXDP_TXCSUM_NONE,          /* Nothing to finish. */
    AFXDP_TXCSUM_REQUEST,       /* The kernel finishes it: send the
                                 * metadata request with the packet. */
    AFXDP_TXCSUM_SOFTWARE,      /* Finished here, in software. */
    AFXDP_TXCSUM_UNPARSED,      /* Not a TCP or UDP packet we can parse:
                                 * sent as it is. */
};

enum afxdp_txcsum_action afxdp_txcsum_prepare(struct dp_packet *,
                                              bool offload,
                                              struct afxdp_tx_metadata *);

/* Finishes or requests the checksum of 'p' if OVS left it to us: with a
 * request in '*md' if 'offload' (the socket keeps TX metadata), else in
 * software.  See the top for the rest. */
static inline enum afxdp_txcsum_action
afxdp_txcsum_check(struct dp_packet *p, bool offload,
                   struct afxdp_tx_metadata *md)
{
    /* A tunnelled packet's partial checksum may be only the inner one,
     * which afxdp_packet_l4_partial() (the outer L4) does not show. */
    if (OVS_LIKELY(!afxdp_packet_l4_partial(p) && !afxdp_packet_tunnel(p))) {
        return AFXDP_TXCSUM_NONE;
    }
    return afxdp_txcsum_prepare(p, offload, md);
}

#endif /* afxdp-txcsum.h */
