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
 * With the 'hints_mode' knob on, the program writes XDP hints in front of
 * each frame it redirects (bpf/afxdp-hints.h): a receive timestamp and, in
 * XDP_HINTS_TS_HASH mode, an rx hash (the device's, else its own over the
 * IP addresses, protocol and ports) and the device's VLAN tag, ending with
 * the BTF id of the layout.  Frames passed to the kernel stack are left as they
 * are.
 *
 * The object holds the program twice.  afxdp_ovs_redir is the one loaded
 * normally (through libxdp, native or generic); its timestamps come from
 * the kernel's clock.  afxdp_ovs_dev also asks the driver for its metadata
 * through the RX metadata kfuncs; the kernel refuses to load a program
 * that calls them ("metadata kfuncs require device-bound program") unless
 * it is loaded device-bound (for one device, BPF_F_XDP_DEV_BOUND_ONLY),
 * which only attaches in native mode.  Userspace loads one or the other.
 *
 * Both are frags-aware (SEC("xdp.frags"), BPF_F_XDP_HAS_FRAGS): a frame
 * larger than one buffer (a jumbo frame, a generic-XDP skb with
 * fragments) comes as a multi-buffer xdp_buff.  The program reads and
 * writes only its first buffer, where the headers are: the hints go in
 * front of it, and the AF_XDP socket (bound with XDP_USE_SG) gets the rest
 * as further descriptors.  A veth refuses a program without the flag while
 * its peer's MTU is above what one page holds (about 3500 bytes).  The
 * flow offload parser (bpf/afxdp-parse.bpf.h) reads the headers in the
 * first buffer and checks the IP lengths against all the buffers, so a
 * multi-buffer frame matches offloaded flows as any other; it is
 * redirected whole where the egress takes multi-buffer frames, and handed
 * to the PMD where it does not (AFXDP_FLOW_OUT_NO_SG,
 * bpf/afxdp-actions.bpf.h).
 *
 * Userspace (lib/afxdp-xdp.c) recognises a program of ours left behind by a
 * dead ovs-vswitchd by its name, so the two function names below must stay
 * unique and no longer than 15 characters (the kernel keeps only that many).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <xdp/xdp_helpers.h>

#include "bpf/afxdp-actions.bpf.h"
#include "bpf/afxdp-counters.bpf.h"
#include "bpf/afxdp-flow.h"
#include "bpf/afxdp-hash.bpf.h"
#include "bpf/afxdp-hints.h"
#include "bpf/afxdp-lookup.bpf.h"
#include "bpf/afxdp-offload-maps.bpf.h"
#include "bpf/afxdp-parse.bpf.h"
#include "bpf/afxdp-police.bpf.h"
#include "bpf/afxdp-shared.h"

/* Knob, set by userspace (lib/afxdp-xdp.c) before the program is loaded
 * (the verifier then drops the code it turns off): enum xdp_hints_mode. */
const volatile __u32 hints_mode = XDP_HINTS_OFF;

/* Knob, set the same way: whether the program looks frames up in the
 * offloaded flows.  Off while OVS's flow offload (other_config:hw-offload)
 * is: the verifier then skips the lookup, most of its work (an add of a
 * port takes a third of the time), and userspace shrinks the flow maps to
 * one entry each (a port's kernel memory goes from 2.3 MiB to a few kB). */
const volatile bool offload_on = true;

/* What the device hashed over (kernel ABI: its enum xdp_rss_hash_type).
 * libbpf checks an extern kfunc's prototype against the kernel's, and a
 * pointer to an enum must stay a pointer to an enum; the name and the
 * values do not matter to it (the values are XDP_HINTS_HASH_*). */
enum afxdp_rss_hash_type {
	AFXDP_RSS_NONE = 0,
};

/* RX metadata kfuncs (Linux 6.3; rx_vlan_tag 6.8), called by afxdp_ovs_dev
 * only.  Weak, so that libbpf still loads afxdp_ovs_redir from this object
 * on a kernel that lacks them. */
extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx,
					 __u64 *timestamp) __ksym __weak;
extern int
bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash,
			 enum afxdp_rss_hash_type *rss_type) __ksym __weak;
extern int bpf_xdp_metadata_rx_vlan_tag(const struct xdp_md *ctx,
					__be16 *vlan_proto,
					__u16 *vlan_tci) __ksym __weak;

/* rx queue id -> AF_XDP socket, filled in by userspace. */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, AFXDP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

/* Run configuration for libxdp's multi-program dispatcher: run late among
 * other programs, and let the next program see frames we pass to the stack.
 * libxdp ignores it when it attaches the program on its own. */
