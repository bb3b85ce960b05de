// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traffic generator of the benchmark (utilities/ovs-afxdp-bench).
 *
 * This program is never attached to a device.  utilities/afxdp-bench-xdp
 * runs it with BPF_PROG_TEST_RUN in live-frames mode: the kernel makes a
 * frame from the template it is given for each repetition, runs this
 * program on it, and transmits the frame out of the ingress device named
 * in the context when the program returns XDP_TX.  On a veth, that puts
 * the frame straight into the peer's receive ring, with no skb and no
 * copy.
 *
 * The program spreads the frames over 'n_flows' flows by rewriting the UDP
 * source port, and counts what it sends in global variables that userspace
 * reads through the skeleton's memory-mapped .bss.  Only the thread that
 * drives the test runs executes it, on one CPU, so plain (non-atomic)
 * updates are enough.
 *
 * With a rate ('ns_per_frame' above 0), it paces the frames itself: it
 * waits, reading the clock in a bpf_loop(), until the frame's time has
 * come, so the frames sent are evenly spaced.  It does not drop the frames
 * that come early instead: every frame dropped goes back to the test run's
 * page pool, and when the pool's cache is full, through the lock that the
 * switch's CPU takes to return each frame it delivered; measured, that
 * lock then took a third of the switch's CPU.  Pacing in userspace with
 * many short test runs does not work: starting and ending a test run in
 * live-frames mode takes tens of milliseconds (about 30 ms measured on
 * Linux 6.18).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* Set by userspace before loading. */
const volatile __u32 n_flows = 1;	/* Source ports used, 1 to 64512. */
const volatile __u32 first_port = 1024; /* The first of them. */
const volatile __u64 ns_per_frame = 0;	/* Pacing; 0: as fast as possible. */

/* Late frames go at once, but no more than this much lateness is made up
 * for, so that a long stall (the CPU taken by something else) is not
 * followed by a long burst. */
#define PKTGEN_MAX_LAG_NS 1000000

/* Most clock reads in one wait for a frame's time (a clock read takes tens
 * of nanoseconds, so this is longer than the time between two frames at
 * any rate the benchmark asks for).  A frame still early after them is
 * dropped. */
#define PKTGEN_MAX_WAIT_READS 65536

__u64 frames_sent; /* Frames handed back with XDP_TX. */
__u64 frames_bad;  /* Frames too short for our headers (aborted). */
__u64 next_ns;	   /* bpf_ktime_get_ns() when the next frame is due. */
__u32 next_flow;   /* Index of the next source port, < n_flows. */

/* bpf_loop() callback: stops the loop once the next frame is due. */
static long pktgen_due(__u64 index, void *now)
{
	*(__u64 *)now = bpf_ktime_get_ns();
	return *(__u64 *)now >= next_ns;
}

SEC("xdp")
int afxdp_pktgen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);

	/* The template has a 20-byte IPv4 header; nothing else comes here. */
	if ((void *)(udp + 1) > data_end) {
		frames_bad++;
		return XDP_ABORTED;
	}

	if (ns_per_frame) {
		__u64 now = bpf_ktime_get_ns();

		if (now < next_ns) {
			bpf_loop(PKTGEN_MAX_WAIT_READS, pktgen_due, &now, 0);
			if (now < next_ns)
				return XDP_DROP;
		}
		if (now - next_ns > PKTGEN_MAX_LAG_NS)
			next_ns = now;
		next_ns += ns_per_frame;
	}

	/* Frames keep what an earlier run wrote into their page, so with
	 * several flows the port is written every time.  The UDP checksum of
	 * the template is 0 (none), so it needs no update. */
	if (n_flows > 1) {
		udp->source = bpf_htons(first_port + next_flow);
		if (++next_flow >= n_flows)
			next_flow = 0;
	}
	frames_sent++;
	return XDP_TX;
}

char _license[] SEC("license") = "Dual BSD/GPL";
