/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Action execution in our XDP program: an offloaded flow's actions.
 *
 * Output to another device, a flow mark for the PMD, VLAN push and pop,
 * and the sets of Ethernet addresses, IP fields and L4 ports, each with the
 * checksum updates OVS makes (afxdp-csum.bpf.h). */
#ifndef AFXDP_ACTIONS_BPF_H
#define AFXDP_ACTIONS_BPF_H 1

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "bpf/afxdp-counters.bpf.h"
#include "bpf/afxdp-csum.bpf.h"
#include "bpf/afxdp-flow.h"
#include "bpf/afxdp-offload-maps.bpf.h"
#include "bpf/afxdp-parse.bpf.h"
#include "bpf/afxdp-shared.h"

/* Pushes a VLAN tag with 'tpid' and 'tci' (network order).  Returns 0 or
 * -1. */
static __always_inline int afxdp_push_vlan(struct xdp_md *ctx, __be16 tpid,
					   __be16 tci)
{
	struct afxdp_vlan_hdr *vh;
	__u8 macs[2 * ETH_ALEN];
	struct ethhdr *eth;
	void *data, *end;

	if (bpf_xdp_adjust_head(ctx, -(int)sizeof *vh))
		return -1;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	eth = data;
	vh = (void *)(eth + 1);
	if ((void *)(vh + 1) > end)
		return -1;
	/* The addresses move to the front; the old type stays behind the
	 * new tag, where it belongs. */
	__builtin_memcpy(macs, (__u8 *)eth + sizeof *vh, sizeof macs);
	__builtin_memcpy(eth, macs, sizeof macs);
	eth->h_proto = tpid;
	vh->tci = tci;
	return 0;
}

/* Pops the outer VLAN tag, if there is one.  Returns 0 or -1. */
static __always_inline int afxdp_pop_vlan(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u8 macs[2 * ETH_ALEN];

	if ((void *)eth + sizeof *eth + sizeof(struct afxdp_vlan_hdr) > end)
		return 0;
	if (!afxdp_is_vlan(eth->h_proto))
		return 0;
	__builtin_memcpy(macs, eth, sizeof macs);
	if (bpf_xdp_adjust_head(ctx, (int)sizeof(struct afxdp_vlan_hdr)))
		return -1;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if (data + sizeof macs > end)
		return -1;
	__builtin_memcpy(data, macs, sizeof macs);
	return 0;
}

/* Writes the Ethernet addresses of 'e' under their masks. */
static __always_inline int afxdp_set_eth(struct xdp_md *ctx,
					 const struct afxdp_flow_entry *e)
{
	__u8 *p = (void *)(long)ctx->data;

	if ((void *)(p + 2 * ETH_ALEN) > (void *)(long)ctx->data_end)
		return -1;
#pragma unroll
	for (int i = 0; i < ETH_ALEN; i++) {
		p[i] = (p[i] & ~e->eth_dst_mask[i]) | e->eth_dst[i];
		p[ETH_ALEN + i] =
			(p[ETH_ALEN + i] & ~e->eth_src_mask[i]) | e->eth_src[i];
	}
	return 0;
}

/* Writes the IPv4 address at 'addr' in 'ip' under mask 'm' with 'v', if
 * that changes it, updating the header's checksum and the L4 checksum
 * 'l4c' (see afxdp_l4_csum()), as OVS's odp_set_ipv4() does. */
static __always_inline void afxdp_set_ipv4_addr(struct iphdr *ip, __be32 *addr,
						__be32 v, __be32 m, __u16 *l4c,
						bool udp)
{
	__u32 old = *addr, new = v | (old & ~m);

	if (!m || new == old)
		return;
	if (l4c)
		afxdp_csum_store(l4c, afxdp_csum_replace32(*l4c, old, new),
				 udp);
	ip->check = afxdp_csum_replace32(ip->check, old, new);
	*addr = new;
}

/* As afxdp_set_ipv4_addr(), for the IPv6 address at 'addr' ('m' and 'v'
 * of 4 words), as OVS's packet_set_ipv6() does: the L4 checksum is
 * updated word by word, and only then a UDP 0 made 0xffff. */
static __always_inline void afxdp_set_ipv6_addr(__u32 *addr, const __u32 *v,
						const __u32 *m, __u16 *l4c,
						bool udp)
{
	__u32 new[4], changed = 0;
	__u16 c;

#pragma unroll
	for (int i = 0; i < 4; i++) {
		new[i] = v[i] | (addr[i] & ~m[i]);
		changed |= new[i] ^ addr[i];
	}
	if (!changed)
		return;
	if (l4c) {
		c = *l4c;
#pragma unroll
		for (int i = 0; i < 4; i++)
			c = afxdp_csum_replace32(c, addr[i], new[i]);
		afxdp_csum_store(l4c, c, udp);
	}
#pragma unroll
	for (int i = 0; i < 4; i++)
		addr[i] = new[i];
}

