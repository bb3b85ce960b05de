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
 * It reads the headers only (no payload) unless it finishes a checksum in
 * software.  Any thread may call these functions; they touch only the
 * packet. */

#include <stdbool.h>
#include <stdint.h>

#include "afxdp-l4hdrs.h"
#include "dp-packet.h"

/* What afxdp_rxcsum_detect() found in a packet's checksum field. */
struct afxdp_rxcsum_info {
    struct afxdp_l4hdrs h;      /* The packet's headers. */
    uint32_t csum_ofs;          /* Checksum field, from the start. */
    bool tcp;                   /* TCP, else UDP. */
};

bool afxdp_rxcsum_detect(const uint8_t *data, uint32_t size,
                         struct afxdp_rxcsum_info *);
void afxdp_rxcsum_finish(uint8_t *data, const struct afxdp_rxcsum_info *);
bool afxdp_rxcsum_fix(struct dp_packet *);

#endif /* afxdp-rxcsum.h */
