/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Flow offload: the contract between our XDP program (bpf/afxdp.bpf.c) and
 * the provider's flow API (lib/afxdp-offload.c).
 *
 * Each port's program has its own flow table.  A frame is parsed into a
 * 'struct afxdp_flow_key' with the same values OVS's flow_extract() gives
 * the same fields; frames the program cannot parse exactly as OVS does
 * (LLC, a second VLAN tag, IPv6 extension headers, bad IP lengths,
 * truncated L4 headers, IGMP, ICMPv6 neighbour discovery...) are not
 * looked up and go to the PMD as usual.
 *
 * Masked lookup, like OVS's megaflow classifier: the table
 * 'afxdp_flow_masks' lists up to AFXDP_FLOW_MAX_MASKS masks in slots, and
 * 'order[0..n_masks)' the slots to try, in order.  For each, the program
 * writes the slot number in the key's 'mask_slot' and looks up the slot's
 * lookup key: the words of the key (64-bit, in memory order) that the
 * slot's 'words' name, each ANDed with the same word of the mask.  The
 * first hit wins (OVS's megaflows do not overlap, so the order only
 * matters for speed: userspace puts the busiest masks first, from the
 * per-CPU hit counts of each slot in 'afxdp_mask_hits').
 *
 * Compact keys: most megaflows match a few words of the 64-byte key
 * (eth_type and the fragment bits; or the Ethernet addresses; or an IPv4
 * 5-tuple), so a slot's lookup keys are only as long as the words its mask
 * does not zero need: 2, 4 or all 8 words ('size', enum
 * afxdp_flow_key_size).  Unused gather positions name a word the mask
 * zeroes.  A slot's mask has 'mask_slot' all ones, so the slot number is
 * always in its lookup keys.  afxdp_flow_slot_set() and
 * afxdp_flow_lookup_key() below are userspace's side of this.
 *
 * The flow table is ours, not a BPF hash map: a BPF hash map's lookup is
 * a chain of kernel function calls (jhash, the bucket walk, memcmp), which
 * cost the benchmark's offloaded forwarding about 40 ns a frame, where the
 * lookup below is inline code over array maps, which the verifier turns
 * into address arithmetic:
 * - each flow has an id, below AFXDP_FLOW_MAX_FLOWS, that indexes its
 *   entry (lookup key and actions) in the array 'afxdp_flows' and its
 *   counters in the per-CPU array 'afxdp_flow_stats';
 * - afxdp_flow_hash() of the lookup key, seeded with the mask table's
 *   'seed', picks one of AFXDP_FLOW_N_BUCKETS buckets in 'afxdp_flow_buckets'
 *   and gives a tag (never 0); each of a bucket's AFXDP_FLOW_BUCKET_WAYS
 *   ways holds a tag and a flow id, tag 0 for an empty way; a bucket is
 *   one cache line;
 * - a lookup hits the way of the bucket whose tag is the key's, if that
 *   way's flow's entry holds the same lookup key.
 * The buckets hold four times as many ways as there can be flows, so a
 * bucket is full (and a flow refused, to stay on the PMD) only for keys
 * chosen to collide, which the random seed makes hard.
 *
 * Update protocol.  The program reads these maps without locks, and a run
 * may be preempted in the middle (on PREEMPT_RT, where NAPI runs in
 * threads, for as long as the scheduler likes), so nothing it may still be
 * reading is ever rewritten in place:
 * - new things go into places that no run can reach (a mask slot out of
 *   'order', a flow id that no bucket names); userspace writes them there,
 *   then makes them reachable with one store of a single word: a byte of
 *   'order', or a bucket's way (tag and id in one 64-bit word);
 * - what leaves the tables (a slot out of 'order', a way emptied) is
 *   rewritten only after a grace period that started once it had left:
 *   the kernel runs every XDP program inside an RCU read-side critical
 *   section (NAPI's bh-disabled section, preemptible but still an RCU
 *   reader on PREEMPT_RT; rcu_read_lock() for generic XDP), and userspace
 *   waits for an RCU grace period through the kernel
 *   (lib/afxdp-flow-table.h, "Grace periods").  So a run that read the old
 *   thing has ended before it changes; time alone proves nothing;
 * - a slot that left 'order' may come back with the same mask without
 *   waiting: its mask did not change;
 * - 'order[0..n_masks)' names slots in use, and every byte past it is
 *   AFXDP_FLOW_ORDER_END, at which the program stops: a run reading
 *   'n_masks' and 'order' while they change (a slot added or removed, the
 *   order ranked) sees each byte old or new, hence slots that are in use or
 *   within their grace period, or the end;
 * - the ways are written through a mapping of 'afxdp_flow_buckets' (a
 *   BPF_F_MMAPABLE array) with 64-bit release stores; the entries, masks
 *   and counters with bpf_map_update_elem(), which copies a value without
 *   any atomicity, hence only where no run looks;
 * - 'seed' does not change while there are flows.
 * Barriers.  Writer: a release store of a way orders the entry and
 * counters written before it (by earlier bpf() calls of the same thread)
 * before the way; a full fence before each update of 'afxdp_flow_masks'
 * orders a slot's mask, written by an earlier update, before the byte of
 * 'order' that names it.  Reader: what it reads through an index depends
 * on the load of that index (the entry's address on the way, the slot's
 * mask and words on the byte of 'order'), which orders them after it on
 * every CPU but Alpha (an address dependency; BPF has a load-acquire only
 * from Linux 6.15, which clang 14 cannot emit, and needs none here).  Each
 * pairs with the writer's barrier just above.
 * A run that reads the tables while they change can only miss, or find a
 * flow that is being added or removed, whole: the frame then goes to the
 * PMD, or through a flow that is in OVS's datapath at that time, which is
 * always correct.  Never a key of one flow with the actions of another.
 *
 * Plain C, no kernel or OVS headers beyond <linux/types.h>. */
