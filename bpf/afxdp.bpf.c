// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XDP program of the Open vSwitch AF_XDP netdev provider.
 *
 * Every frame received on a device this program is attached to is looked
 * up by its rx queue in 'xsks_map'.  When userspace has bound an AF_XDP
 * socket to that queue, the frame is redirected to the socket; otherwise it
 * continues to the kernel network stack.  Each decision is counted in the
 * per-CPU array 'afxdp_stats', indexed by enum afxdp_prog_counter.
 *
 * Userspace (lib/afxdp-xdp.c) recognises a program of ours left behind by a
 * dead ovs-vswitchd by its name, so the function name below must stay unique
 * and no longer than 15 characters (the kernel keeps only that many).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

#include "bpf/afxdp-shared.h"

/* rx queue id -> AF_XDP socket, filled in by userspace. */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, AFXDP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

/* Per-CPU decision counters, summed by userspace. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AFXDP_PROG_N_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} afxdp_stats SEC(".maps");

/* Run configuration for libxdp's multi-program dispatcher: run late among
 * other programs, and let the next program see frames we pass to the stack.
 * libxdp ignores it when it attaches the program on its own. */
struct {
	__uint(priority, 40);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(afxdp_ovs_redir);

static __always_inline void afxdp_count(__u32 idx)
{
	__u64 *counter = bpf_map_lookup_elem(&afxdp_stats, &idx);

	/* Per-CPU slot: no other CPU writes it, a plain add is enough. */
	if (counter)
		*counter += 1;
}

SEC("xdp")
int afxdp_ovs_redir(struct xdp_md *ctx)
{
	__u32 queue = ctx->rx_queue_index;
	long action;

	if (queue >= AFXDP_MAX_QUEUES) {
		afxdp_count(AFXDP_PROG_QUEUE_RANGE);
		return XDP_PASS;
	}

	/* The helper looks the socket up itself and returns XDP_REDIRECT when
	 * there is one, or the action in the low bits of its flags (here
	 * XDP_PASS) when the queue has none.  Counting on its result, rather
	 * than on a separate lookup, keeps the counters exact should the
	 * socket be removed concurrently.
	 */
	action = bpf_redirect_map(&xsks_map, queue, XDP_PASS);
	if (action == XDP_REDIRECT)
		afxdp_count(AFXDP_PROG_REDIRECTED);
	else
		afxdp_count(AFXDP_PROG_NO_SOCKET);

	return action;
}

char _license[] SEC("license") = "Dual BSD/GPL";
