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

#ifndef AFXDP_RXGRO_H
#define AFXDP_RXGRO_H 1

/* Receive coalescing of TCP segments on an afxdp port (options:rx-gro).
 *
 * A NIC, and an overlay's underlay port, hand the PMD TCP segments of at
 * most the MTU: each then goes through OVS on its own (twice in a tunnel:
 * its outer headers, then its inner ones) and leaves its egress port on
 * its own, where a pod's veth makes an skb of each and the pod's TCP takes
 * them one by one.  Linux merges such segments as it receives them (GRO);
 * AF_XDP gives user space the frames as they came.  So the receive path
 * merges here, in each batch it just took from the ring, every run of
 * adjacent packets that are consecutive segments of one TCP connection,
 * bare or inside VXLAN or Geneve (afxdp-l4hdrs.h), into one packet, which
 * the egress port then sends whole through the kernel or cuts again
 * (afxdp-txgso.h, afxdp-txseg.h) at the size the segments had.
 *
 * Segment B joins the run that segment A started when:
 *   - both are TCP with a payload, with ACK and no flag but PSH, PSH only
 *     on the run's last segment;
 *   - every header byte of B, from the Ethernet header to the end of the
 *     TCP options, is A's, but for the IP lengths, the IPv4
 *     identifications and header checksums, the UDP length and checksum,
 *     the TCP sequence number, PSH and the TCP checksum (so the same
 *     addresses, ports, tunnel header, TOS, TTL, ACK number, window and
 *     options, timestamps included);
 *   - B's sequence number follows the run's last byte, every segment but
 *     the last carries A's payload size and the last at most that;
 *   - the run stays within an IP packet of 65,535 bytes (the outer one, in
 *     a tunnel);
 *   - every checksum is right: IPv4 header checksums, the (inner) TCP
 *     checksum and a nonzero outer UDP checksum, of A and of B.  A segment
 *     that nothing follows is not checked, nor changed.  A packet whose
 *     checksum is marked partial for OVS (from a container: afxdp-rxcsum.h)
 *     is left as it is.
 * Packets shorter than AFXDP_RXGRO_MIN_LEN are left alone.
 *
 * Trains.  An afxdp port sends a TCP packet over its MTU that is in a
 * VXLAN or Geneve tunnel as a "train" through its packet socket
 * (afxdp-txgso.h): one UDP GSO packet whose payload is the segments' own
 * UDP payloads (tunnel header, inner Ethernet, IP, TCP, payload) end to
 * end, each but the last of the same size, for the kernel to cut at that
 * size and give each piece the outer headers.  A NIC (or the kernel's
 * GSO) cuts it; a veth hands it whole to its peer, and when the peer is
 * an afxdp port it comes out of the rx ring as one frame over the MTU:
 * outer headers whose lengths cover the whole train, then the first
 * segment, whose inner IP packet ends before the UDP payload does, then
 * the others.  OVS would take the bytes after the first inner packet for
 * padding and lose them.  afxdp_rxgro_train() recognises such a frame,
 * checks every segment as a run's (the same rules, but for the outer UDP
 * checksum, which in a train is only partial) and merges them into one
 * packet, as if they had come as separate segments: whatever 'rx-gro'
 * says, since a train's bytes are no packet OVS could take.  A frame
 * that looks like a train but is not one (a segment that does not follow,
 * a wrong checksum) is counted and left as it is.
 * A run ends at the first packet that does not join it; packets of other
 * connections between two segments end it too, so the order of every
 * connection's packets is kept.  The merged packet has A's headers with
 * the lengths, IPv4 header checksums, TCP checksum and outer UDP checksum
 * (if A's was nonzero) computed afresh: a valid packet as it is, for any
 * egress.  One with an outer UDP checksum is marked as having a good one
 * (afxdp_packet_set_rx_l4_good()), so that OVS does not sum it again when
 * it decapsulates it.
 *
 * Pure functions but for the packets made and freed: any thread may call
 * them. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "afxdp-l4hdrs.h"

struct dp_packet;
struct dp_packet_batch;

/* The shortest packet that may join a run.  Merging small segments saves
 * little, and a burst of small packets (64-byte forwarding) then costs one
 * comparison a packet, not a look at its headers. */
#define AFXDP_RXGRO_MIN_LEN 256

/* Most segments one merged packet takes: a receive call's burst. */
#define AFXDP_RXGRO_MAX_SEGS 64

/* What afxdp_rxgro_parse() found in a segment. */
struct afxdp_rxgro_seg {
    struct afxdp_l4hdrs in;     /* The (inner) IP and TCP headers. */
    struct afxdp_l4hdrs out;    /* The outer IP and UDP, in a tunnel. */
    bool tunnel;                /* In VXLAN or Geneve: 'out' is valid. */
    uint32_t hdr_len;           /* Bytes up to the TCP payload. */
    uint32_t payload;           /* TCP payload bytes. */
    uint32_t seq;               /* TCP sequence number. */
    uint8_t flags;              /* TCP flags. */
};

bool afxdp_rxgro_parse(const uint8_t *data, uint32_t size,
                       struct afxdp_rxgro_seg *);
bool afxdp_rxgro_follows(const uint8_t *a, const struct afxdp_rxgro_seg *sa,
                         const uint8_t *b, const struct afxdp_rxgro_seg *sb);
bool afxdp_rxgro_csum_ok(const uint8_t *data, const struct afxdp_rxgro_seg *,
                         uint32_t *payload_sum);

/* Makes the packet that a run merges into, of 'size' bytes with room for
 * them and none put, from the run's first packet 'first' (whose receipt,
 * timestamp and port it may take), each of its segments' innermost IP
 * packet at most 'seg_mtu' bytes (what an egress port cuts it into). */
typedef struct dp_packet *afxdp_rxgro_new_packet(const struct dp_packet *first,
                                                 uint32_t size,
                                                 uint32_t seg_mtu);

/* What afxdp_rxgro_batch() and afxdp_rxgro_trains() did. */
struct afxdp_rxgro_stats {
    uint32_t merged;            /* Packets made of runs. */
    uint32_t segs;              /* Segments they took. */
    uint32_t bad_csum;          /* Segments left alone for a wrong
                                 * checksum. */
    uint32_t trains;            /* Trains merged. */
    uint32_t train_segs;        /* The segments they held. */
    uint32_t bad_trains;        /* Packets that looked like trains but
                                 * were none (left as they are). */
};

void afxdp_rxgro_batch(struct dp_packet_batch *, size_t first,
                       afxdp_rxgro_new_packet *, struct afxdp_rxgro_stats *);
struct dp_packet *afxdp_rxgro_train(struct dp_packet *,
                                    afxdp_rxgro_new_packet *,
                                    struct afxdp_rxgro_stats *);
void afxdp_rxgro_trains(struct dp_packet_batch *, size_t first,
                        uint32_t min_size, afxdp_rxgro_new_packet *,
                        struct afxdp_rxgro_stats *);

#endif /* afxdp-rxgro.h */
