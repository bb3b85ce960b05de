/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The maps of flow offload in our XDP program, which userspace fills.
 *
 * Their layout and the protocol by which lib/afxdp-offload.c updates them
 * are bpf/afxdp-flow.h. */
#ifndef AFXDP_OFFLOAD_MAPS_BPF_H
#define AFXDP_OFFLOAD_MAPS_BPF_H 1

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/afxdp-flow.h"

/* Flow offload (bpf/afxdp-flow.h): the mask table, the flows, and the
 * devices flows output to.  All empty until userspace offloads a flow. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct afxdp_flow_masks);
} afxdp_flow_masks SEC(".maps");

/* The flow table (bpf/afxdp-flow.h): the flows by id, their counters by
 * id, and the buckets that map lookup keys to ids.  Userspace maps the
 * buckets into its memory, to write each way with one store. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, AFXDP_FLOW_MAX_FLOWS);
	__type(key, __u32);
	__type(value, struct afxdp_flow_entry);
} afxdp_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AFXDP_FLOW_MAX_FLOWS);
	__type(key, __u32);
	__type(value, struct afxdp_flow_counts);
} afxdp_flow_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, AFXDP_FLOW_N_BUCKETS);
	__type(key, __u32);
	__type(value, struct afxdp_flow_bucket);
} afxdp_flow_buckets SEC(".maps");

/* Hits per mask slot, per CPU: userspace ranks the masks by them. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AFXDP_FLOW_MAX_MASKS);
	__type(key, __u32);
	__type(value, __u64);
} afxdp_mask_hits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, AFXDP_FLOW_MAX_EGRESS);
	__type(key, __u32);
	__type(value, __u32);
} afxdp_egress SEC(".maps");

#endif /* afxdp-offload-maps.bpf.h */
