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

#ifndef AFXDP_COMPAT_H
#define AFXDP_COMPAT_H 1

/* Kernel interfaces newer than some build hosts' headers, and OVS
 * interfaces that differ between the OVS releases we build against, in one
 * place.  The kernel values are the kernel's ABI; a kernel without the
 * feature rejects them at run time with an errno that the caller reports.
 * What the OVS tree offers comes from its probes (patches/ovs-probe). */

#include <stdint.h>
#include <sys/socket.h>
#include <linux/bpf.h>

#include "afxdp-ovs-probes.h"

#ifndef SO_BUSY_POLL
#define SO_BUSY_POLL 46             /* Linux 3.11. */
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69      /* Linux 5.11. */
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70      /* Linux 5.11. */
#endif

/* AF_XDP multi-buffer (<linux/if_xdp.h>, Linux 6.6): bind flag that lets
 * a packet span several descriptors, and the descriptor option that says
 * "more of this packet follows".  A kernel without it refuses the bind
 * flag with EINVAL. */
#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4)
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0)
#endif
/* Socket option (SOL_XDP, Linux 6.17): how many descriptors one sendto()
 * turns into skbs in copy mode, 32 by default. */
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9
#endif

/* AF_XDP TX metadata (<linux/if_xdp.h>, Linux 6.8): a UMEM registered
 * with 'tx_metadata_len' keeps that many bytes in front of every sent
 * descriptor's data for a 'struct afxdp_tx_metadata'; a descriptor with
 * XDP_TX_METADATA in 'options' asks the kernel to act on it, e.g. finish a
 * partial TCP or UDP checksum.  From Linux 6.11 the registration must also
 * carry XDP_UMEM_TX_METADATA_LEN, which older kernels refuse (EINVAL). */
#ifndef XDP_UMEM_TX_METADATA_LEN
#define XDP_UMEM_TX_METADATA_LEN (1 << 2)
#endif
#ifndef XDP_TX_METADATA
#define XDP_TX_METADATA (1 << 1)
#endif
#ifndef XDP_TXMD_FLAGS_CHECKSUM
#define XDP_TXMD_FLAGS_CHECKSUM (1 << 1)
#endif

/* 'struct xdp_umem_reg' as Linux 6.8 has it: Debian 12's header (6.1)
 * ends at 'flags', and its last four bytes are padding there. */
struct afxdp_umem_reg {
    uint64_t addr;              /* Start of the area. */
    uint64_t len;               /* Its length. */
    uint32_t chunk_size;        /* Frame size. */
    uint32_t headroom;          /* Kernel's rx headroom in a frame. */
    uint32_t flags;             /* XDP_UMEM_*. */
    uint32_t tx_metadata_len;   /* Bytes before each sent descriptor. */
};

/* The kernel's 'struct xsk_tx_metadata' (Linux 6.8; 24 bytes since 6.14
 * added 'launch_time'), placed 'tx_metadata_len' bytes before a sent
 * descriptor's data. */
struct afxdp_tx_metadata {
    uint64_t flags;             /* XDP_TXMD_FLAGS_*. */
    uint16_t csum_start;        /* Checksum from this byte of the packet */
    uint16_t csum_offset;       /* to its end, stored this far after it. */
    uint32_t pad;
    uint64_t launch_time;       /* Unused here. */
};

/* Loads an XDP program for one device (prog_ifindex) without offloading
 * it, so that it may call the driver's RX metadata kfuncs.  Linux 6.3. */
#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif

/* Generic netlink family "netdev" (<linux/netdev.h>, Linux 6.3): what a
 * device's driver implements.  Only what we use. */
#define AFXDP_NETDEV_GENL_NAME "netdev"
#define AFXDP_NETDEV_GENL_VERSION 1
#define AFXDP_NETDEV_CMD_DEV_GET 1
#define AFXDP_NETDEV_CMD_DEV_ADD_NTF 2                  /* Notifications */
#define AFXDP_NETDEV_CMD_DEV_DEL_NTF 3                  /* of the "mgmt" */
#define AFXDP_NETDEV_CMD_DEV_CHANGE_NTF 4               /* group. */
#define AFXDP_NETDEV_MCGRP_MGMT "mgmt"
#define AFXDP_NETDEV_A_DEV_IFINDEX 1                    /* u32. */
#define AFXDP_NETDEV_A_DEV_XDP_FEATURES 3               /* u64. */
#define AFXDP_NETDEV_XDP_ACT_NDO_XMIT (1 << 2)          /* Takes frames */
#define AFXDP_NETDEV_XDP_ACT_NDO_XMIT_SG (1 << 6)       /* redirected to it,
                                                         * multi-buffer
                                                         * ones too. */
