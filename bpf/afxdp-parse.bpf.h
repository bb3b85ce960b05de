/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Parsing in our XDP program: a frame into its flow key (bpf/afxdp-flow.h).
 *
 * The parser gives each field the value OVS's flow_extract() gives it.
 * Where OVS would do something the parser does not (LLC/SNAP, a second
 * VLAN tag, IPv6 extension headers, an IP header OVS finds invalid, an L4
 * header too short for OVS, IGMP, ICMPv6 neighbour discovery and MLD), it
 * gives up and the frame goes to the PMD: a miss is always safe, a wrong
 * key never is.  It may demand more than OVS does (e.g. 8 bytes of ICMP),
 * never less.  The actions and the hints' hash find the L3 and L4 headers
 * with the lighter afxdp_l3() and afxdp_ip_l4().  In a multi-buffer frame
 * the parser reads the headers in the first buffer and checks the IP
 * lengths against the length of all the buffers. */
#ifndef AFXDP_PARSE_BPF_H
#define AFXDP_PARSE_BPF_H 1

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "bpf/afxdp-flow.h"

#define AFXDP_ETH_P_8021Q 0x8100
#define AFXDP_ETH_P_8021AD 0x88a8
#define AFXDP_IP_MF 0x2000
#define AFXDP_IP_OFFSET 0x1fff

struct afxdp_vlan_hdr {
	__be16 tci;
	__be16 proto;
};

/* True if EtherType 'type' is that of a VLAN tag OVS parses (802.1Q or
 * 802.1ad). */
static __always_inline bool afxdp_is_vlan(__be16 type)
{
	return type == bpf_htons(AFXDP_ETH_P_8021Q) ||
	       type == bpf_htons(AFXDP_ETH_P_8021AD);
}

/* The EtherType of the frame of 'ctx' behind at most one VLAN tag, with
 * the start of what follows in '*l3'; or 0 (no EtherType) if the frame is
 * too short for its Ethernet header and tag.  For the actions and the
 * hash, which only look for IP; the parser looks at more. */
static __always_inline __be16 afxdp_l3(struct xdp_md *ctx, void **l3)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct afxdp_vlan_hdr *vh = (void *)(eth + 1);
	__be16 type;

	if ((void *)(eth + 1) > end)
		return 0;
	type = eth->h_proto;
	if (!afxdp_is_vlan(type)) {
		*l3 = eth + 1;
		return type;
	}
	if ((void *)(vh + 1) > end)
		return 0;
	*l3 = vh + 1;
	return vh->proto;
}

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the parser writes the key's words for a little-endian host"
#endif

/* The parser writes the frame's key ('struct afxdp_flow_key') in whole
 * 64-bit words, each with one store, as the lookup reads them: narrower
 * stores under a wider load make the load wait for them (a
 * store-forwarding stall), and every store and load is time on the path
 * of every frame.  The words:
 *   0: eth_dst, eth_src[0..1]          (frame bytes 0..7)
 *   1: eth_src[2..5], eth_type, vlan_tci
 *   2: vlan_tpid, nw_proto, nw_tos, nw_ttl, nw_frag, mask_slot (0), pad
 *   3: tp_src, tp_dst, nw_src[0]
 *   4: nw_src[1..2]   5: nw_src[3], nw_dst[0]
 *   6: nw_dst[1..2]   7: nw_dst[3], ipv6_label */
#define AFXDP_W2_PROTO_SHIFT 16
#define AFXDP_W2_TOS_SHIFT 24
#define AFXDP_W2_TTL_SHIFT 32
#define AFXDP_W2_FRAG_SHIFT 40

/* Writes words 3 to 7 of a key: 'ports' (tp_src | tp_dst << 16) and the
 * IPv4 addresses of 'ip'. */
static __always_inline void afxdp_words_ipv4(__u64 *kw, const struct iphdr *ip,
					     __u32 ports)
{
	kw[3] = ports | (__u64)ip->saddr << 32;
	kw[4] = 0;
	kw[5] = (__u64)ip->daddr << 32;
	kw[6] = 0;
	kw[7] = 0;
}

/* As afxdp_words_ipv4(), with the IPv6 addresses and flow label of
 * 'ip6'. */
static __always_inline void
afxdp_words_ipv6(__u64 *kw, const struct ipv6hdr *ip6, __u32 ports)
{
	const __u32 *sa = ip6->saddr.in6_u.u6_addr32;
	const __u32 *da = ip6->daddr.in6_u.u6_addr32;
	__u32 label = *(const __be32 *)ip6 & bpf_htonl(0xfffff);

	kw[3] = ports | (__u64)sa[0] << 32;
	kw[4] = sa[1] | (__u64)sa[2] << 32;
	kw[5] = sa[3] | (__u64)da[0] << 32;
	kw[6] = da[1] | (__u64)da[2] << 32;
	kw[7] = da[3] | (__u64)label << 32;
}

