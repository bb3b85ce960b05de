/* SPDX-License-Identifier: Apache-2.0 */

#ifndef AFXDP_COUNTERS_H
#define AFXDP_COUNTERS_H 1

/* The counters an afxdp port keeps per queue and reads from the kernel per
 * socket, declared once: one X-macro list per family.  A list takes the
 * name of a macro and calls it once per counter, in the order custom
 * statistics report them; the users (lib/afxdp-port-private.h for the
 * queue's members, lib/afxdp-stats.c for the sums, the names and struct
 * netdev_stats) pass their own macro.  A counter added is one line here,
 * plus the code that counts.
 *
 * A queue counter is C(HALF, KIND, MEMBER):
 *
 *   HALF    RX or TX: the half of the queue that holds it, the one whose
 *           thread writes it (see lib/afxdp-port-private.h);
 *   KIND    what it adds to in struct netdev_stats, with HALF: DROP
 *           (rx_dropped or tx_dropped), ERROR (rx_errors or tx_errors),
 *           PACKETS, BYTES, or COUNT (nothing);
 *   MEMBER  its atomic_uint64_t member in the queue; custom statistics
 *           name it "afxdp_MEMBER". */

/* Packets and bytes: struct netdev_stats only, no custom statistics. */
#define AFXDP_TRAFFIC_COUNTERS(C)                                            \
    C(RX, PACKETS, rx_packets)          /* Given to OVS. */                  \
    C(RX, BYTES, rx_bytes)              /* Given to OVS. */                  \
    C(TX, PACKETS, tx_packets)          /* Put on the tx ring. */            \
    C(TX, BYTES, tx_bytes)              /* Put on the tx ring. */

/* Drops, errors and what the receive and send paths did: always in the
 * custom statistics. */
#define AFXDP_QUEUE_COUNTERS(C)                                              \
    C(TX, DROP, tx_drop_no_frame)       /* Pool empty. */                    \
    C(TX, DROP, tx_drop_ring_full)      /* Tx ring full. */                  \
    C(TX, DROP, tx_drop_oversize)       /* Larger than a frame and than      \
                                         * the socket or the device          \
                                         * takes (see 'tx_max_len'). */      \
    C(TX, ERROR, tx_kick_errors)        /* sendto() failures. */             \
    C(RX, COUNT, rx_fill_starved)       /* Fill refills cut short by an      \
                                         * empty pool. */                    \
    C(TX, DROP, tx_drop_no_device)      /* Sent while 'dev_gone'. */         \
    C(RX, ERROR, rx_drop_invalid)       /* Descriptors that do not           \
                                         * describe a frame. */              \
    C(RX, COUNT, rx_multi_buffer)       /* Packets received in several       \
                                         * frames, copied into one           \
                                         * dp_packet. */                     \
    C(TX, COUNT, tx_multi_buffer)       /* Packets sent in several           \
                                         * descriptors. */                   \
    C(TX, COUNT, tx_csum_offloaded)     /* Packets sent with a TX            \
                                         * metadata checksum request. */     \
    C(TX, COUNT, tx_csum_software)      /* Checksums OVS left to us that     \
                                         * we finished in software. */       \
    C(TX, COUNT, tx_csum_unparsed)      /* Checksums OVS left to us on       \
                                         * packets we cannot parse: sent     \
                                         * as they are. */                   \
    C(RX, COUNT, rx_csum_partial)       /* Packets received with a           \
                                         * pseudo-header-only checksum,      \
                                         * marked partial or finished        \
                                         * (afxdp-rxcsum.h). */              \
    C(TX, COUNT, tx_segmented)          /* TCP packets too large to send     \
                                         * whole, sent cut into segments     \
                                         * (afxdp-txseg.h). */               \
    C(TX, COUNT, tx_segments)           /* The segments they made, also      \
                                         * in 'tx_packets'. */               \
    C(TX, COUNT, tx_segmented_tunnel)   /* Of 'tx_segmented', those in a     \
                                         * VXLAN or Geneve tunnel.  */       \
    C(TX, DROP, tx_drop_unsegmentable)  /* TCP packets too large to send     \
                                         * whole that could not be cut:      \
                                         * malformed, or no room in the      \
                                         * tx ring or pool for all their     \
                                         * segments. */                      \
    C(TX, COUNT, tx_gso)                /* TCP packets sent whole through    \
                                         * the packet socket                 \
                                         * (afxdp-txgso.h). */               \
    C(TX, COUNT, tx_gso_segments)       /* The segments they make at the     \
                                         * device's MTU, also in             \
                                         * 'tx_packets'. */                  \
    C(TX, COUNT, tx_gso_tunnel)         /* Of 'tx_gso', those in a VXLAN     \
                                         * or Geneve tunnel, sent as trains  \
                                         * (afxdp-txgso.h). */               \
    C(TX, COUNT, tx_gso_trains)         /* The trains they went in. */       \
    C(TX, COUNT, tx_gso_refused)        /* Packets the packet socket did     \
                                         * not take (buffer full, VLAN       \
                                         * tag), cut here instead. */        \
    C(TX, DROP, tx_qos_drops)           /* Over the egress-policer's limit   \
                                         * (afxdp-qos.h). */                 \
    C(RX, COUNT, rx_gro_merged)         /* Packets that received TCP         \
                                         * segments were merged into         \
                                         * (afxdp-rxgro.h). */               \
    C(RX, COUNT, rx_gro_segments)       /* The segments they took, also      \
                                         * in 'rx_packets'. */               \
    C(RX, COUNT, rx_gro_bad_csum)       /* Segments not merged for a         \
                                         * wrong checksum. */                \
    C(RX, COUNT, rx_gro_trains)         /* Trains of tunnelled TCP           \
                                         * segments received whole and       \
                                         * merged (afxdp-rxgro.h). */        \
    C(RX, COUNT, rx_gro_train_segments) /* The segments they held ('rx_      \
                                         * packets' counts a train once). */ \
    C(RX, COUNT, rx_gro_bad_train)      /* Frames over the MTU that looked   \
                                         * like trains but were none, left   \
                                         * as they are. */