#define AFXDP_NETDEV_A_DEV_XDP_ZC_MAX_SEGS 4            /* u32, Linux 6.6:
                                                         * descriptors a
                                                         * zero-copy packet
                                                         * may span. */
#define AFXDP_NETDEV_A_DEV_XDP_RX_METADATA_FEATURES 5   /* u64, Linux 6.3. */
#define AFXDP_NETDEV_XDP_RX_METADATA_TIMESTAMP (1 << 0)
#define AFXDP_NETDEV_XDP_RX_METADATA_HASH (1 << 1)
#define AFXDP_NETDEV_XDP_RX_METADATA_VLAN_TAG (1 << 2)  /* Linux 6.8. */

/* Keeps a function out of line, where OVS's compiler.h has only
 * ALWAYS_INLINE. */
#if __GNUC__ && !defined(__CHECKER__)
#define AFXDP_NOINLINE __attribute__((noinline))
#else
#define AFXDP_NOINLINE
#endif

/* Before OVS 4.0, odp_execute_actions() runs the implementation of its
 * actions that odp_execute_init() chose, which must have run first; OVS
 * 4.0 has one implementation and no such call.  (The caller includes
 * "odp-execute.h".) */
#if AFXDP_OVS_ODP_EXECUTE_INIT
#define afxdp_odp_execute_init() odp_execute_init()
#else
#define afxdp_odp_execute_init() ((void) 0)
#endif

/* Empties 'batch', whose packets the caller has sent or freed, keeping its
 * storage.  From OVS 4.0 a batch may have grown past NETDEV_MAX_BURST onto
 * the heap, and dp_packet_batch_init() would lose that array; before, init
 * is the only way to empty one.  (The caller includes "dp-packet.h".) */
#if AFXDP_OVS_BATCH_GROWS
#define afxdp_batch_empty(BATCH) dp_packet_batch_reset(BATCH)
#else
#define afxdp_batch_empty(BATCH) dp_packet_batch_init(BATCH)
#endif

/* The checksum state of a packet that OVS hands to a netdev's send (the
 * caller includes "dp-packet.h"):
 *   afxdp_packet_l4_partial(P)   its TCP or UDP checksum is to be finished
 *                                (from OVS 4.0 "partial", before a TX
 *                                checksum flag in 'ol_flags');
 *   afxdp_packet_l4_tcp(P), afxdp_packet_l4_udp(P)   which protocol;
 *   afxdp_packet_tunnel(P)       the checksum to finish is a tunnel's inner
 *                                one (OVS 3.3+; OVS 3.1 has no tunnel
 *                                offloads);
 *   afxdp_packet_csum_by_ovs(P)  OVS finishes every checksum of P in
 *                                software (3.3+; only called where
 *                                afxdp_packet_tunnel() is true);
 *   afxdp_packet_set_l4_partial(P, TCP)   marks P's TCP (if TCP) or UDP
 *                                checksum as to be finished, as a tap does
 *                                (for the unit tests). */
#if !AFXDP_OVS_PACKET_OL_FLAGS
#define afxdp_packet_set_l4_partial(P, TCP)                     \
    (dp_packet_l4_checksum_set_partial(P),                      \
     (TCP) ? dp_packet_l4_proto_set_tcp(P) : dp_packet_l4_proto_set_udp(P))
#define afxdp_packet_l4_partial(P) dp_packet_l4_checksum_partial(P)
#define afxdp_packet_l4_tcp(P) dp_packet_l4_proto_tcp(P)
#define afxdp_packet_l4_udp(P) dp_packet_l4_proto_udp(P)
#define afxdp_packet_tunnel(P) dp_packet_tunnel(P)
#else
#define afxdp_packet_set_l4_partial(P, TCP)                     \
    ((TCP) ? dp_packet_hwol_set_csum_tcp(P) : dp_packet_hwol_set_csum_udp(P))
