/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Constants shared by our XDP program (bpf/afxdp.bpf.c) and the userspace
 * provider (lib/afxdp-xdp.c).  Plain C, no kernel or OVS headers. */
#ifndef AFXDP_SHARED_H
#define AFXDP_SHARED_H 1

/* Maximum number of rx queues a port can bind; size of the XSKMAP. */
#define AFXDP_MAX_QUEUES 256

/* Indexes of the per-CPU counters kept by the XDP program in its
 * 'afxdp_stats' map (a BPF_MAP_TYPE_PERCPU_ARRAY of __u64). */
enum afxdp_prog_counter {
    AFXDP_PROG_REDIRECTED,      /* Handed to an AF_XDP socket. */
    AFXDP_PROG_NO_SOCKET,       /* No socket on that queue: XDP_PASS. */
    AFXDP_PROG_QUEUE_RANGE,     /* rx_queue_index >= AFXDP_MAX_QUEUES. */
    AFXDP_PROG_HINTS_FAILED,    /* No room for XDP hints in front of the
                                 * frame: sent on without them. */
    AFXDP_PROG_OFFLOAD_FORWARDED, /* Offloaded flow: redirected to the
                                   * egress device. */
    AFXDP_PROG_OFFLOAD_DROPPED, /* Offloaded flow: dropped. */
    AFXDP_PROG_OFFLOAD_MARKED,  /* Offloaded flow (partial): to the socket
                                 * with its flow mark. */
    AFXDP_PROG_OFFLOAD_MISS,    /* Parsed, no offloaded flow: to the
                                 * socket. */
    AFXDP_PROG_OFFLOAD_UNPARSED, /* Not parsed exactly as OVS would: to the
                                  * socket. */
    AFXDP_PROG_OFFLOAD_ACTION_ERROR, /* An action failed (no room to push
                                      * a tag, egress gone): dropped. */
    AFXDP_PROG_OFFLOAD_NO_SG,   /* Offloaded flow, multi-buffer frame,
                                 * an egress that takes only single-buffer
                                 * redirected frames: to the socket. */
    AFXDP_PROG_OFFLOAD_CSUM_PARTIAL, /* Offloaded flow, a TCP or UDP
                                      * checksum holding only the
                                      * pseudo-header sum: to the socket,
                                      * whose receive path finishes it. */
    AFXDP_PROG_N_COUNTERS
};

#endif /* afxdp-shared.h */
