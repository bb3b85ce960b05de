/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Flow lookup in our XDP program: a frame's key to its offloaded flow.
 *
 * The masked lookup over the mask slots, and the flow table's buckets, as
 * bpf/afxdp-flow.h describes them; afxdp-parse.bpf.h makes the key. */
#ifndef AFXDP_LOOKUP_BPF_H
#define AFXDP_LOOKUP_BPF_H 1

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/afxdp-flow.h"
#include "bpf/afxdp-offload-maps.bpf.h"

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

#endif /* afxdp-lookup.bpf.h */
