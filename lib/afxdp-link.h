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

#ifndef AFXDP_LINK_H
#define AFXDP_LINK_H 1

/* Link changes of the devices of afxdp ports.
 *
 * An rtnetlink notifier, run in the main thread by OVS's notifier loop,
 * sees every link change (and, when the socket's buffer overflowed, that
 * some were lost).  For each afxdp port a change may concern it updates
 * the port's MTU (what its queues send in several descriptors, and cut
 * TCP for) and asks for a reconfiguration only if the device is gone, back,
 * replaced by another of the same name, or given an MTU larger than the
 * port carries: a reconfiguration costs every PMD thread a reload, and a
 * node of containers has hundreds of ports, whose links change all day.
 * After lost events each port checks its own device the same way, with
 * two ioctls, instead of being reconfigured blindly.
 *
 * It may run with a netdev's mutex held (lib/netdev-linux.c reports some
 * changes from inside its own processing), so it takes no netdev mutex: it
 * reads each port's 'link_ifindex', 'link_gone' and 'link_max_mtu'
 * (afxdp-port-private.h) under 'afxdp_ports_mutex'. */

struct afxdp_port;
struct rtnetlink_change;

/* The notifier (for rtnetlink_notifier_create()). */
void afxdp_link_changed(const struct rtnetlink_change *, void *aux);

/* Returns the MTU of device 'name', or 0 if it cannot be read. */
int afxdp_link_mtu(const char *name);

/* From the device's MTU 'mtu' (0: unknown), sets the largest packet the
 * queues of 'port' send in several descriptors (unknown: as large as the
 * sockets take), the MTU their TCP segmentation cuts for, and the pool's
 * rx MTU (afxdp-txseg.h, "The segment size").  Main thread only (open,
 * the notifier), like the replacement of the queues. */
void afxdp_link_set_mtu(struct afxdp_port *, int mtu);

#endif /* afxdp-link.h */