#ifndef AFXDP_FLOW_H
#define AFXDP_FLOW_H 1

#include <linux/types.h>

#define AFXDP_FLOW_MAX_MASKS 16     /* Masks (slots) per port. */
#define AFXDP_FLOW_MAX_FLOWS 8192   /* Flows per port (ids). */
#define AFXDP_FLOW_N_BUCKETS 4096   /* Buckets of the flow table. */
#define AFXDP_FLOW_BUCKET_WAYS 8    /* Flows a bucket can name. */
#define AFXDP_FLOW_MAX_ACTIONS 4    /* Actions per flow. */
#define AFXDP_FLOW_MAX_EGRESS 256   /* Devices flows of a port output to. */
#define AFXDP_FLOW_KEY_WORDS 8      /* 64-bit words in a key. */
#define AFXDP_FLOW_ORDER_END 0xff   /* In 'order' past 'n_masks'. */

/* Bits of 'nw_frag', as OVS's FLOW_NW_FRAG_*. */
#define AFXDP_FLOW_FRAG_ANY   (1u << 0)   /* A fragment. */
#define AFXDP_FLOW_FRAG_LATER (1u << 1)   /* Not the first fragment. */

/* OVS's bit in 'vlan_tci' for "a tag is present" (its VLAN_CFI). */
#define AFXDP_FLOW_VLAN_PRESENT 0x1000

/* Fields of a frame, each in network byte order and with OVS's meaning
 * (struct flow in OVS's lib/flow.h).  64 bytes; padding is zero. */