/* XDP hints: in the custom statistics while the port decodes hints. */
#define AFXDP_HINTS_COUNTERS(C)                                              \
    C(RX, COUNT, rx_hints)              /* Frames with hints (of those       \
                                         * read). */                         \
    C(RX, COUNT, rx_hints_missing)      /* Frames without. */                \
    C(RX, COUNT, rx_hints_unread)       /* Frames whose hints the PMD        \
                                         * had no use for. */                \
    C(RX, COUNT, rx_hash_from_hints)    /* RSS hash handed to OVS. */        \
    C(RX, COUNT, rx_mark_stale)         /* Marks of flows that left the      \
                                         * XDP program. */

/* Every counter family of a queue. */
#define AFXDP_ALL_QUEUE_COUNTERS(C)                                          \
    AFXDP_TRAFFIC_COUNTERS(C)                                                \
    AFXDP_QUEUE_COUNTERS(C)                                                  \
    AFXDP_HINTS_COUNTERS(C)

/* The kernel's counters of an AF_XDP socket (struct xdp_statistics of
 * <linux/if_xdp.h>, read with XDP_STATISTICS), as C(HALF, KIND, FIELD,
 * NAME): HALF and KIND as above, FIELD its member of struct
 * xdp_statistics; custom statistics name it "rxqN_xsk_NAME" for rx queue
 * N. */
#define AFXDP_XSK_KERNEL_COUNTERS(C)                                         \
    C(RX, DROP, rx_dropped, rx_dropped)                                      \
    C(RX, ERROR, rx_invalid_descs, rx_invalid_descs)                         \
    C(TX, ERROR, tx_invalid_descs, tx_invalid_descs)                         \
    C(RX, DROP, rx_ring_full, rx_ring_full)                                  \
    C(RX, COUNT, rx_fill_ring_empty_descs, rx_fill_ring_empty)               \
    C(TX, COUNT, tx_ring_empty_descs, tx_ring_empty)

/* Plain sums of every queue counter and kernel socket counter, for those
 * of the queues and sockets a port closed (struct afxdp_retired). */
#define AFXDP_COUNTER_MEMBER_RETIRED(HALF, KIND, MEMBER) uint64_t MEMBER;
#define AFXDP_XSK_MEMBER_RETIRED(HALF, KIND, FIELD, NAME) uint64_t FIELD;

/* Expands to an expression that adds VALUE to the member of struct
 * netdev_stats '*ST' that a counter of HALF and KIND adds to; for COUNT,
 * to one that does nothing (VALUE is then not evaluated). */
#define AFXDP_NETDEV_STATS_ADD(ST, HALF, KIND, VALUE)                        \
    AFXDP_NETDEV_STATS_ADD_##HALF##_##KIND(ST, VALUE)
#define AFXDP_NETDEV_STATS_ADD_RX_PACKETS(ST, V) ((ST)->rx_packets += (V))
#define AFXDP_NETDEV_STATS_ADD_TX_PACKETS(ST, V) ((ST)->tx_packets += (V))
#define AFXDP_NETDEV_STATS_ADD_RX_BYTES(ST, V) ((ST)->rx_bytes += (V))
#define AFXDP_NETDEV_STATS_ADD_TX_BYTES(ST, V) ((ST)->tx_bytes += (V))
#define AFXDP_NETDEV_STATS_ADD_RX_DROP(ST, V) ((ST)->rx_dropped += (V))
#define AFXDP_NETDEV_STATS_ADD_TX_DROP(ST, V) ((ST)->tx_dropped += (V))
#define AFXDP_NETDEV_STATS_ADD_RX_ERROR(ST, V) ((ST)->rx_errors += (V))
#define AFXDP_NETDEV_STATS_ADD_TX_ERROR(ST, V) ((ST)->tx_errors += (V))
#define AFXDP_NETDEV_STATS_ADD_RX_COUNT(ST, V) ((void) 0)
#define AFXDP_NETDEV_STATS_ADD_TX_COUNT(ST, V) ((void) 0)

/* For struct members: declares queue counter MEMBER if it belongs to the
 * receive half (AFXDP_COUNTER_MEMBER_RX) or to the send half
 * (AFXDP_COUNTER_MEMBER_TX). */
#define AFXDP_COUNTER_MEMBER_RX(HALF, KIND, MEMBER)                          \
    AFXDP_COUNTER_MEMBER_RX_##HALF(MEMBER)
#define AFXDP_COUNTER_MEMBER_RX_RX(MEMBER) atomic_uint64_t MEMBER;
#define AFXDP_COUNTER_MEMBER_RX_TX(MEMBER)
#define AFXDP_COUNTER_MEMBER_TX(HALF, KIND, MEMBER)                          \
    AFXDP_COUNTER_MEMBER_TX_##HALF(MEMBER)
#define AFXDP_COUNTER_MEMBER_TX_RX(MEMBER)
#define AFXDP_COUNTER_MEMBER_TX_TX(MEMBER) atomic_uint64_t MEMBER;

#endif /* afxdp-counters.h */