/* Runs the SET_IP action of 'e' on the IPv4 header 'ip', in a frame that
 * ends at 'end', as OVS's odp_set_ipv4() does: the addresses, then the
 * TOS and the TTL, each with its own checksum updates, so that the
 * checksums agree to the bit.  OVS's L4 is where the header says, for a
 * later fragment too.  Returns 0 or -1. */
static __always_inline int afxdp_set_ipv4(struct iphdr *ip, void *end,
					  const struct afxdp_flow_entry *e)
{
	__u8 tos, ttl;

	if ((void *)(ip + 1) > end)
		return -1;
	if (e->ip_addrs) {
		__u32 len = 0;
		__u8 *l4 = afxdp_ip_l4(ip, end, bpf_htons(ETH_P_IP), &len);
		__u16 *l4c;
		bool udp = false;

		/* The parser checked the lengths; a frame that fails them
		 * here has been damaged by no action of ours. */
		if (!l4)
			return -1;
		l4c = afxdp_l4_csum(l4, len, end, ip->protocol, false, &udp);
		afxdp_set_ipv4_addr(ip, &ip->saddr, e->ip_src[0],
				    e->ip_src_mask[0], l4c, udp);
		afxdp_set_ipv4_addr(ip, &ip->daddr, e->ip_dst[0],
				    e->ip_dst_mask[0], l4c, udp);
	}
	tos = e->ip_tos | (ip->tos & ~e->ip_tos_mask);
	if (tos != ip->tos) {
		ip->check = afxdp_csum_replace16(ip->check, bpf_htons(ip->tos),
						 bpf_htons(tos));
		ip->tos = tos;
	}
	ttl = e->ip_ttl | (ip->ttl & ~e->ip_ttl_mask);
	if (ttl != ip->ttl) {
		ip->check = afxdp_csum_replace16(ip->check,
						 bpf_htons((__u16)ip->ttl << 8),
						 bpf_htons((__u16)ttl << 8));
		ip->ttl = ttl;
	}
	return 0;
}

/* As afxdp_set_ipv4(), for the IPv6 header 'ip6', as OVS's
 * packet_set_ipv6() does: the addresses, then the traffic class, flow
 * label and hop limit.  The frame has no extension headers (the parser
 * leaves those to the PMD), so the L4 header follows. */
static __always_inline int afxdp_set_ipv6(struct ipv6hdr *ip6, void *end,
					  const struct afxdp_flow_entry *e)
{
	__u32 first, fl;
	__u8 tc;

	if ((void *)(ip6 + 1) > end)
		return -1;
	if (e->ip_addrs) {
		__u32 len = 0;
		__u8 *l4 = afxdp_ip_l4(ip6, end, bpf_htons(ETH_P_IPV6), &len);
		bool udp = false;
		__u16 *l4c = l4 ? afxdp_l4_csum(l4, len, end, ip6->nexthdr,
						true, &udp)
				: NULL;

		afxdp_set_ipv6_addr(ip6->saddr.in6_u.u6_addr32, e->ip_src,
				    e->ip_src_mask, l4c, udp);
		afxdp_set_ipv6_addr(ip6->daddr.in6_u.u6_addr32, e->ip_dst,
				    e->ip_dst_mask, l4c, udp);
	}
	/* Version, traffic class and flow label. */
	first = bpf_ntohl(*(__be32 *)ip6);
	tc = e->ip_tos | ((__u8)(first >> 20) & ~e->ip_tos_mask);
	fl = bpf_ntohl(e->ip6_label) |
	     (first & ~bpf_ntohl(e->ip6_label_mask) & 0xfffff);
	*(__be32 *)ip6 = bpf_htonl((first & 0xf0000000) | (__u32)tc << 20 | fl);
	ip6->hop_limit = e->ip_ttl | (ip6->hop_limit & ~e->ip_ttl_mask);
	return 0;
}

/* Runs the SET_IP action of 'e'.  The frame has at most one VLAN tag
 * (userspace offloads no SET_IP after a PUSH_VLAN).  Returns 0, or -1 if
 * the frame is not of the IP version of 'e'. */
