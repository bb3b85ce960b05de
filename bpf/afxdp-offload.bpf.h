/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Flow offload in our XDP program: parse, masked lookup, actions; and the
 * flow hash of the XDP hints, over the same key.  Included by
 * bpf/afxdp.bpf.c after its maps and afxdp_count(); the contract with
 * userspace is bpf/afxdp-flow.h.
 *
 * The parser gives each field the value OVS's flow_extract() gives it.
 * Where OVS would do something the parser does not (LLC/SNAP, a second
 * VLAN tag, IPv6 extension headers, an IP header OVS finds invalid, an L4
 * header too short for OVS, IGMP, ICMPv6 neighbour discovery and MLD), it
 * gives up and the frame goes to the PMD: a miss is always safe, a wrong
 * key never is.  It may demand more than OVS does (e.g. 8 bytes of ICMP),
 * never less.
 */
#ifndef AFXDP_OFFLOAD_BPF_H
#define AFXDP_OFFLOAD_BPF_H 1

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
static __always_inline int afxdp_parse_ipv4(void *l3, void *end, __u64 w2,
					    __u64 *kw, __u16 *tcp_flags)
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
	    l3 + tot_len > end)
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
static __always_inline int afxdp_parse_ipv6(void *l3, void *end, __u64 w2,
					    __u64 *kw, __u16 *tcp_flags)
{
	struct ipv6hdr *ip6 = l3;
	__s64 ports;
	__u32 plen;
	__u8 nxt;

	if ((void *)(ip6 + 1) > end || ip6->version != 6)
		return -1;
	plen = bpf_ntohs(ip6->payload_len);
	if ((void *)(ip6 + 1) + plen > end)
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
		return afxdp_parse_ipv4(l3, end, w2, kw, tcp_flags);
	if (proto == bpf_htons(ETH_P_IPV6))
		return afxdp_parse_ipv6(l3, end, w2, kw, tcp_flags);
	kw[2] = w2;
	kw[3] = 0;
	kw[4] = 0;
	kw[5] = 0;
	kw[6] = 0;
	kw[7] = 0;
	return 0;
}

/* Word 2 of the key holds 'mask_slot', in its byte 6. */
#define AFXDP_SLOT_WORD 2
#define AFXDP_SLOT_SHIFT 48

/* Finds the flow whose lookup key is the 'n' words of 'c' (a constant),
 * hashed with 'seed': its entry, and its id in '*id'; or NULL.  Userspace
 * never puts two flows with one tag in a bucket, so at most one way has
 * the key's tag, and the scan stops there.  Each way is read with one
 * load, tag and id together, and the entry through the id it gave: see
 * "Update protocol" in afxdp-flow.h.  The paths that the verifier
 * walks for each way join again at the entry's lookup (the id is any
 * number on all of them), and the key is compared without branches.
 * (Indexing the entries directly in one big map value, rather than with a
 * map lookup, would save a trip through the stack, but the verifier would
 * then track the index precisely back through the hash into the parse,
 * and stop pruning the parse's paths: over its limit of a million
 * instructions.) */
static __always_inline struct afxdp_flow_entry *
afxdp_flow_find(__u64 seed, const __u64 *c, const unsigned int n, __u32 *id)
{
	__u64 h = afxdp_flow_hash(seed, c, n);
	__u32 b = afxdp_flow_bucket_of(h);
	__u32 tag = afxdp_flow_tag(h);
	const struct afxdp_flow_bucket *bk;
	__u32 i = AFXDP_FLOW_MAX_FLOWS; /* No way found: no entry. */
	struct afxdp_flow_entry *e;
	__u64 diff = 0;

	bk = bpf_map_lookup_elem(&afxdp_flow_buckets, &b);
	if (!bk)
		return NULL;
#pragma unroll
	for (int j = 0; j < AFXDP_FLOW_BUCKET_WAYS; j++) {
		/* One load (the verifier takes it as a scalar): pairs with
		 * the release store of the way in
		 * afxdp_flow_table_publish(); the entry's address depends on
		 * it. */
		__u64 way = *(volatile const __u64 *)&bk->way[j];

		if (afxdp_flow_way_tag(way) == tag) {
			i = afxdp_flow_way_id(way);
			break;
		}
	}
	e = bpf_map_lookup_elem(&afxdp_flows, &i);
	if (!e)
		return NULL;
#pragma clang loop unroll(full)
	for (unsigned int w = 0; w < n; w++)
		diff |= e->key[w] ^ c[w];
	if (diff)
		return NULL;
	*id = i;
	return e;
}

/* Lookup key 'j' of a slot: the key's word that the slot names, masked,
 * with the slot number ('SB', in place) where that word is word 2. */
#define AFXDP_GATHER(OUT, J, S, KW, MW, SB)                                    \
	do {                                                                   \
		__u32 w_ = (S)->words[J] & (AFXDP_FLOW_KEY_WORDS - 1);         \
                                                                               \
		(OUT)[J] = ((KW)[w_] & (MW)[w_]) |                             \
			   (w_ == AFXDP_SLOT_WORD ? (SB) : 0);                 \
	} while (0)

/* Finds the offloaded flow of the frame whose key is 'kw': its entry, and
 * its id in '*id'; or NULL. */
