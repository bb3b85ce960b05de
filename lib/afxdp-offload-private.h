/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

#ifndef AFXDP_OFFLOAD_PRIVATE_H
#define AFXDP_OFFLOAD_PRIVATE_H 1

/* Flow offload: between its core and the OVS API that calls it.
 *
 * OVS reached flow offload through two APIs in turn: up to 3.6 a flow API
 * per netdev (lib/netdev-offload-provider.h), from 3.7 on an offload
 * provider per datapath (lib/dpif-offload-provider.h), which also owns the
 * flow marks.  One small glue file per generation talks to OVS, and only
 * one of them is compiled in, as patches/ovs-probe finds the tree:
 *
 *   lib/afxdp-offload-netdev.c   the flow API "afxdp_xdp" (up to 3.6);
 *   lib/afxdp-offload-dpif.c     the dpif-offload provider "afxdp" (3.7+).
 *
 * Both call the core below (lib/afxdp-offload.c) with only what every OVS
 * version has: a megaflow's match, its datapath actions, its ufid, a flow
 * mark and struct dpif_flow_stats / dpif_flow_attrs.  The core knows no OVS
 * version; the glue supplies the two things it asks OVS for (end of this
 * file).
 *
 * Flows are keyed by ufid within their input port 'netdev', which must be
 * an afxdp port: the calls return ENODEV for any other.  Any thread may
 * call them; each takes the port's offload mutex (afxdp-offload.h). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/types.h"

struct dpif_flow_attrs;
struct dpif_flow_stats;
struct match;
struct netdev;
struct nlattr;

/* The core (lib/afxdp-offload.c). */

/* Offloads the megaflow 'ufid' of input port 'netdev', with 'match' and
 * the datapath actions 'actions' ('actions_len' bytes), into the port's XDP
 * program, or replaces the flow of that ufid (its counts carry over).
 * 'mark' is the flow's mark, nonzero: the program writes it into the hints
 * of the frames of a partially offloaded flow.  Returns 0, or EOPNOTSUPP if
 * the program cannot do the flow, ENOSPC if it has no room for it, ENODEV,
 * or another errno.  On failure, the flow of that ufid offloaded before, if
 * any, may still be in the program: a caller that must not keep its old
 * actions (OVS 3.7+ asks no one to) deletes it. */
int afxdp_offload_flow_put(struct netdev *netdev, const struct match *match,
                           const struct nlattr *actions, size_t actions_len,
                           const ovs_u128 *ufid, uint32_t mark);

/* Removes flow 'ufid' of 'netdev' and stores in '*stats' (if nonnull) the
 * counts of its frames that XDP handled.  Returns 0, ENOENT or ENODEV. */
int afxdp_offload_flow_del(struct netdev *netdev, const ovs_u128 *ufid,
                           struct dpif_flow_stats *stats);

/* Stores in '*stats' the counts of the frames of flow 'ufid' of 'netdev'
 * that XDP handled, and in '*attrs' how it is offloaded: dp_layer "xdp"
 * (full) or "ovs" (partial: the PMD runs its actions and counts its frames
 * itself), or not at all for now ('offloaded' false: its port's program is
 * being replaced, or its egress left OVS), with the counts so far, which
 * never go back.  May move the flow to partial offload if its egress drops
 * redirected frames.  Returns 0, or ENOENT if the core does not know the
 * flow, or ENODEV. */
int afxdp_offload_flow_get(struct netdev *netdev, const ovs_u128 *ufid,
                           struct dpif_flow_stats *stats,
                           struct dpif_flow_attrs *attrs);

/* Removes every flow of 'netdev'.  Returns 0 or ENODEV. */
int afxdp_offload_flow_flush(struct netdev *netdev);

/* Stores in '*n_flows' the number of flows of 'netdev' that the core
 * knows.  Returns 0 or ENODEV. */
int afxdp_offload_flow_get_n_flows(struct netdev *netdev, uint64_t *n_flows);

/* Supplied by the glue of the OVS generation built. */

/* Returns the netdev of datapath port 'port' in the datapath of afxdp port
 * 'in', with a reference the caller releases (netdev_close()), or NULL if
 * OVS knows no such port. */
struct netdev *afxdp_offload_ovs_port(struct netdev *in, odp_port_t port);

#endif /* afxdp-offload-private.h */
