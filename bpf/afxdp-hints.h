/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* XDP hints: what our XDP program (bpf/afxdp.bpf.c) writes in front of a
 * frame it redirects to an AF_XDP socket, when its 'hints_mode' knob is on.
 *
 * The metadata area ends where the frame's data begins.  Whatever layout
 * the program chose, its last 4 bytes (the 4 bytes just before the frame)
 * hold the BTF type id, in the program's own BTF, of the struct that
 * describes the whole area.  A reader takes that id, looks the struct up
 * in the program's BTF, and finds every other member by the offset BTF
 * gives it: lib/xdp-hints.h does that.
 *
 * The structs below are the layouts our program writes.  They are here so
 * that clang puts them in the program's BTF and the program can fill them.
 * Userspace must NOT read metadata through these definitions: it decodes
 * through BTF, so that a program built from another version of this file,
 * or someone else's program, is read correctly or refused, never misread.
 * The constants (modes, flags, hash type bits) are part of the format and
 * are shared.
 *
 * Rules for a layout (lib/xdp-hints.c checks them): a struct named
 * "xdp_hints_*", whose last member is "__u32 btf_id" and ends exactly at the
 * end of the struct (no tail padding), so that the id sits right before
 * the frame.  Its size is a multiple of 4 (bpf_xdp_adjust_meta() wants
 * that); ours are multiples of 8 so that rx_timestamp is 8-aligned when the
 * frame is.
 *
 * Plain C, no kernel or OVS headers beyond <linux/types.h>. */
#ifndef AFXDP_HINTS_H
#define AFXDP_HINTS_H 1

#include <linux/types.h>

/* Values of the program's 'hints_mode' knob. */
enum xdp_hints_mode {
    XDP_HINTS_OFF = 0,          /* No metadata: frames as before. */
    XDP_HINTS_TS = 1,           /* struct xdp_hints_ts. */
    XDP_HINTS_TS_HASH = 2,      /* struct xdp_hints_ts_hash. */
};

/* Bits of the 'flags' member: which members hold a value, and where the
 * timestamp comes from. */
#define XDP_HINTS_F_TIMESTAMP  (1u << 0) /* rx_timestamp is set. */
#define XDP_HINTS_F_TS_DEVICE  (1u << 1) /* ...by the device, in the device's
                                          * clock (usually its PTP hardware
                                          * clock); without this bit it is
                                          * CLOCK_MONOTONIC, taken by the
                                          * program (bpf_ktime_get_ns()). */
#define XDP_HINTS_F_HASH       (1u << 2) /* rx_hash and hash_type are set:
                                          * the device's, or with
                                          * XDP_HINTS_F_HASH_XDP the
                                          * program's. */
#define XDP_HINTS_F_VLAN       (1u << 3) /* vlan_tci and vlan_proto are the
                                          * tag the device stripped. */
#define XDP_HINTS_F_MARK       (1u << 4) /* flow_mark is OVS's flow mark of
                                          * the offloaded flow the frame
                                          * matched (lib/afxdp-offload.c). */
#define XDP_HINTS_F_HASH_XDP   (1u << 5) /* The device gave no hash: the
                                          * program computed rx_hash over
                                          * the IP addresses, protocol and
                                          * ports (addresses only for
                                          * fragments). */

/* Bits of 'hash_type', as the kernel defines them for
 * bpf_xdp_metadata_rx_hash() (its enum xdp_rss_hash_type, a kernel ABI):
 * what the device hashed over. */
#define XDP_HINTS_HASH_L3_IPV4   (1u << 0)
#define XDP_HINTS_HASH_L3_IPV6   (1u << 1)
#define XDP_HINTS_HASH_L3_DYNHDR (1u << 2) /* IPv6 extension headers. */
#define XDP_HINTS_HASH_L4        (1u << 3) /* Ports were hashed too. */
#define XDP_HINTS_HASH_L4_TCP    (1u << 4)
#define XDP_HINTS_HASH_L4_UDP    (1u << 5)
#define XDP_HINTS_HASH_L4_SCTP   (1u << 6)
#define XDP_HINTS_HASH_L4_IPSEC  (1u << 7)
#define XDP_HINTS_HASH_L4_ICMP   (1u << 8)

/* XDP_HINTS_TS: a receive timestamp.  16 bytes. */
struct xdp_hints_ts {
    __u64 rx_timestamp;         /* Nanoseconds; clock given by 'flags'. */
    __u32 flags;                /* XDP_HINTS_F_*. */
    __u32 btf_id;               /* BTF id of this struct.  Must be last. */
};

/* XDP_HINTS_TS_HASH: timestamp, an rx hash (the device's, else the
 * program's), the device's VLAN tag, and the flow mark of a partially
 * offloaded flow.  32 bytes. */
struct xdp_hints_ts_hash {
    __u64 rx_timestamp;         /* Nanoseconds; clock given by 'flags'. */
    __u32 rx_hash;              /* Flow hash (see XDP_HINTS_F_HASH). */
    __u32 hash_type;            /* XDP_HINTS_HASH_* bits. */
    __u16 vlan_tci;             /* VLAN TCI, host byte order. */
    __u16 vlan_proto;           /* VLAN TPID, network byte order. */
    __u32 flags;                /* XDP_HINTS_F_*. */
    __u32 flow_mark;            /* With XDP_HINTS_F_MARK, else 0. */
    __u32 btf_id;               /* BTF id of this struct.  Must be last. */
};

#endif /* afxdp-hints.h */
