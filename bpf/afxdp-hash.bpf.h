/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The flow hash that our XDP program writes into the XDP hints.
 *
 * For devices that give none: over the same words of the flow key
 * (afxdp-parse.bpf.h) that offloaded flows use, so that a flow's hash does
 * not depend on whether flows are offloaded. */
#ifndef AFXDP_HASH_BPF_H
#define AFXDP_HASH_BPF_H 1

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "bpf/afxdp-flow.h"
#include "bpf/afxdp-hints.h"
#include "bpf/afxdp-parse.bpf.h"

/* Writes into 'kw' the words of the frame's key that afxdp_key_hash()
 * reads, the bits it does not read zero: the EtherType, IP protocol,
 * fragment bits, addresses and ports.  A lighter parse than afxdp_parse(),
 * for frames that no offloaded flow made the program parse, which agrees
 * with it on those fields wherever afxdp_parse() succeeds: a flow's hash
 * does not depend on whether flows are offloaded.  Returns 0, or -1 for a
 * frame that is not IP, or too short for its IP header. */
static __always_inline int afxdp_hash_key(struct xdp_md *ctx,
					  __u64 kw[AFXDP_FLOW_KEY_WORDS])
{
	void *end = (void *)(long)ctx->data_end;
	void *l3 = NULL;
	__be16 type = afxdp_l3(ctx, &l3);
	__u8 frag = 0, proto;
	__u8 *l4;

	if (type == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = l3;
		__u16 off;

		if ((void *)(ip + 1) > end)
			return -1;
		proto = ip->protocol;
		off = bpf_ntohs(ip->frag_off);
		if (off & (AFXDP_IP_MF | AFXDP_IP_OFFSET))
			frag = AFXDP_FLOW_FRAG_ANY;
		afxdp_words_ipv4(kw, ip, 0);
		l4 = l3 + ip->ihl * 4;
	} else if (type == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > end)
			return -1;
		proto = ip6->nexthdr;
		afxdp_words_ipv6(kw, ip6, 0);
		l4 = (void *)(ip6 + 1);
	} else {
		return -1;
	}
	kw[1] = (__u64)type << 32;
	kw[2] = (__u64)proto << 16 | (__u64)frag << 40;
	/* The ports as afxdp_parse_l4() takes them; afxdp_key_hash() reads
	 * none of a fragment's. */
	if (!frag && (void *)(l4 + 4) <= end) {
		bool v6 = type == bpf_htons(ETH_P_IPV6);

		if (proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
		    proto == IPPROTO_SCTP)
			kw[3] |= *(__u32 *)l4;
		else if ((!v6 && proto == IPPROTO_ICMP) ||
			 (v6 && proto == IPPROTO_ICMPV6))
			kw[3] |= bpf_htons(l4[0]) | (__u32)bpf_htons(l4[1])
							    << 16;
	}
	return 0;
}

/* Mixes 'v' into the hash 'h'. */
static __always_inline __u64 afxdp_hash_mix(__u64 h, __u64 v)
{
	h ^= v;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/* A flow hash of the IP frame whose key (afxdp_parse()) is 'kw', for
 * when the device gives none: over the addresses, the protocol and the
 * ports (not the ports of fragments, so that all fragments of a datagram
 * agree, as with devices' RSS).  Stores in '*type' the XDP_HINTS_HASH_*
 * bits of what it hashed, 0 for a frame that is not IP (then there is no
 * hash). */
static __always_inline __u32
afxdp_key_hash(const __u64 kw[AFXDP_FLOW_KEY_WORDS], __u32 *type)
{
	__be16 eth_type = kw[1] >> 32;
	__u8 proto = kw[2] >> 16;
	__u8 frag = kw[2] >> 40;
	__u32 t;
	__u64 h;

	if (eth_type == bpf_htons(ETH_P_IP)) {
		t = XDP_HINTS_HASH_L3_IPV4;
	} else if (eth_type == bpf_htons(ETH_P_IPV6)) {
		t = XDP_HINTS_HASH_L3_IPV6;
	} else {
		*type = 0;
		return 0;
	}
	/* Words 3 (its upper half) to 7 (its lower half) hold the addresses,
	 * zero beyond an IPv4 address.  Not the IPv6 flow label, which a
	 * sender may change within a connection (Linux does, to move a
	 * connection to another path). */
	h = afxdp_hash_mix(0x9e3779b97f4a7c15ULL,
			   (kw[3] & 0xffffffff00000000ULL) | proto);
	h = afxdp_hash_mix(h, kw[4]);
	h = afxdp_hash_mix(h, kw[5]);
	h = afxdp_hash_mix(h, kw[6]);
	h = afxdp_hash_mix(h, kw[7] & 0xffffffffULL);
	if (!frag) {
		if (proto == IPPROTO_TCP)
			t |= XDP_HINTS_HASH_L4 | XDP_HINTS_HASH_L4_TCP;
		else if (proto == IPPROTO_UDP)
			t |= XDP_HINTS_HASH_L4 | XDP_HINTS_HASH_L4_UDP;
		else if (proto == IPPROTO_SCTP)
			t |= XDP_HINTS_HASH_L4 | XDP_HINTS_HASH_L4_SCTP;
		else if (proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6)
			t |= XDP_HINTS_HASH_L4 | XDP_HINTS_HASH_L4_ICMP;
		/* Ports (ICMP type and code), in the lower half of word 3. */
		h = afxdp_hash_mix(h, kw[3] & 0xffffffffULL);
	}
	*type = t;
	return (__u32)h;
}

#endif /* afxdp-hash.bpf.h */
