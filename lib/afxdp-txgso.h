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

#ifndef AFXDP_TXGSO_H
#define AFXDP_TXGSO_H 1

/* TCP super-packets sent whole, for the kernel to segment.
 *
 * AF_XDP has no GSO: a descriptor chain leaves as one frame, so a TCP
 * packet over the MTU must be cut into segments before it reaches the tx
 * ring (afxdp-txseg.h), and the kernel then builds, sends and delivers an
 * skb per segment.  A Linux packet socket with a virtio-net header
 * (PACKET_VNET_HDR) takes the packet whole, with its segment size: the
 * kernel sends one GSO skb, which a NIC with TSO cuts in hardware, the
 * kernel's GSO cuts in software only where the device has no TSO, and a
 * veth hands whole to its peer (a container's stack takes it as one
 * packet, as from the kernel's own bridge).  That saves the kernel's
 * per-segment work on the send path, which bounds a TCP stream through an
 * afxdp port at MTU 1500 (Documentation/topics/benchmark.rst).
 *
 * One socket per port, bound to the device with protocol 0, so that it
 * receives nothing.  It takes untagged IPv4 and IPv6 TCP (VLAN-tagged
 * packets and anything the socket refuses are cut by afxdp-txseg
 * instead).  Each packet goes out with:
 *   - its IPv4 header checksum computed afresh (the receiver checks the
 *     super-packet's header; each segment's is computed by whoever cuts);
 *   - the TCP checksum field holding the pseudo-header sum, and
 *     VIRTIO_NET_HDR_F_NEEDS_CSUM: whoever cuts or receives finishes it;
 *   - the packet's bytes themselves unchanged: the headers go from a copy.
 *
 * sendmsg() is synchronous on the way to the device, as AF_XDP's copy
 * mode is: a packet sent here leaves after those kicked before it.  With
 * zero-copy queues, a driver may still be sending earlier frames of the
 * tx ring, so a super-packet may overtake them (TCP copes; it is rare,
 * since the frames before it are usually of other flows or ACKs).
 *
 * Trains: TCP in a tunnel.  The virtio-net header has no tunnel GSO type
 * that a packet socket takes, so a TCP packet over the MTU in VXLAN or
 * Geneve (afxdp-txseg.h, "Tunnels") would be cut here into segments of
 * one skb each, and that per-segment work of the kernel's bounds an
 * overlay's TCP.  It has UDP GSO (VIRTIO_NET_HDR_GSO_UDP_L4, Linux 4.18):
 * one UDP packet whose payload the kernel cuts at the segment size, each
 * piece with a copy of the headers in front of it (IP and UDP lengths,
 * IPv4 identification and header checksum, UDP checksum computed per
 * piece).  So afxdp_txgso_train_write() writes the segments that
 * afxdp_txseg_write() would write, each without its outer Ethernet, IP and
 * UDP headers, end to end after one copy of those headers: a "train",
 * whose UDP payload the kernel cuts into exactly those segments (each of
 * the same size but the last: the TCP segment size makes them so).  The
 * inner TCP checksums are computed here, the outer UDP one by whoever cuts
 * (VIRTIO_NET_HDR_F_NEEDS_CSUM: the field holds the pseudo-header sum of
 * the whole train), so a packet that had no outer UDP checksum gets one
 * per segment.  A train is one IP packet: at most 65,535 bytes, and at
 * most AFXDP_RXGRO_MAX_SEGS segments (what a receiving port merges); a
 * 64 kB TCP packet at MTU 1500 takes two.  A NIC cuts it (UDP segmentation
 * offload, or the kernel's GSO before the driver); a veth hands it whole to
 * its peer's stack, which cuts it where it must (a UDP socket, a device
 * without UDP GSO), or to its peer's XDP program: an afxdp port there
 * takes it whole and merges it (afxdp-rxgro.h, "Trains"); another XDP
 * program sees a frame over the MTU, as it does from a container sending
 * UDP GSO itself, and options:tx-segmentation=port stops trains.
 *
 * Only a packet whose train a receiving afxdp port merges whole goes as
 * trains: untagged outer Ethernet, TCP flags ACK and at most PSH (left on
 * the last segment only), at least two segments.  Others are cut into
 * segments here. */

#include <stdint.h>

struct afxdp_txseg;

/* Bytes a train buffer holds: an IP packet of 65,535 bytes and its
 * Ethernet header, with room to spare for a segment's write. */
#define AFXDP_TXGSO_TRAIN_BUF (65536 + 64)

/* Opens the socket for device 'ifindex'.  Returns its fd, or a negative
 * errno with a message in '*errp' (to free). */
int afxdp_txgso_open(int ifindex, char **errp);

/* Sends the TCP packet at 'data', which 'seg' planned (afxdp_txseg_plan()
 * with the device's MTU and no frame limit), on 'fd' as one GSO packet of
 * seg->mss payload bytes per segment.  Returns 0, or a positive errno if
 * the kernel did not take it: EAGAIN or ENOBUFS when the socket's buffer
 * is full, EOPNOTSUPP for a packet this path does not send (VLAN-tagged);
 * the caller may cut it then. */
int afxdp_txgso_send(int fd, const struct afxdp_txseg *seg,
                     const uint8_t *data);

/* Writes segments 'first' to 'first' + 'n' - 1 of the tunnelled TCP packet
 * at 'data', which 'seg' planned, as a train into 'buf' (of
 * AFXDP_TXGSO_TRAIN_BUF bytes).  Returns its length.  'n' is at most
 * afxdp_txgso_train_segs(). */
uint32_t afxdp_txgso_train_write(const struct afxdp_txseg *seg,
                                 const uint8_t *data, uint32_t first,
                                 uint32_t n, uint8_t *buf);
uint32_t afxdp_txgso_train_segs(const struct afxdp_txseg *seg);

/* Sends the tunnelled TCP packet at 'data', which 'seg' planned
 * (afxdp_txseg_plan() with the device's MTU and no frame limit), on 'fd' as
 * trains, written in 'buf' (AFXDP_TXGSO_TRAIN_BUF bytes).  Stores in
 * '*n_sent' the segments sent, in '*n_trains' the trains.  Returns 0, or a
 * positive errno at the first train the kernel did not take (the segments
 * before it went out): EOPNOTSUPP for a packet that does not go as trains
 * (see above), EINVAL from a kernel without UDP GSO. */
int afxdp_txgso_send_tunnel(int fd, const struct afxdp_txseg *seg,
                            const uint8_t *data, uint8_t *buf,
                            uint32_t *n_sent, uint32_t *n_trains);

#endif /* afxdp-txgso.h */
