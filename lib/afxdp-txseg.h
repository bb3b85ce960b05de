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

#ifndef AFXDP_TXSEG_H
#define AFXDP_TXSEG_H 1

/* TCP segmentation on the send path of an afxdp port.
 *
 * A Linux sender whose device keeps GSO (a container's veth, seen by our
 * port in generic XDP mode) hands over TCP "super-packets" of up to 64 kB.
 * AF_XDP has no GSO: the kernel sends each descriptor chain as one frame,
 * and a device drops a frame over its MTU unseen (even a GSO packet of two
 * segments, which fits in one UMEM frame).  So a TCP packet whose IP
 * packet is larger than the device's MTU is cut here into segments, each
 * written straight into its own UMEM tx frame: the headers copied into
 * every segment, the payload copied once, from the packet.
 *
 * afxdp_txseg_plan() parses the packet's own bytes (afxdp-l4hdrs.h:
 * Ethernet, up to two VLAN tags, IPv4 with options or IPv6 without
 * extension headers; then TCP with options) and sizes the segments: a
 * payload of MTU - IP header - TCP header, less where a segment must fit
 * in one frame or where OVS gave a smaller TSO segment size.  A TSO packet
 * within the MTU whose payload is larger than OVS's segment size is cut
 * too.
 * afxdp_txseg_write() then writes segment i, as a TSO-capable NIC would:
 *   - IPv4: total length, identification (the packet's + i) and header
 *     checksum; IPv6: payload length;
 *   - TCP: sequence number advanced by the payload before it; FIN and PSH
 *     only on the last segment, CWR only on the first;
 *   - TCP checksum: with 'offload' (the socket keeps TX metadata), the
 *     pseudo-header sum in the field and a TX metadata request for the
 *     kernel to finish it; else computed here, in software.
 * Whatever the packet's checksum held (finished, partial, or stale), each
 * segment's is computed afresh.  Bytes after the IP payload (a trailer)
 * are not sent.
 *
 * Tunnels.  OVS encapsulates what a container sent whole: a TCP packet of
 * up to 64 kB inside VXLAN (UDP port 4789) or Geneve (6081, Ethernet
 * payload) leaves the underlay port as one UDP packet over the MTU, which
 * no kernel path here segments (the packet socket's virtio-net header has
 * no tunnel GSO type).  The plan looks through such a tunnel header
 * (afxdp_l4hdrs_tunnel()) at the inner Ethernet, IP and TCP headers and
 * cuts the inner TCP payload, so that each segment's outer IP packet is
 * within the MTU; every segment carries the outer headers too, with:
 *   - outer IPv4 total length, identification (+ i) and header checksum;
 *     outer IPv6 payload length; UDP length;
 *   - the inner TCP checksum computed here (the kernel's TX metadata names
 *     one checksum, and the outer UDP checksum covers the inner);
 *   - the outer UDP checksum, if the packet has one (nonzero), computed
 *     here from the headers alone: the inner checksum being right makes
 *     the inner segment's sum known (afxdp_txseg_write_outer()); zero
 *     stays zero.  So a tunnelled segment takes one pass over its payload
 *     (the inner checksum) and no TX metadata request.
 * Tunnels on other UDP ports are not recognised: such packets over the
 * MTU are dropped as before (tx_drop_oversize).
 *
 * The segment size.  A TSO NIC cuts at the sender's segment size, which
 * the packet's receiver can take (a receiving veth drops a frame over its
 * own MTU).  AF_XDP gives us none for what it received whole, and a tunnel
 * makes the egress MTU the wrong measure: a pod with MTU 1400 behind an
 * underlay of 1500 must get segments of at most 1400 bytes, not the 1442
 * the underlay would fit.  So the port that receives a packet larger than
 * a frame notes, with the copy (afxdp-big-packet.h), the MTU of its own
 * device, less the tunnel's headers if the packet came in one
 * (afxdp_txseg_src_mtu()): its sender's device has the same MTU on a veth,
 * and a kernel tunnel sender's inner MTU is its outer one less those
 * headers.  The plan then keeps every segment's innermost IP packet within
 * that 'src_mtu' too.  A packet within one frame (a GSO packet of two or
 * three segments) is cut for the MTU of the device it came from, as its
 * pool says, without the tunnel's part.
 *
 * Pure functions: any thread may call them. */

