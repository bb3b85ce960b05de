/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Constants shared by our XDP program (bpf/afxdp.bpf.c) and the userspace
 * provider (lib/afxdp-xdp.c).  Plain C, no kernel or OVS headers. */
#ifndef AFXDP_SHARED_H
#define AFXDP_SHARED_H 1

/* Maximum number of rx queues a port can bind; size of the XSKMAP. */
#define AFXDP_MAX_QUEUES 256

/* The per-CPU counters kept by the XDP program in its 'afxdp_stats' map (a
 * BPF_MAP_TYPE_PERCPU_ARRAY of __u64), declared once as C(ID, NAME): the
 * counter's index is AFXDP_PROG_ID (enum afxdp_prog_counter), the custom
 * statistic that reports it is NAME (lib/afxdp-xdp.c), in this order.  A
 * counter added is one line here, plus the code that counts. */
#define AFXDP_PROG_COUNTERS(C)                                               \
    /* Handed to an AF_XDP socket. */                                        \
    C(REDIRECTED, xdp_redirected)                                            \
    /* No socket on that queue: XDP_PASS. */                                 \
    C(NO_SOCKET, xdp_no_socket)                                              \
    /* rx_queue_index >= AFXDP_MAX_QUEUES. */                                \
    C(QUEUE_RANGE, xdp_queue_out_of_range)                                   \
    /* No room for XDP hints in front of the frame: sent on without          \
     * them. */                                                              \
    C(HINTS_FAILED, xdp_hints_failed)                                        \
    /* Offloaded flow: redirected to the egress device. */                   \
    C(OFFLOAD_FORWARDED, xdp_offload_forwarded)                              \
    /* Offloaded flow: dropped. */                                           \
    C(OFFLOAD_DROPPED, xdp_offload_dropped)                                  \
    /* Offloaded flow (partial): to the socket with its flow mark. */        \
    C(OFFLOAD_MARKED, xdp_offload_marked)                                    \
    /* Parsed, no offloaded flow: to the socket. */                          \
    C(OFFLOAD_MISS, xdp_offload_miss)                                        \
    /* Not parsed exactly as OVS would: to the socket. */                    \
    C(OFFLOAD_UNPARSED, xdp_offload_unparsed)                                \
    /* An action failed (no room to push a tag, egress gone):                \
     * dropped. */                                                           \
    C(OFFLOAD_ACTION_ERROR, xdp_offload_action_error)                        \
    /* Offloaded flow, multi-buffer frame, an egress that takes only         \
     * single-buffer redirected frames: to the socket. */                    \
    C(OFFLOAD_NO_SG, xdp_offload_egress_no_sg)                               \
    /* Offloaded flow, a TCP or UDP checksum holding only the                \
     * pseudo-header sum: to the socket, whose receive path finishes it. */  \
    C(OFFLOAD_CSUM_PARTIAL, xdp_offload_csum_partial)                       \
    /* Over the port's ingress policing limit: dropped. */                   \
    C(POLICED, xdp_policed)

/* The counters' indexes in 'afxdp_stats'. */
#define AFXDP_PROG_COUNTER_ENUM(ID, NAME) AFXDP_PROG_##ID,
enum afxdp_prog_counter {
    AFXDP_PROG_COUNTERS(AFXDP_PROG_COUNTER_ENUM)
    AFXDP_PROG_N_COUNTERS
};

#endif /* afxdp-shared.h */