static __always_inline struct afxdp_flow_entry *
afxdp_flow_lookup(const struct afxdp_flow_masks *t, const __u64 *kw, __u32 *id)
{
	__u32 n = t->n_masks;
	__u64 seed = t->seed;

	for (__u32 i = 0; i < AFXDP_FLOW_MAX_MASKS && i < n; i++) {
		/* One byte, old or new while userspace rewrites the table:
		 * a slot in use, one within its grace period, or the end
		 * ("Update protocol" in afxdp-flow.h).  The slot's mask and
		 * words are read at addresses that depend on it: pairs with
		 * the fence in afxdp_offload_write_table(). */
		__u32 slot = *(volatile const __u8 *)&t->order[i];
		const struct afxdp_flow_slot *s;
		__u64 c[AFXDP_FLOW_KEY_WORDS];
		struct afxdp_flow_entry *e;
		const __u64 *mw;
		__u64 sb;

		if (slot >= AFXDP_FLOW_MAX_MASKS)
			break;
		s = &t->slots[slot];
		mw = (const __u64 *)&t->masks[slot];
		sb = (__u64)slot << AFXDP_SLOT_SHIFT;

		if (s->size == AFXDP_FLOW_KEY_16) {
			AFXDP_GATHER(c, 0, s, kw, mw, sb);
			AFXDP_GATHER(c, 1, s, kw, mw, sb);
			e = afxdp_flow_find(seed, c, 2, id);
		} else if (s->size == AFXDP_FLOW_KEY_32) {
			AFXDP_GATHER(c, 0, s, kw, mw, sb);
			AFXDP_GATHER(c, 1, s, kw, mw, sb);
			AFXDP_GATHER(c, 2, s, kw, mw, sb);
			AFXDP_GATHER(c, 3, s, kw, mw, sb);
			e = afxdp_flow_find(seed, c, 4, id);
		} else {
#pragma unroll
			for (int w = 0; w < AFXDP_FLOW_KEY_WORDS; w++)
				c[w] = kw[w] & mw[w];
			c[AFXDP_SLOT_WORD] |= sb;
			e = afxdp_flow_find(seed, c, AFXDP_FLOW_KEY_WORDS, id);
		}
		if (e) {
			__u64 *hits;

			/* Hits only rank masks: none to rank with one. */
			if (n == 1)
				return e;
			hits = bpf_map_lookup_elem(&afxdp_mask_hits, &slot);
			if (hits)
				*hits += 1;
			return e;
		}
	}
	return NULL;
}

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

/* 'csum' (an Internet checksum, as in the frame) after a 16-bit word of
 * what it covers changed from 'old' to 'new' (as in the frame): RFC 1624,
 * equation 3, the same arithmetic as OVS's recalc_csum16(). */
static __always_inline __u16 afxdp_csum_replace16(__u16 csum, __u16 old,
						  __u16 new)
{
	__u32 sum = (__u16)~csum + (__u16)~old + (__u32) new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* 'csum' after the 32-bit word 'old' it covers became 'new' (both as
 * loaded from the frame): two 16-bit updates in the order of OVS's
 * recalc_csum32(), which the results agree with to the bit. */
static __always_inline __u16 afxdp_csum_replace32(__u16 csum, __u32 old,
						  __u32 new)
{
	return afxdp_csum_replace16(afxdp_csum_replace16(csum, old, new),
				    old >> 16, new >> 16);
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

/* The L4 checksum that OVS updates when an address of an IP frame
 * changes (packet_set_ipv4_addr(), packet_update_csum128()): that of a
 * TCP or UDP header and, for IPv6 ('v6'), of an ICMPv6 header, if the L3
 * payload ('len' bytes at 'l4', in a frame that ends at 'end') is long
 * enough for that header.  NULL for none, and for a UDP checksum of 0
 * (none sent); '*udp' says it is UDP's. */
static __always_inline __u16 *afxdp_l4_csum(__u8 *l4, __u32 len, void *end,
					    __u8 proto, bool v6, bool *udp)
{
	__u16 *csum;

	*udp = proto == IPPROTO_UDP;
	if (proto == IPPROTO_TCP && len >= 20)
		csum = (__u16 *)(l4 + 16);
	else if (proto == IPPROTO_UDP && len >= 8)
		csum = (__u16 *)(l4 + 6);
	else if (v6 && proto == IPPROTO_ICMPV6 && len >= 4)
		csum = (__u16 *)(l4 + 2);
	else
		return NULL;
	if ((void *)(csum + 1) > end || (*udp && !*csum))
		return NULL;
	return csum;
}

/* Writes a checksum that an incremental update made: UDP sends a
 * computed 0 as 0xffff, as 0 means "no checksum". */
static __always_inline void afxdp_csum_store(__u16 *csum, __u16 v, bool udp)
{
	*csum = udp && !v ? 0xffff : v;
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

/* Runs the actions of 'e'.  Returns the XDP action, or -1 to hand the
 * frame to the socket with '*mark' set. */
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
	__u32 zero = 0, id;

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

	/* This CPU's counters: plain updates. */
	counts = bpf_map_lookup_elem(&afxdp_flow_stats, &id);
	if (counts) {
		counts->packets++;
		counts->bytes += ctx->data_end - ctx->data;
		counts->tcp_flags |= tcp_flags;
	}
	return afxdp_flow_act(ctx, e, mark);
}

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

#endif /* afxdp-offload.bpf.h */
