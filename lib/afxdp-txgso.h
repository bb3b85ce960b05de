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
 * since the frames before it are usually of other flows or ACKs). */

#include <stdint.h>

struct afxdp_txseg;

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

#endif /* afxdp-txgso.h */