struct afxdp_flow_key {
    __u8 eth_dst[6];
    __u8 eth_src[6];
    __be16 eth_type;            /* After one VLAN tag, as OVS's dl_type. */
    __be16 vlan_tci;            /* TCI | AFXDP_FLOW_VLAN_PRESENT if tagged,
                                 * else 0. */
    __be16 vlan_tpid;           /* Tag's TPID, 0 if untagged. */
    __u8 nw_proto;              /* IPv4 protocol or IPv6 next header. */
    __u8 nw_tos;                /* IPv4 TOS or IPv6 traffic class. */
    __u8 nw_ttl;                /* IPv4 TTL or IPv6 hop limit. */
    __u8 nw_frag;               /* AFXDP_FLOW_FRAG_* bits. */
    __u8 mask_slot;             /* In lookup keys only: the slot of the mask
                                 * the key was masked with (all ones in
                                 * the slot's mask). */
    __u8 pad0;
    __be16 tp_src;              /* L4 source port, or htons(ICMP type). */
    __be16 tp_dst;              /* L4 destination port, or htons(code). */
    __be32 nw_src[4];           /* IPv4 address in [0], or IPv6 address. */
    __be32 nw_dst[4];
    __be32 ipv6_label;          /* IPv6 flow label (its low 20 bits), 0 for
                                 * other frames. */
};

/* Sizes of lookup keys. */
enum afxdp_flow_key_size {
    AFXDP_FLOW_KEY_16,          /* 2 words. */
    AFXDP_FLOW_KEY_32,          /* 4 words. */
    AFXDP_FLOW_KEY_64,          /* The whole key, in order. */
    AFXDP_FLOW_N_KEY_SIZES
};

/* Words in a lookup key of size 'SIZE'. */
#define AFXDP_FLOW_KEY_SIZE_WORDS(SIZE) (2u << (SIZE))

/* How the lookup keys of one mask slot are made. */
struct afxdp_flow_slot {
    __u8 size;                              /* enum afxdp_flow_key_size. */
    __u8 words[AFXDP_FLOW_KEY_WORDS];       /* The key's words that make
                                             * the lookup key, in order. */
    __u8 pad[7];
};

/* The mask table, the one entry of the ARRAY map 'afxdp_flow_masks'. */
struct afxdp_flow_masks {
    __u32 n_masks;                          /* Slots in 'order'. */
    __u8 order[AFXDP_FLOW_MAX_MASKS];       /* Slots to try, in order,
                                             * then AFXDP_FLOW_ORDER_END. */
    __u32 pad;
    __u64 seed;                             /* Of afxdp_flow_hash(). */
    struct afxdp_flow_slot slots[AFXDP_FLOW_MAX_MASKS];
    struct afxdp_flow_key masks[AFXDP_FLOW_MAX_MASKS];
};

/* Actions, in 'acts' of a flow entry, run in order; the last is one of
 * OUTPUT, DROP or MARK. */
enum afxdp_flow_act {
    AFXDP_FLOW_ACT_NONE,        /* End of the list (reads as DROP). */
    AFXDP_FLOW_ACT_OUTPUT,      /* XDP_REDIRECT to 'out_ifindex' through
                                 * the devmap 'afxdp_egress'. */
    AFXDP_FLOW_ACT_DROP,        /* XDP_DROP. */
    AFXDP_FLOW_ACT_MARK,        /* Partial offload: to the AF_XDP socket as
                                 * usual, with 'mark' in the XDP hints. */
    AFXDP_FLOW_ACT_PUSH_VLAN,   /* Push 'vlan_tpid', 'vlan_tci'. */
    AFXDP_FLOW_ACT_POP_VLAN,    /* Pop the outer tag, if any. */
    AFXDP_FLOW_ACT_SET_ETH,     /* Ethernet addresses, masked. */
    AFXDP_FLOW_ACT_SET_IP,      /* IPv4 addresses, TOS and TTL (with the
                                 * header's checksum), or IPv6 addresses,
                                 * traffic class, flow label and hop
                                 * limit, masked; a changed address
                                 * updates the L4 checksum. */
    AFXDP_FLOW_ACT_SET_L4,      /* TCP or UDP ports, masked, with the
                                 * checksum. */
};

/* 'out_flags' of a flow entry. */
#define AFXDP_FLOW_OUT_NO_SG 0x01       /* The egress takes only single-
                                         * buffer redirected frames (no
                                         * NDO_XMIT_SG): multi-buffer ones
                                         * go to the socket. */