static __always_inline int afxdp_set_ip(struct xdp_md *ctx,
					const struct afxdp_flow_entry *e)
{
	void *end = (void *)(long)ctx->data_end;
	void *l3 = NULL;
	__be16 proto = afxdp_l3(ctx, &l3);

	if (e->ip_version == 4 && proto == bpf_htons(ETH_P_IP))
		return afxdp_set_ipv4(l3, end, e);
	if (e->ip_version == 6 && proto == bpf_htons(ETH_P_IPV6))
		return afxdp_set_ipv6(l3, end, e);
	return -1;
}

/* Writes the port at 'port' under mask 'm' with 'v', if that changes it,
 * updating the checksum '*csum' (none if NULL), as OVS's
 * packet_set_port() does. */
static __always_inline void afxdp_set_port(__be16 *port, __be16 v, __be16 m,
					   __u16 *csum)
{
	__be16 new = v | (*port & ~m);

	if (new == *port)
		return;
	if (csum)
		*csum = afxdp_csum_replace16(*csum, *port, new);
	*port = new;
}

/* Runs the SET_L4 action of 'e': its TCP or UDP ports, as OVS's
 * odp_set_tcp() and odp_set_udp() do, which do nothing to a frame whose
 * L3 payload is too short for the header (or, for TCP, for the header's
 * data offset), and update a UDP checksum only if there is one.  L4 is
 * where the IP header says (the frame has at most one VLAN tag, and no
 * IPv6 extension headers).  Returns 0. */
static __always_inline int afxdp_set_l4(struct xdp_md *ctx,
					const struct afxdp_flow_entry *e)
{
	void *end = (void *)(long)ctx->data_end;
	void *l3 = NULL;
	__be16 proto = afxdp_l3(ctx, &l3);
	__u32 len = 0;
	__u8 *l4 = afxdp_ip_l4(l3, end, proto, &len);
	__u16 *csum;

	if (!l4)
		return 0;

	if (e->tp_proto == IPPROTO_TCP) {
		__u32 doff;

		if (len < 20 || (void *)(l4 + 20) > end)
			return 0;
		doff = (l4[12] >> 4) * 4;
		if (doff < 20 || doff > len)
			return 0;
		csum = (__u16 *)(l4 + 16);
	} else {
		if (len < 8 || (void *)(l4 + 8) > end)
			return 0;
		csum = (__u16 *)(l4 + 6);
		if (!*csum)
			csum = NULL;
	}
	afxdp_set_port((__be16 *)l4, e->tp_src, e->tp_src_mask, csum);
	afxdp_set_port((__be16 *)(l4 + 2), e->tp_dst, e->tp_dst_mask, csum);
	if (csum && e->tp_proto == IPPROTO_UDP && !*csum)
		*csum = 0xffff;
	return 0;
}

/* The IP and L4 sets as global functions, which the verifier checks
 * once, on their own, rather than once in each of the action slots
 * (inline, they took it from 27,000 to 109,000 instructions).  They
 * return 0, or -1 for a frame they cannot rewrite. */
__noinline int afxdp_act_set_ip(struct xdp_md *ctx,
				const struct afxdp_flow_entry *e)
{
	return e ? afxdp_set_ip(ctx, e) : -1;
}

__noinline int afxdp_act_set_l4(struct xdp_md *ctx,
				const struct afxdp_flow_entry *e)
{
	return e ? afxdp_set_l4(ctx, e) : -1;
}

/* Returns 1 if the frame of 'ctx' is a TCP or UDP packet (not a fragment)
 * whose checksum field holds the folded sum of its pseudo-header and
 * nothing else, as a sender's kernel leaves it for TX checksum offload
 * (CHECKSUM_PARTIAL), else 0.  The same test as the receive path's
 * (lib/afxdp-rxcsum.c).  The sums are of 16-bit words as loaded from the
 * frame, which compare to the field as loaded.  A global function, which
 * the verifier checks once. */
