/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Our XDP program's counters: the per-CPU map afxdp_stats and afxdp_count().
 *
 * The counters are enum afxdp_prog_counter (bpf/afxdp-shared.h); userspace
 * (lib/afxdp-xdp.c) sums them over the CPUs. */
#ifndef AFXDP_COUNTERS_BPF_H
#define AFXDP_COUNTERS_BPF_H 1

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/afxdp-shared.h"

/* Per-CPU decision counters, summed by userspace. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AFXDP_PROG_N_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} afxdp_stats SEC(".maps");

static __always_inline void afxdp_count(__u32 idx)
{
	__u64 *counter = bpf_map_lookup_elem(&afxdp_stats, &idx);

	/* Per-CPU slot: no other CPU writes it, a plain add is enough. */
	if (counter)
		*counter += 1;
}

#endif /* afxdp-counters.bpf.h */
