// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The in-kernel reference of the benchmark (utilities/ovs-afxdp-bench):
 * a two-port switch in XDP.  Attached to both devices of the path, it
 * sends every frame received on one out of the other with XDP_REDIRECT
 * through a device map keyed by the ingress ifindex, which userspace
 * (utilities/afxdp-bench-xdp) fills with the two directions.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 2);
	__type(key, __u32);   /* Ingress ifindex. */
	__type(value, __u32); /* Egress ifindex. */
} redirect_ports SEC(".maps");

SEC("xdp")
int afxdp_redirect(struct xdp_md *ctx)
{
	/* A device not in the map: let the stack have the frame. */
	return bpf_redirect_map(&redirect_ports, ctx->ingress_ifindex,
				XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