/* True if 'len' bytes from 'b' are within the L3 payload ('lim') and the
 * frame ('end').  The verifier knows only the frame's end, and 'lim' is
 * never past it. */
static __always_inline bool afxdp_fits(__u8 *b, __u32 len, void *lim, void *end)
{
	return (void *)(b + len) <= lim && (void *)(b + len) <= end;
}

/* True if the L3 packet of 'len' bytes at 'l3' ends past the frame of
 * 'ctx', whose first (or only) buffer ends at 'end'.  Only a frame that
 * seems cut short costs the helper call that finds the length of all its
 * buffers (a multi-buffer frame: a jumbo frame on most drivers, larger
 * than about 3,500 bytes on veth); its headers are in the first one. */
static __always_inline bool afxdp_l3_past_end(struct xdp_md *ctx, void *l3,
					      __u32 len, void *end)
{
	if (l3 + len <= end)
		return false;
	return (__u64)(l3 - (void *)(long)ctx->data) + len >
	       bpf_xdp_get_buff_len(ctx);
}

/* Parses the L4 header at 'l4' (whose L3 payload ends at 'lim', in a frame
 * that ends at 'end') for 'proto', and its TCP flags into '*tcp_flags'.
 * Returns tp_src | tp_dst << 16 (the low half of key word 3; 0 for a
 * protocol without ports), or -1 where OVS would parse otherwise. */
static __always_inline __s64 afxdp_parse_l4(void *l4, void *lim, void *end,
					    __u8 proto, bool v6,
					    __u16 *tcp_flags)
{
	__u8 *b = l4;

	if (proto == IPPROTO_TCP) {
		__u16 ctl;

		if (!afxdp_fits(b, 20, lim, end))
			return -1;
		ctl = ((__u16)b[12] << 8) | b[13];
		/* OVS wants the data offset to cover a whole header. */
		if ((ctl >> 12) < 5 || (void *)(b + (ctl >> 12) * 4) > lim)
			return -1;
		*tcp_flags = ctl & 0x0fff;
		return *(__u32 *)b;
	} else if (proto == IPPROTO_UDP || proto == IPPROTO_SCTP) {
		if (!afxdp_fits(b, proto == IPPROTO_UDP ? 8 : 12, lim, end))
			return -1;
		return *(__u32 *)b;
	} else if ((!v6 && proto == IPPROTO_ICMP) ||
		   (v6 && proto == IPPROTO_ICMPV6)) {
		if (!afxdp_fits(b, 8, lim, end))
			return -1;
		/* ICMPv6 130..143: MLD and neighbour discovery, whose
		 * options OVS parses. */
		if (v6 && b[0] >= 130 && b[0] <= 143)
			return -1;
		return bpf_htons(b[0]) | (__u32)bpf_htons(b[1]) << 16;
	} else if (!v6 && proto == IPPROTO_IGMP) {
		return -1;
	}
	return 0;
}

/* Parses the IPv4 header at 'l3' into words 2 to 7 of 'kw', word 2 having
 * 'w2' so far.  Returns 0 or -1. */
static __always_inline int afxdp_parse_ipv4(struct xdp_md *ctx, void *l3,
					    void *end, __u64 w2, __u64 *kw,
					    __u16 *tcp_flags)
{
	struct iphdr *ip = l3;
	__u32 ihl, tot_len;
	__s64 ports = 0;
	__u16 frag;

	if ((void *)(ip + 1) > end)
		return -1;
	ihl = ip->ihl * 4;
	tot_len = bpf_ntohs(ip->tot_len);
	if (ip->version != 4 || ihl < sizeof *ip || tot_len < ihl ||
	    afxdp_l3_past_end(ctx, l3, tot_len, end))
		return -1;
	w2 |= (__u64)ip->protocol << AFXDP_W2_PROTO_SHIFT |
	      (__u64)ip->tos << AFXDP_W2_TOS_SHIFT |
	      (__u64)ip->ttl << AFXDP_W2_TTL_SHIFT;
	frag = bpf_ntohs(ip->frag_off);
	if (frag & AFXDP_IP_OFFSET) {
		/* No L4 header in later fragments. */
		w2 |= (__u64)(AFXDP_FLOW_FRAG_ANY | AFXDP_FLOW_FRAG_LATER)
		      << AFXDP_W2_FRAG_SHIFT;
	} else {
		if (frag & AFXDP_IP_MF)
			w2 |= (__u64)AFXDP_FLOW_FRAG_ANY << AFXDP_W2_FRAG_SHIFT;
		/* L4 ends where IP says, not at the end of the frame. */
		ports = afxdp_parse_l4(l3 + ihl, l3 + tot_len, end,
				       ip->protocol, false, tcp_flags);
		if (ports < 0)
			return -1;
	}
	kw[2] = w2;
	afxdp_words_ipv4(kw, ip, ports);
	return 0;
}

