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

#ifndef AFXDP_STATS_H
#define AFXDP_STATS_H 1

#include <stdbool.h>

/* What an afxdp port reports (lib/afxdp-stats.c): its netdev statistics,
 * custom statistics and status are the netdev_afxdp_get_*() functions of
 * lib/netdev-afxdp.h; this header has the rest. */

/* Registers the netdev-afxdp/show, latency-show, latency-reset and pools
 * appctl commands.  Called once, from the provider's init (main thread). */
void afxdp_stats_register_commands(void);

struct afxdp_port;
/* Adds the counters of 'port''s queues and sockets, and of its XDP
 * program if 'prog', about to be closed, to its 'retired' sums, which its
 * statistics keep adding: a reconfigured port's counters never go back
 * (but for the XDP hints counters and the latency statistics, which start
 * again with the new configuration).  With the port's mutex held. */
void afxdp_stats_retire(struct afxdp_port *, bool prog);

#endif /* afxdp-stats.h */
