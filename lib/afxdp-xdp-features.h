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

#ifndef AFXDP_XDP_FEATURES_H
#define AFXDP_XDP_FEATURES_H 1

/* What XDP each network device of our namespace can do, as the kernel's
 * "netdev" generic netlink family says, kept up to date.
 *
 * The flow offload asks, before it lets XDP redirect a flow's frames to a
 * device, whether that device takes redirected frames at all (the
 * NETDEV_XDP_ACT_NDO_XMIT feature; _NDO_XMIT_SG for multi-buffer frames).
 * A veth has it only while its peer has an XDP program or GRO on, so the
 * answer changes with the peer's settings, which another namespace (a
 * container) owns.  The kernel announces each change on the family's
 * "mgmt" multicast group (NETDEV_CMD_DEV_CHANGE_NTF); a thread of this
 * module, "afxdp_xdpfeat", listens there, updates its copy of the devices'
 * features and calls the callback set by afxdp_xdp_features_set_notify().
 * Generic netlink is per network namespace: ovs-vswitchd's, which is where
 * its ports' devices are.
 *
 * Kernels before Linux 6.3 have no such family (and the environment
 * variable OVS_AFXDP_XDP_FEATURES=off makes the module act as if there
 * were none, for the tests): then every query answers
 * EOPNOTSUPP and the callers go on as if every device took redirected
 * frames; the first query logs it once.
 *
 * Threads and locks.  afxdp_xdp_features_init() runs in the main thread
 * (OVS's genl family lookups keep an unlocked cache).  The queries may come
 * from any thread; the first one opens the netlink socket and starts the
 * thread.  The copy of the features has a mutex of its own, a leaf: no
 * other lock is taken while it is held, and the callback is called without
 * it. */

#include <stdbool.h>
#include <stdint.h>

struct ofpbuf;

/* Sends the "netdev" family, whose id is 'family_id', a DEV_GET request for
 * 'ifindex' and waits for the answer.  Returns 0 and the reply in '*replyp'
 * (the caller deletes it), or a positive errno. */
int afxdp_netdev_genl_dev_get(int family_id, int ifindex,
                              struct ofpbuf **replyp);

/* Asks the "netdev" family for attribute 'type' (AFXDP_NETDEV_A_DEV_*, a
 * u32 or a u64) of device 'ifindex' and stores it in '*value'.  Returns 0
 * or a positive errno: ENOENT if the kernel does not give it (an older
 * kernel, or a device without it).  Main thread only, like every genl
 * family lookup of OVS's netlink library. */
int afxdp_netdev_genl_dev_attr(int ifindex, uint16_t type, uint64_t *value);

/* Looks up the "netdev" family and its "mgmt" group.  Main thread, once
 * (later calls do nothing), before any other call. */
void afxdp_xdp_features_init(void);

/* Stores in '*features' the NETDEV_XDP_ACT_* bits (AFXDP_NETDEV_XDP_ACT_*
 * in afxdp-compat.h) of the device 'ifindex' of our namespace.  Returns 0,
 * EOPNOTSUPP if the kernel does not say (no "netdev" family), or another
 * positive errno (ENODEV: no such device).  Answers from its copy; a
 * device it does not know yet costs one netlink transaction. */
int afxdp_xdp_features_get(int ifindex, uint64_t *features);

/* True if the kernel says 'features' (of afxdp_xdp_features_get()) take
 * frames that XDP redirects to the device: single-buffer ones, and
 * multi-buffer ones too if 'sg'. */
bool afxdp_xdp_features_take_redirect(uint64_t features, bool sg);

/* Called from the module's thread, with no lock of this module held, when
 * the NDO_XMIT or NDO_XMIT_SG feature of device 'ifindex' changed from
 * 'old' to 'new', full NETDEV_XDP_ACT_* masks. */
typedef void afxdp_xdp_features_cb(int ifindex, uint64_t old, uint64_t new);

/* Sets the one callback (NULL for none). */
void afxdp_xdp_features_set_notify(afxdp_xdp_features_cb *);

#endif /* afxdp-xdp-features.h */
