/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Ingress policing in the XDP program: every frame the device receives
 * while the port is open passes through afxdp_police_drop() before
 * anything else (offloaded flows, the socket), so the limit holds for
 * what the PMD gets and for what XDP forwards alike.  The meters are
 * described in bpf/afxdp-police.h. */
#ifndef AFXDP_POLICE_BPF_H
#define AFXDP_POLICE_BPF_H 1

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/afxdp-counters.bpf.h"
#include "bpf/afxdp-police.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct afxdp_police);
} afxdp_police SEC(".maps");

/* True if the port's limits drop this frame (counted here). */
static __always_inline bool afxdp_police_drop(struct xdp_md *ctx)
{
	struct afxdp_police *p;
	__u32 zero = 0;
	__u64 now, len;
	bool pass;

	p = bpf_map_lookup_elem(&afxdp_police, &zero);
	if (!p || !p->on)
		return false;

	/* No helper may be called with the lock held. */
	len = bpf_xdp_get_buff_len(ctx);
	now = bpf_ktime_get_ns();
	bpf_spin_lock(&p->lock);
	pass = (!p->bytes.cost ||
		afxdp_police_held(&p->bytes, now) <= p->bytes.burst) &&
	       (!p->packets.cost ||
		afxdp_police_held(&p->packets, now) <= p->packets.burst);
	if (pass) {
		afxdp_police_charge(&p->bytes, now, len);
		afxdp_police_charge(&p->packets, now, 1);
	}
	bpf_spin_unlock(&p->lock);

	if (!pass)
		afxdp_count(AFXDP_PROG_POLICED);
	return !pass;
}

#endif /* afxdp-police.bpf.h */