struct {
	__uint(priority, 40);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(afxdp_ovs_redir);

/* Offloaded flows: returns the XDP action for a frame an offloaded flow
 * handles, or -1 to go on to the socket, with '*mark' set if a partially
 * offloaded flow matched, and with 'kw' the frame's key and '*keyed' true
 * if it was parsed. */
static __always_inline long afxdp_offload(struct xdp_md *ctx, __u32 *mark,
					  __u64 kw[AFXDP_FLOW_KEY_WORDS],
					  bool *keyed)
{
	const struct afxdp_flow_masks *t;
	struct afxdp_flow_counts *counts;
	struct afxdp_flow_entry *e;
	__u16 tcp_flags = 0;
	__u32 zero = 0, id, len;

	t = bpf_map_lookup_elem(&afxdp_flow_masks, &zero);
	if (!t || !t->n_masks)
		return -1;

	if (afxdp_parse(ctx, kw, &tcp_flags)) {
		afxdp_count(AFXDP_PROG_OFFLOAD_UNPARSED);
		return -1;
	}
	*keyed = true;
	e = afxdp_flow_lookup(t, kw, &id);
	if (!e) {
		afxdp_count(AFXDP_PROG_OFFLOAD_MISS);
		return -1;
	}

	/* The length of all the frame's buffers, as OVS counts a
	 * multi-buffer frame whole. */
	len = bpf_xdp_get_buff_len(ctx);
	if (afxdp_flow_to_pmd(ctx, e, len))
		return -1;
	/* This CPU's counters: plain updates.  Only the frames handled here:
	 * the PMD counts those it gets itself. */
	counts = bpf_map_lookup_elem(&afxdp_flow_stats, &id);
	if (counts) {
		counts->packets++;
		counts->bytes += len;
		counts->tcp_flags |= tcp_flags;
	}
	return afxdp_flow_act(ctx, e, mark);
}

/* Receive timestamp into '*ts', and the XDP_HINTS_F_* bits saying where
 * it came from.  A driver that implements the kfunc but had no timestamp
 * for this frame may still return 0, with a zero timestamp (veth does):
 * zero counts as none. */
static __always_inline __u32 afxdp_hints_timestamp(struct xdp_md *ctx,
						   const bool kfuncs, __u64 *ts)
{
	__u64 dev_ts = 0;

	if (kfuncs && !bpf_xdp_metadata_rx_timestamp(ctx, &dev_ts) && dev_ts) {
		*ts = dev_ts;
		return XDP_HINTS_F_TIMESTAMP | XDP_HINTS_F_TS_DEVICE;
	}
	*ts = bpf_ktime_get_ns();
	return XDP_HINTS_F_TIMESTAMP;
}

/* Grows the frame's metadata area by 'size' bytes, in front of the data,
 * and points '*meta' to its start, checked against the data for the
 * verifier.  Returns -1 when the driver leaves no room
 * (bpf_xdp_adjust_meta() fails: too little headroom, or no metadata
 * support). */
static __always_inline int afxdp_meta_reserve(struct xdp_md *ctx, __u32 size,
					      void **meta)
{
	void *data;

	if (bpf_xdp_adjust_meta(ctx, -(int)size))
		return -1;
	*meta = (void *)(long)ctx->data_meta;
	data = (void *)(long)ctx->data;
	if (*meta + size > data)
		return -1;
	return 0;
}

static __always_inline int afxdp_hints_ts(struct xdp_md *ctx, const bool kfuncs)
{
	struct xdp_hints_ts *h;
	void *meta;
	__u64 ts;
	__u32 flags;

	flags = afxdp_hints_timestamp(ctx, kfuncs, &ts);
	if (afxdp_meta_reserve(ctx, sizeof *h, &meta))
		return -1;
	h = meta;

	h->rx_timestamp = ts;
	h->flags = flags;
	h->btf_id = bpf_core_type_id_local(struct xdp_hints_ts);
	return 0;
}

static __always_inline int afxdp_hints_ts_hash(struct xdp_md *ctx,
					       const bool kfuncs, __u32 mark,
					       __u64 *kw, bool keyed)
{
	enum afxdp_rss_hash_type hash_type = 0;
	struct xdp_hints_ts_hash *h;
	__u16 vlan_tci = 0;
	__be16 vlan_proto = 0;
	__u32 hash = 0;
	void *meta;
	__u64 ts;
	__u32 flags;

	flags = afxdp_hints_timestamp(ctx, kfuncs, &ts);
	if (mark)
		flags |= XDP_HINTS_F_MARK;
	if (kfuncs) {
		if (!bpf_xdp_metadata_rx_hash(ctx, &hash, &hash_type))
			flags |= XDP_HINTS_F_HASH;
		if (!bpf_xdp_metadata_rx_vlan_tag(ctx, &vlan_proto, &vlan_tci))
			flags |= XDP_HINTS_F_VLAN;
	} else if (keyed || !afxdp_hash_key(ctx, kw)) {
		/* No device hash: one of the frame's key, parsed here unless
		 * the offloaded flows did. */
		__u32 type;

		hash = afxdp_key_hash(kw, &type);
		if (type) {
			hash_type = type;
			flags |= XDP_HINTS_F_HASH | XDP_HINTS_F_HASH_XDP;
		}
	}
	if (afxdp_meta_reserve(ctx, sizeof *h, &meta))
		return -1;
	h = meta;

	h->rx_timestamp = ts;
	h->rx_hash = hash;
	h->hash_type = hash_type;
	h->vlan_tci = vlan_tci;
	h->vlan_proto = vlan_proto;
	h->flags = flags;
	h->flow_mark = mark;
	h->btf_id = bpf_core_type_id_local(struct xdp_hints_ts_hash);
	return 0;
}

/* Writes the hints 'hints_mode' asks for in front of the frame, with flow
 * mark 'mark' (0 for none; only XDP_HINTS_TS_HASH carries one) and, where
 * the device gives no hash, a hash of the frame's key 'kw' (the key if
 * 'keyed', else room to parse it into).  When the driver leaves no room
 * for them (bpf_xdp_adjust_meta() fails: too little headroom, or no
 * metadata support), counts it; the frame goes on without hints. */
static __always_inline void afxdp_hints(struct xdp_md *ctx, const bool kfuncs,
					__u32 mark, __u64 *kw, bool keyed)
{
	int ret;

	if (hints_mode == XDP_HINTS_TS)
		ret = afxdp_hints_ts(ctx, kfuncs);
	else if (hints_mode == XDP_HINTS_TS_HASH)
		ret = afxdp_hints_ts_hash(ctx, kfuncs, mark, kw, keyed);
	else
		return;

	if (ret)
		afxdp_count(AFXDP_PROG_HINTS_FAILED);
}

/* What the hints writer takes from the program's body. */
struct afxdp_hints_in {
	__u64 kw[AFXDP_FLOW_KEY_WORDS]; /* The frame's key if 'keyed', else
					 * room to parse it into. */
	__u32 mark;			/* Flow mark, 0 for none. */
	__u32 keyed;
};

/* The hints writer as global functions, which the verifier checks once,
 * on their own, rather than once for each of the ways in which the lookup
 * in the offloaded flows can end (with ts-hash hints that took it to 94 %
 * of its limit of a million instructions).  One for each program: only
 * the device-bound one may call the metadata kfuncs.  They return 0 (a
 * global function returns a scalar). */
__noinline int afxdp_hints_plain(struct xdp_md *ctx, struct afxdp_hints_in *in)
{
	if (in)
		afxdp_hints(ctx, false, in->mark, in->kw, in->keyed);
	return 0;
}

__noinline int afxdp_hints_kfuncs(struct xdp_md *ctx, struct afxdp_hints_in *in)
{
	if (in)
		afxdp_hints(ctx, true, in->mark, in->kw, in->keyed);
	return 0;
}

/* The program's body: 'kfuncs' is a constant, true only in the
 * device-bound afxdp_ovs_dev. */
static __always_inline int afxdp_redirect(struct xdp_md *ctx, const bool kfuncs)
{
	__u32 queue = ctx->rx_queue_index;
	struct afxdp_hints_in in;
	bool keyed = false;
	long action;

	if (afxdp_police_drop(ctx))
		return XDP_DROP;

	in.mark = 0;
	if (offload_on) {
		action = afxdp_offload(ctx, &in.mark, in.kw, &keyed);
		if (action >= 0)
			return action;
	}
	in.keyed = keyed;

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
	if (action == XDP_REDIRECT) {
		/* The redirect happens after we return, with the frame as
		 * we leave it: hints written now go along. */
		if (hints_mode != XDP_HINTS_OFF && kfuncs)
			afxdp_hints_kfuncs(ctx, &in);
		else if (hints_mode != XDP_HINTS_OFF)
			afxdp_hints_plain(ctx, &in);
		afxdp_count(AFXDP_PROG_REDIRECTED);
	} else {
		afxdp_count(AFXDP_PROG_NO_SOCKET);
	}

	return action;
}

SEC("xdp.frags")
int afxdp_ovs_redir(struct xdp_md *ctx)
{
	return afxdp_redirect(ctx, false);
}

/* Loaded only device-bound, in native mode, when hints are on. */
SEC("xdp.frags")
int afxdp_ovs_dev(struct xdp_md *ctx)
{
	return afxdp_redirect(ctx, true);
}

char _license[] SEC("license") = "Dual BSD/GPL";
