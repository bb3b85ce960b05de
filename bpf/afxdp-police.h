/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Ingress policing of an afxdp port (the Interface's ingress_policing_*
 * columns), shared by the XDP program (bpf/afxdp-police.bpf.h) and the
 * userspace provider (lib/afxdp-police.c), which fills in the map's one
 * entry.
 *
 * Each limit is a virtual-scheduling meter (GCRA): 'tat' is the time at
 * which the meter would be empty again if nothing more came; a frame
 * costs 'cost' nanoseconds a unit (a byte, or a packet), scaled up by
 * 2^AFXDP_POLICE_SHIFT so that fast rates keep their precision.  A frame
 * passes when what the meter holds before it ('tat' less now, if ahead)
 * is at most 'burst' nanoseconds, and then adds its cost: a frame larger
 * than the burst still passes when the meter is empty (a GSO packet of
 * 64 kB under a burst of 32 kB), and the frames after it wait for the
 * debt to drain, so that over time no more than the rate gets through.
 * Plain C, no kernel or OVS headers beyond linux/bpf.h. */
#ifndef AFXDP_POLICE_H
#define AFXDP_POLICE_H 1

#include <linux/bpf.h>
#include <linux/types.h>

#define AFXDP_POLICE_SHIFT 16

struct afxdp_police_meter {
    __u64 cost;     /* ns a unit costs, << AFXDP_POLICE_SHIFT; 0: no limit. */
    __u64 burst;    /* ns the meter may hold and still pass a frame. */
    __u64 tat;      /* ns (bpf_ktime_get_ns()): when it is empty. */
};

struct afxdp_police {
    struct bpf_spin_lock lock;          /* Guards 'bytes' and 'packets'. */
    __u32 on;                           /* Either limit set. */
    struct afxdp_police_meter bytes;    /* Unit: a byte of the frame. */
    struct afxdp_police_meter packets;  /* Unit: a frame. */
};

/* The meter arithmetic, for the program and for the provider's egress
 * policer (lib/afxdp-qos.c) alike. */

/* The nanoseconds meter 'm' holds at 'now'. */
static inline __attribute__((always_inline)) __u64
afxdp_police_held(const struct afxdp_police_meter *m, __u64 now)
{
	return m->tat > now ? m->tat - now : 0;
}

/* Adds 'units' to meter 'm' at 'now' (if it limits anything). */
static inline __attribute__((always_inline)) void
afxdp_police_charge(struct afxdp_police_meter *m, __u64 now, __u64 units)
{
	if (m->cost)
		m->tat = (m->tat > now ? m->tat : now) +
			 ((units * m->cost) >> AFXDP_POLICE_SHIFT);
}

#endif /* afxdp-police.h */