/* As afxdp_parse_ipv4(), for the IPv6 header at 'l3'. */
static __always_inline int afxdp_parse_ipv6(struct xdp_md *ctx, void *l3,
					    void *end, __u64 w2, __u64 *kw,
					    __u16 *tcp_flags)
{
	struct ipv6hdr *ip6 = l3;
	__s64 ports;
	__u32 plen;
	__u8 nxt;

	if ((void *)(ip6 + 1) > end || ip6->version != 6)
		return -1;
	plen = bpf_ntohs(ip6->payload_len);
	if (afxdp_l3_past_end(ctx, l3, sizeof *ip6 + plen, end))
		return -1;
	nxt = ip6->nexthdr;
	/* Extension headers OVS walks: hop-by-hop, routing, fragment,
	 * AH, destination options. */
	if (nxt == 0 || nxt == 43 || nxt == 44 || nxt == 51 || nxt == 60)
		return -1;
	ports = afxdp_parse_l4(ip6 + 1, (void *)(ip6 + 1) + plen, end, nxt,
			       true, tcp_flags);
	if (ports < 0)
		return -1;
	kw[2] = w2 | (__u64)nxt << AFXDP_W2_PROTO_SHIFT |
		(__u64)((ip6->priority << 4) | (ip6->flow_lbl[0] >> 4))
			<< AFXDP_W2_TOS_SHIFT |
		(__u64)ip6->hop_limit << AFXDP_W2_TTL_SHIFT;
	afxdp_words_ipv6(kw, ip6, ports);
	return 0;
}

/* Parses the frame into its key's words 'kw' (with 'mask_slot' and the
 * padding zero), and its TCP flags into '*tcp_flags' (zeroed by the
 * caller).  Returns 0, or -1 if the frame is not one the program parses
 * exactly as OVS. */
static __always_inline int afxdp_parse(struct xdp_md *ctx, __u64 *kw,
				       __u16 *tcp_flags)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	void *l3 = eth + 1;
	__u64 w1, w2 = 0;
	__be16 proto;

	if (l3 > end)
		return -1;
	/* Whole words (the ISA and the verifier allow unaligned packet
	 * loads), not byte by byte as a memcpy of unknown alignment is. */
	kw[0] = *(__u64 *)data;
	w1 = *(__u32 *)(data + 8);
	proto = eth->h_proto;
	if (afxdp_is_vlan(proto)) {
		struct afxdp_vlan_hdr *vh = l3;

		if ((void *)(vh + 1) > end)
			return -1;
		w2 = proto;
		w1 |= (__u64)(vh->tci | bpf_htons(AFXDP_FLOW_VLAN_PRESENT))
		      << 48;
		proto = vh->proto;
		l3 = vh + 1;
		if (afxdp_is_vlan(proto))
			return -1;
	}
	if (bpf_ntohs(proto) < ETH_P_802_3_MIN)
		return -1;
	kw[1] = w1 | (__u64)proto << 32;
	if (proto == bpf_htons(ETH_P_IP))
		return afxdp_parse_ipv4(ctx, l3, end, w2, kw, tcp_flags);
	if (proto == bpf_htons(ETH_P_IPV6))
		return afxdp_parse_ipv6(ctx, l3, end, w2, kw, tcp_flags);
	kw[2] = w2;
	kw[3] = 0;
	kw[4] = 0;
	kw[5] = 0;
	kw[6] = 0;
	kw[7] = 0;
	return 0;
}

/* The L4 header of the IP frame whose L3 header, of EtherType 'proto', is
 * at 'l3' (in a frame that ends at 'end'): where OVS's flow_extract() puts
 * it, after the IPv4 header's IHL or the IPv6 header (frames with IPv6
 * extension headers are never parsed), and its L3 payload's length (OVS's
 * L4 size) in '*len'.  NULL for a frame that is not IP, or whose lengths
 * the parser would have refused. */
static __always_inline __u8 *afxdp_ip_l4(void *l3, void *end, __be16 proto,
					 __u32 *len)
{
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = l3;
		__u32 ihl, tot_len;

		if ((void *)(ip + 1) > end)
			return NULL;
		ihl = ip->ihl * 4;
		tot_len = bpf_ntohs(ip->tot_len);
		if (ihl < sizeof *ip || tot_len < ihl)
			return NULL;
		*len = tot_len - ihl;
		return (__u8 *)l3 + ihl;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > end)
			return NULL;
		*len = bpf_ntohs(ip6->payload_len);
		return (__u8 *)(ip6 + 1);
	}
	return NULL;
}

#endif /* afxdp-parse.bpf.h */
