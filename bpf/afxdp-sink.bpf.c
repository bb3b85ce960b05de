// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sink of the benchmark (utilities/ovs-afxdp-bench): attached to the far
 * end of the path under test, it counts and drops the generator's frames
 * (IPv4, UDP, destination port AFXDP_BENCH_UDP_PORT) and passes anything
 * else to the kernel stack, so that ARP and ping still work through it.
 *
 * The count is kept per CPU, since the device's NAPI may run on any CPU;
 * userspace (utilities/afxdp-bench-xdp) sums the CPUs' values.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "bpf/afxdp-bench.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct afxdp_sink_count);
} sink_counts SEC(".maps");

SEC("xdp")
int afxdp_sink(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct afxdp_sink_count *count;
	struct udphdr *udp;
	struct iphdr *ip;
	__u32 key = 0;

	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end ||
	    eth->h_proto != bpf_htons(ETH_P_IP) || ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	udp = (void *)ip + ip->ihl * 4;
	if ((void *)(udp + 1) > data_end ||
	    udp->dest != bpf_htons(AFXDP_BENCH_UDP_PORT))
		return XDP_PASS;

	count = bpf_map_lookup_elem(&sink_counts, &key);
	if (count) {
		/* Per-CPU slot: no other CPU writes it. */
		count->packets++;
		count->bytes += data_end - data;
	}
	return XDP_DROP;
}

char _license[] SEC("license") = "Dual BSD/GPL";
