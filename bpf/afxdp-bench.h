/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Constants shared by the benchmark's XDP programs (bpf/afxdp-pktgen.bpf.c,
 * bpf/afxdp-sink.bpf.c, bpf/afxdp-redirect.bpf.c) and their loader
 * (utilities/afxdp-bench-xdp.c).  Plain C and <linux/types.h> only. */
#ifndef AFXDP_BENCH_H
#define AFXDP_BENCH_H 1

#include <linux/types.h>

/* UDP destination port of the generated frames (the "discard" service).
 * The sink counts and drops only these; anything else (ARP, the pings of
 * the latency measurement) goes on to the kernel stack. */
#define AFXDP_BENCH_UDP_PORT 9

/* Value of the sink's one-entry per-CPU array 'sink_counts': what this CPU
 * has counted and dropped. */
struct afxdp_sink_count {
    __u64 packets;              /* Benchmark frames. */
    __u64 bytes;                /* Their length, from the Ethernet header. */
};

/* Largest frame the generator builds, without the 4-byte FCS: a 1518-byte
 * Ethernet frame, i.e. a 1500-byte IP packet. */
#define AFXDP_BENCH_MAX_FRAME 1514

#endif /* afxdp-bench.h */