/* Value of the array 'afxdp_flows', by flow id: one flow's lookup key and
 * actions, 192 bytes: three cache lines, the first of which holds what a
 * lookup reads for a key of up to 6 words and an output.  The values the
 * set actions write are under their masks, as in OVS's masked sets; each
 * field is in network byte order as in the frame. */
struct afxdp_flow_entry {
    __u8 acts[AFXDP_FLOW_MAX_ACTIONS];  /* enum afxdp_flow_act. */
    __u32 out_ifindex;                  /* ACT_OUTPUT. */
    __u32 mark;                         /* ACT_MARK: OVS's flow mark. */
    __be16 vlan_tpid;                   /* ACT_PUSH_VLAN. */
    __be16 vlan_tci;                    /* ACT_PUSH_VLAN, as on the wire. */
    __u64 key[AFXDP_FLOW_KEY_WORDS];    /* Lookup key, zero past its
                                         * size. */
    __u8 eth_dst[6], eth_dst_mask[6];   /* ACT_SET_ETH. */
    __u8 eth_src[6], eth_src_mask[6];
    __u8 ip_version;                    /* ACT_SET_IP: 4 or 6. */
    __u8 ip_tos, ip_tos_mask;           /* ACT_SET_IP: TOS or traffic
                                         * class. */
    __u8 ip_ttl, ip_ttl_mask;           /* ACT_SET_IP: TTL or hop limit. */
    __u8 ip_addrs;                      /* ACT_SET_IP: 1 if an address
                                         * mask below is not zero. */
    __u8 tp_proto;                      /* ACT_SET_L4: IPPROTO_TCP or
                                         * IPPROTO_UDP. */
    __u8 out_flags;                     /* ACT_OUTPUT: AFXDP_FLOW_OUT_*. */
    __be32 ip6_label, ip6_label_mask;   /* ACT_SET_IP (IPv6): flow label,
                                         * in the low 20 bits. */
    __be16 tp_src, tp_src_mask;         /* ACT_SET_L4. */
    __be16 tp_dst, tp_dst_mask;
    __be32 ip_src[4], ip_src_mask[4];   /* ACT_SET_IP: IPv4 address in
                                         * [0], or IPv6 address. */
    __be32 ip_dst[4], ip_dst_mask[4];
};
_Static_assert(sizeof(struct afxdp_flow_entry) == 192,
               "a flow entry is three cache lines");

/* Value of the per-CPU array 'afxdp_flow_stats', by flow id: the
 * program's counts on one CPU.  No time of last use: reading a clock costs
 * the program more than userspace noticing that 'packets' moved. */
struct afxdp_flow_counts {
    __u64 packets;
    __u64 bytes;                        /* Frame bytes at ingress. */
    __u16 tcp_flags;                    /* OR of the TCP flags seen, host
                                         * byte order. */
    __u16 pad[3];
};

/* Value of the array 'afxdp_flow_buckets': a cache line of ways.  A way
 * is a tag (its low 32 bits; 0: the way is empty) and a flow id (its high
 * 32 bits), in one word that userspace writes with one store and the
 * program reads with one load, so that a run never pairs one flow's tag
 * with another's id. */
struct afxdp_flow_bucket {
    __u64 way[AFXDP_FLOW_BUCKET_WAYS];
};

/* A way with 'tag' and 'id', and its parts. */
static inline __attribute__((always_inline)) __u64
afxdp_flow_way(__u32 tag, __u32 id)
{
    return tag | (__u64) id << 32;
}

static inline __attribute__((always_inline)) __u32
afxdp_flow_way_tag(__u64 way)
{
    return (__u32) way;
}

static inline __attribute__((always_inline)) __u32
afxdp_flow_way_id(__u64 way)
{
    return way >> 32;
}