#include <stdbool.h>
#include <stdint.h>

#include "afxdp-compat.h"
#include "afxdp-l4hdrs.h"

/* Most segments the send path writes into the tx ring and submits at
 * once.  A packet may be cut into more (64 kB at a TSO segment size of 511
 * bytes or less: at 488, a receiver's MSS of 500 less TCP timestamps, up
 * to 135): its segments then go out in several bursts.  Bounds an array
 * on the stack, not the packet. */
#define AFXDP_TXSEG_BURST 128

/* The tunnel around a packet's TCP headers, if any. */
struct afxdp_txseg_outer {
    uint32_t l3_ofs;            /* Outer IPv4 or IPv6 header. */
    uint32_t l4_ofs;            /* Outer UDP header. */
    uint32_t pseudo;            /* Outer pseudo-header sum without the
                                 * length. */
    bool ipv6;                  /* Outer IPv6, else IPv4. */
    bool udp_csum;              /* The packet's UDP checksum is nonzero:
                                 * each segment gets one. */
};

/* How afxdp_txseg_plan() will cut a packet. */
struct afxdp_txseg {
    struct afxdp_l4hdrs h;      /* The packet's (inner, with a tunnel) IP
                                 * and TCP headers, offsets from the
                                 * packet's start. */
    bool tunnel;                /* In VXLAN or Geneve: 'outer' is valid. */
    struct afxdp_txseg_outer outer;
    uint32_t hdr_len;           /* Bytes up to the TCP payload, copied into
                                 * each segment. */
    uint32_t payload;           /* TCP payload bytes. */
    uint32_t mss;               /* Payload bytes of each segment but the
                                 * last. */
    uint32_t n_segs;            /* Segments, at least 1 and at most one
                                 * per payload byte: no other bound. */
    uint32_t pseudo;            /* Pseudo-header sum without the length. */
};

/* What afxdp_txseg_plan() made of a packet. */
enum afxdp_txseg_verdict {
    AFXDP_TXSEG_OK,             /* TCP, cut as the plan says. */
    AFXDP_TXSEG_FITS,           /* TCP, its IP packet within the MTU
                                 * and its payload within the TSO segment
                                 * size, if any: to send whole. */
    AFXDP_TXSEG_NOT_TCP,        /* Not an (unfragmented) TCP packet that
                                 * afxdp-l4hdrs.h parses, bare or in a
                                 * tunnel the plan knows. */
    AFXDP_TXSEG_MALFORMED,      /* TCP, but its header is malformed, it has
                                 * no payload, or the headers leave no room
                                 * for one. */
};

enum afxdp_txseg_verdict afxdp_txseg_plan(const uint8_t *data, uint32_t size,
                                          uint32_t mtu, uint32_t max_len,
                                          uint32_t segsz, uint32_t src_mtu,
                                          struct afxdp_txseg *);
uint32_t afxdp_txseg_src_mtu(const uint8_t *data, uint32_t size,
                             uint32_t rx_mtu);
void afxdp_txseg_csum_partial(const struct afxdp_txseg *, uint8_t *hdr,
                              uint32_t l4_len);
uint32_t afxdp_txseg_write(const struct afxdp_txseg *, const uint8_t *data,
                           uint32_t i, uint8_t *dst, bool offload,
                           struct afxdp_tx_metadata *);
/* Segment 'i' of a tunnelled packet as afxdp_txseg_write() writes it, its
 * inner TCP checksum computed, but its outer headers as in the packet:
 * for a UDP GSO train (afxdp-txgso.h), whose outer headers are written
 * once, for all its segments. */
uint32_t afxdp_txseg_write_inner(const struct afxdp_txseg *,
                                 const uint8_t *data, uint32_t i,
                                 uint8_t *dst);

#endif /* afxdp-txseg.h */
