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

#ifndef AFXDP_OFFLOAD_H
#define AFXDP_OFFLOAD_H 1

/* Flow offload into our XDP program: OVS's flow offload for afxdp ports.
 *
 * With other_config:hw-offload=true, the userspace datapath hands each
 * megaflow whose in_port is an afxdp port to this module (put, del, get,
 * flush): through the netdev flow API "afxdp_xdp" up to OVS 3.6, through
 * the dpif-offload provider "afxdp" on 3.7+ (afxdp-offload-private.h).  A
 * megaflow whose match the XDP program can compute exactly
 * (bpf/afxdp-flow.h) goes into that port's program:
 *   - fully, when its actions are ones the program runs (output to another
 *     afxdp port, drop, push/pop VLAN, set Ethernet addresses): the frames
 *     never reach the PMD, and their counts come back through flow_get
 *     (but for those the program leaves to the PMD, which counts them:
 *     jumbo frames to an egress without SG, partial checksums);
 *   - partially otherwise, when the port's XDP hints can carry a flow mark
 *     (xdp-hints=ts-hash): the program classifies, the PMD takes the flow
 *     by its mark and runs the actions.
 * Anything else is refused (EOPNOTSUPP) and stays on the PMD.  A flow
 * that outputs to a device that takes no frames redirected by XDP (its
 * XDP features lack ndo_xmit, afxdp-xdp-features.h) is offloaded
 * partially, and moves into XDP or back as the device gains or loses it.
 *
 * Threads and locks.  Puts, deletes and flushes come from OVS's offload
 * thread(s) (up to 3.6) or our provider's (3.7+), flow counts from the
 * revalidators; afxdp_offload_attach() and _detach() from the port's
 * reconfigure and destruct in the main thread, with the port's netdev
 * mutex held.  Each port's offload state has its own mutex, taken after
 * the netdev mutex; the global list of ports' states has a mutex taken
 * before any port's.
 * No call sleeps with a port's mutex held: a flow_put that needs a mask
 * slot or a flow id that only the end of a grace period frees (see
 * lib/afxdp-flow-table.h) waits for it with the mutex released, so that
 * the revalidators' flow_get never waits behind it.
 *
 * Every refusal is counted (coverage afxdp_offload_refused_match,
 * _action, _space) and logged at DBG with the reason. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct afxdp_offload;
struct afxdp_offload_marks;
struct afxdp_xdp;
struct flow_wildcards;
struct match;
struct smap;
struct afxdp_flow_entry;
struct afxdp_flow_key;
struct netdev;
struct nlattr;

/* Registers the flow API (up to OVS 3.6; OVS 3.7+ lists the provider
 * itself, patches/ovs-4.0).  Called once, from the class init. */
void afxdp_offload_register(void);

/* True if OVS has flow offload on (other_config:hw-offload=true); supplied
 * by the glue of the OVS generation built.  A port's XDP program is loaded
 * with the lookup in offloaded flows only then. */
bool afxdp_offload_ovs_enabled(void);

/* Creates and destroys the offload state of a port named 'name'. */
struct afxdp_offload *afxdp_offload_create(const char *name);
void afxdp_offload_destroy(struct afxdp_offload *);

/* The port's program 'xdp', which has the lookup in offloaded flows
 * (afxdp_xdp_has_offload()), is attached (and its hints can carry a flow
 * mark if 'marks'): installs every flow the port has into it.  Without
 * the lookup, 'o' stays detached and refuses flows. */
void afxdp_offload_attach(struct afxdp_offload *, struct afxdp_xdp *xdp,
                          bool marks);

/* The port's program is about to go: keeps the counts of its flows and
 * forgets its maps.  The flows stay known, to be installed again by the
 * next afxdp_offload_attach(). */
void afxdp_offload_detach(struct afxdp_offload *);
struct afxdp_offload_marks *afxdp_offload_serials(struct afxdp_offload *);

/* The afxdp port on device 'ifindex' is leaving OVS: flows of any port
 * that output to it are removed from the programs (OVS revalidates them
 * later; until then their frames go to the PMD, and their counts stay). */
void afxdp_offload_device_gone(int ifindex);

/* The afxdp port on device 'ifindex' started ('policed') or stopped
 * policing its egress in its send path (afxdp-qos.h), which frames that
 * XDP redirects bypass: every port's flows to it leave XDP for the PMD,
 * or may go back.  Main thread, without our locks. */
void afxdp_offload_egress_policed(int ifindex, bool policed);

/* OVS 3.7+'s dpif-offload glue holds a reference to each port's netdev
 * that it drops only after an RCU grace period; it tells the port's life
 * cycle (lib/netdev-afxdp.c, which registers 'cb' at init) when the
 * datapath deleted the port, through afxdp_offload_port_left(). */
typedef void afxdp_offload_port_left_cb(struct netdev *);
void afxdp_offload_set_port_left_cb(afxdp_offload_port_left_cb *cb);
void afxdp_offload_port_left(struct netdev *);

/* Adds "xdp-offload" to 'smap' when the flow API is enabled, and
 * "xdp-offload-egress" when the port, on device 'ifindex', drops the frames
 * other ports' flows redirect to it (a veth whose peer has no NAPI): as the
 * kernel's XDP features of the device say (afxdp-xdp-features.h), or as
 * our counters found. */
void afxdp_offload_status(struct afxdp_offload *, int ifindex,
                          struct smap *);

/* Translates the megaflow match 'match' into a key and a mask for the XDP
 * program.  Returns NULL on success, or a static string saying what the
 * program cannot match.  Pure (exposed for unit tests). */
const char *afxdp_offload_translate_match(const struct match *match,
                                          struct afxdp_flow_key *key,
                                          struct afxdp_flow_key *mask);

/* Translates the datapath actions 'actions' ('len' bytes) of a flow whose
 * input port is 'netdev' into 'e' (zeroed by the caller).  Returns true if
 * the program can run them all, a full offload; false leaves 'e' to be made
 * a partial offload.  'netdev' may be NULL, and then no output can be
 * offloaded (exposed for unit tests). */
bool afxdp_offload_translate_actions(struct netdev *netdev,
                                     const struct nlattr *actions, size_t len,
                                     struct afxdp_flow_entry *e);

#endif /* afxdp-offload.h */