#define afxdp_packet_l4_partial(P) dp_packet_hwol_tx_l4_checksum(P)
#define afxdp_packet_l4_tcp(P) dp_packet_hwol_l4_is_tcp(P)
#define afxdp_packet_l4_udp(P) dp_packet_hwol_l4_is_udp(P)
#if AFXDP_OVS_PACKET_SEND_PREPARE
#define afxdp_packet_tunnel(P) dp_packet_hwol_is_tunnel(P)
#else
#define afxdp_packet_tunnel(P) ((void) (P), false)
#endif
#endif
/* afxdp_packet_set_rx_l4_good(P) marks a received packet's (outer) TCP or
 * UDP checksum as checked and right, as a NIC's receive checksum offload
 * does, and as OVS itself marks a tunnel's UDP checksum once it checked
 * it: OVS then does not sum the packet again when it decapsulates it. */
#if !AFXDP_OVS_PACKET_OL_FLAGS
#define afxdp_packet_set_rx_l4_good(P) dp_packet_l4_checksum_set_good(P)
#else
#define afxdp_packet_set_rx_l4_good(P)                          \
    (*dp_packet_ol_flags_ptr(P) |= DP_PACKET_OL_RX_L4_CKSUM_GOOD)
#endif
/* afxdp_packet_set_rx_l4_partial(P, TCP, IPV6) marks a received packet's
 * TCP (if TCP) or UDP checksum as to be finished, as a netdev does for a
 * CHECKSUM_PARTIAL packet.  Before OVS 4.0, OVS's software checksum also
 * needs the IP version flag, which miniflow_extract() sets but a packet
 * that a flow mark lets skip it would lack: set it here. */
#if !AFXDP_OVS_PACKET_OL_FLAGS
#define afxdp_packet_set_rx_l4_partial(P, TCP, IPV6)            \
    ((void) (IPV6), afxdp_packet_set_l4_partial(P, TCP))
#else
#define afxdp_packet_set_rx_l4_partial(P, TCP, IPV6)            \
    ((IPV6) ? dp_packet_hwol_set_tx_ipv6(P)                     \
            : dp_packet_hwol_set_tx_ipv4(P),                    \
     afxdp_packet_set_l4_partial(P, TCP))
#endif
/* OVS finishes in software the checksums that a netdev does not declare
 * it offloads (3.3+).  Before, OVS drops such a packet instead: a port
 * must then declare the TCP and UDP checksum offloads and finish them
 * itself where it cannot offload them. */
#define AFXDP_OVS_CSUM_FALLBACK AFXDP_OVS_PACKET_SEND_PREPARE

#if AFXDP_OVS_PACKET_SEND_PREPARE
#define afxdp_packet_csum_by_ovs(P) dp_packet_ol_send_prepare(P, 0)
#else
#define afxdp_packet_csum_by_ovs(P) ((void) (P))
#endif

/* Whether a port that declares the TCP and UDP checksum offloads declares
 * the outer UDP checksum of VXLAN and Geneve too
 * (NETDEV_TX_OFFLOAD_OUTER_UDP_CKSUM), which OVS 3.3 to 3.5 otherwise
 * finish in software together with the inner checksum: two sums over a
 * 64 kB packet that the port's trains and segments compute afresh anyway
 * (afxdp-txseg.h), and that afxdp_packet_csum_by_ovs() finishes for the
 * others.  OVS 4.0 computes the outer one from the inner one's partial sum
 * without reading the payload: not declared there. */
#define AFXDP_OVS_OUTER_UDP_CSUM \
    (AFXDP_OVS_PACKET_OL_FLAGS && AFXDP_OVS_PACKET_SEND_PREPARE)

/* The TCP segment size OVS wants a TSO packet cut to, 0 if none or if this
 * OVS has no TSO segment size (before 3.3).  (The caller includes
 * "dp-packet.h".) */
#if AFXDP_OVS_TSO_SEGSZ
#define afxdp_packet_tso_segsz(P) dp_packet_get_tso_segsz(P)
#else
#define afxdp_packet_tso_segsz(P) ((void) (P), 0)
#endif

#endif /* afxdp-compat.h */