__noinline int afxdp_l4_csum_partial(struct xdp_md *ctx)
{
	void *end = ctx ? (void *)(long)ctx->data_end : NULL;
	void *l3 = NULL;
	__be16 proto = ctx ? afxdp_l3(ctx, &l3) : 0;
	__u32 len = 0, sum;
	__u16 *csum;
	__u8 *l4 = afxdp_ip_l4(l3, end, proto, &len);
	__u8 l4proto;
	bool udp;

	if (!l4)
		return 0;
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = l3;

		if ((void *)(ip + 1) > end ||
		    ip->frag_off & bpf_htons(AFXDP_IP_MF | AFXDP_IP_OFFSET))
			return 0;
		l4proto = ip->protocol;
		sum = (ip->saddr & 0xffff) + (ip->saddr >> 16) +
		      (ip->daddr & 0xffff) + (ip->daddr >> 16);
	} else {
		struct ipv6hdr *ip6 = l3;
		__u32 *a;

		if ((void *)(ip6 + 1) > end)
			return 0;
		l4proto = ip6->nexthdr;
		a = (__u32 *)&ip6->saddr;
		sum = 0;
#pragma unroll
		for (int i = 0; i < 8; i++)
			sum += (a[i] & 0xffff) + (a[i] >> 16);
	}
	if (l4proto != IPPROTO_TCP && l4proto != IPPROTO_UDP)
		return 0;
	csum = afxdp_l4_csum(l4, len, end, l4proto, false, &udp);
	if (!csum)
		return 0;
	sum += bpf_htons(l4proto) + bpf_htons(len);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return *csum == sum;
}

/* Returns true, and counts why, if the frame of 'ctx', whose buffers hold
 * 'len' bytes and which matched flow 'e', goes to the socket instead of
 * out of 'e''s egress: the PMD then runs all of the flow's actions, and
 * counts the frame in the flow's datapath statistics itself.  So the
 * caller counts the frame in 'e''s XDP counters only if this returns
 * false: OVS adds those counters to the PMD's (afxdp_offload_flow_get()),
 * and the egress check takes them for frames redirected. */
static __always_inline bool afxdp_flow_to_pmd(struct xdp_md *ctx,
					      const struct afxdp_flow_entry *e,
					      __u32 len)
{
	if (!e->out_ifindex)
		return false;
	/* Before any action rewrites it: the PMD runs them all. */
	if ((e->out_flags & AFXDP_FLOW_OUT_NO_SG) &&
	    len > ctx->data_end - ctx->data) {
		afxdp_count(AFXDP_PROG_OFFLOAD_NO_SG);
		return true;
	}
	/* A sender with TX checksum offload on (a container's veth, by
	 * default) left the checksum to be finished: redirected as it is,
	 * the receiver would drop it. */
	if (afxdp_l4_csum_partial(ctx)) {
		afxdp_count(AFXDP_PROG_OFFLOAD_CSUM_PARTIAL);
		return true;
	}
	return false;
}

/* Runs the actions of 'e' on the frame of 'ctx'.  Returns the XDP action,
 * or -1 to hand the frame to the socket with '*mark' set. */
static __always_inline long afxdp_flow_act(struct xdp_md *ctx,
					   const struct afxdp_flow_entry *e,
					   __u32 *mark)
{
	long ret;

#pragma unroll
	for (int i = 0; i < AFXDP_FLOW_MAX_ACTIONS; i++) {
		switch (e->acts[i]) {
		case AFXDP_FLOW_ACT_OUTPUT:
			ret = bpf_redirect_map(&afxdp_egress, e->out_ifindex,
					       XDP_DROP);
			afxdp_count(ret == XDP_REDIRECT
					    ? AFXDP_PROG_OFFLOAD_FORWARDED
					    : AFXDP_PROG_OFFLOAD_ACTION_ERROR);
			return ret;
		case AFXDP_FLOW_ACT_MARK:
			*mark = e->mark;
			afxdp_count(AFXDP_PROG_OFFLOAD_MARKED);
			return -1;
		case AFXDP_FLOW_ACT_PUSH_VLAN:
			if (afxdp_push_vlan(ctx, e->vlan_tpid, e->vlan_tci))
				goto error;
			break;
		case AFXDP_FLOW_ACT_POP_VLAN:
			if (afxdp_pop_vlan(ctx))
				goto error;
			break;
		case AFXDP_FLOW_ACT_SET_ETH:
			if (afxdp_set_eth(ctx, e))
				goto error;
			break;
		case AFXDP_FLOW_ACT_SET_IP:
			if (afxdp_act_set_ip(ctx, e))
				goto error;
			break;
		case AFXDP_FLOW_ACT_SET_L4:
			afxdp_act_set_l4(ctx, e);
			break;
		default:
			afxdp_count(AFXDP_PROG_OFFLOAD_DROPPED);
			return XDP_DROP;
		}
	}
	afxdp_count(AFXDP_PROG_OFFLOAD_DROPPED);
	return XDP_DROP;

error:
	afxdp_count(AFXDP_PROG_OFFLOAD_ACTION_ERROR);
	return XDP_DROP;
}

#endif /* afxdp-actions.bpf.h */
