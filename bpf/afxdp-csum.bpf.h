/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Checksum updates of our XDP program's actions, to the bit as OVS does. */
#ifndef AFXDP_CSUM_BPF_H
#define AFXDP_CSUM_BPF_H 1

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <bpf/bpf_helpers.h>

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

#endif /* afxdp-csum.bpf.h */