/* Hash of the lookup key 'w' of 'n' words, with 'seed'.  Its low bits pick
 * the bucket (afxdp_flow_bucket_of()), its high half is the tag
 * (afxdp_flow_tag()).  The program calls it with 'n' a constant. */
static inline __attribute__((always_inline)) __u64
afxdp_flow_hash(__u64 seed, const __u64 *w, unsigned int n)
{
    __u64 h = seed;

    for (unsigned int i = 0; i < n; i++) {
        h = (h ^ w[i]) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 32);
}

static inline __attribute__((always_inline)) __u32
afxdp_flow_bucket_of(__u64 hash)
{
    return hash & (AFXDP_FLOW_N_BUCKETS - 1);
}

static inline __attribute__((always_inline)) __u32
afxdp_flow_tag(__u64 hash)
{
    return (hash >> 32) | 1;
}

#ifndef __bpf__
/* Userspace's side of the compact keys (lib/afxdp-offload.c, the tests). */

/* Writes 'mask' (whose 'mask_slot' is ignored) into slot 'slot' of 't',
 * with the size and the words of its flows' lookup keys. */
static inline void
afxdp_flow_slot_set(struct afxdp_flow_masks *t, unsigned int slot,
                    const struct afxdp_flow_key *mask)
{
    struct afxdp_flow_slot *s = &t->slots[slot];
    unsigned int n = 0, zero = 0, size;
    __u64 mw[AFXDP_FLOW_KEY_WORDS];

    t->masks[slot] = *mask;
    t->masks[slot].mask_slot = 0xff;
    __builtin_memcpy(mw, &t->masks[slot], sizeof mw);
    for (unsigned int w = 0; w < AFXDP_FLOW_KEY_WORDS; w++) {
        if (mw[w]) {
            s->words[n++] = w;
        } else {
            zero = w;
        }
    }
    size = (n <= AFXDP_FLOW_KEY_SIZE_WORDS(AFXDP_FLOW_KEY_16)
            ? AFXDP_FLOW_KEY_16
            : n <= AFXDP_FLOW_KEY_SIZE_WORDS(AFXDP_FLOW_KEY_32)
            ? AFXDP_FLOW_KEY_32
            : AFXDP_FLOW_KEY_64);
    s->size = size;
    for (unsigned int i = 0; i < AFXDP_FLOW_KEY_WORDS; i++) {
        if (size == AFXDP_FLOW_KEY_64) {
            s->words[i] = i;
        } else if (i >= n) {
            s->words[i] = zero;
        }
    }
    __builtin_memset(s->pad, 0, sizeof s->pad);
}

/* Writes into 'out' (AFXDP_FLOW_KEY_WORDS words) the lookup key, in slot
 * 'slot' of 't', of the frame whose fields are 'key' (masked or not).
 * Returns its size (enum afxdp_flow_key_size); the lookup key is the first
 * AFXDP_FLOW_KEY_SIZE_WORDS(size) words of 'out', and the others are
 * zero. */
static inline unsigned int
afxdp_flow_lookup_key(const struct afxdp_flow_masks *t, unsigned int slot,
                      const struct afxdp_flow_key *key, __u64 *out)
{
    const struct afxdp_flow_slot *s = &t->slots[slot];
    __u64 kw[AFXDP_FLOW_KEY_WORDS], mw[AFXDP_FLOW_KEY_WORDS];
    struct afxdp_flow_key k = *key;

    k.mask_slot = slot;
    __builtin_memcpy(kw, &k, sizeof kw);
    __builtin_memcpy(mw, &t->masks[slot], sizeof mw);
    for (unsigned int i = 0; i < AFXDP_FLOW_KEY_WORDS; i++) {
        unsigned int w = s->words[i] % AFXDP_FLOW_KEY_WORDS;

        out[i] = (i < AFXDP_FLOW_KEY_SIZE_WORDS(s->size)
                  ? kw[w] & mw[w] : 0);
    }
    return s->size;
}
#endif /* !__bpf__ */

#endif /* afxdp-flow.h */
