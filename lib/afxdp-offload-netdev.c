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

/* Flow offload glue for OVS up to 3.6: the netdev flow API "afxdp_xdp".
 *
 * OVS's userspace datapath hands each megaflow to the flow API of its input
 * port from its offload thread, with a flow mark that OVS allocated and maps
 * back to the flow itself.  This file only adapts those calls to the core
 * (afxdp-offload-private.h).  It is empty on OVS 3.7+, whose
 * lib/afxdp-offload-dpif.c does the same through dpif-offload. */

#include <config.h>

#include "afxdp-ovs-probes.h"

#if AFXDP_OVS_NETDEV_FLOW_API

#include "afxdp-offload.h"

#include <errno.h>
#include <string.h>

#include "afxdp-offload-private.h"
#include "afxdp-port-private.h"
#include "dpif.h"
#include "netdev-offload-provider.h"
#include "netdev-provider.h"

/* Name of our flow API, as OVS logs it ("Assigned flow API ..."). */
#define AFXDP_OFFLOAD_API "afxdp_xdp"

static int
afxdp_offload_netdev_flow_put(struct netdev *netdev, struct match *match,
                              struct nlattr *actions, size_t actions_len,
                              const ovs_u128 *ufid, struct offload_info *info,
                              struct dpif_flow_stats *stats)
{
    int error = afxdp_offload_flow_put(netdev, match, actions, actions_len,
                                       ufid, info->flow_mark);

    if (!error && stats) {
        memset(stats, 0, sizeof *stats);
    }
    return error;
}

static int
afxdp_offload_netdev_flow_get(struct netdev *netdev,
                              struct match *match OVS_UNUSED,
                              struct nlattr **actions OVS_UNUSED,
                              const ovs_u128 *ufid,
                              struct dpif_flow_stats *stats,
                              struct dpif_flow_attrs *attrs,
                              struct ofpbuf *buf OVS_UNUSED)
{
    return afxdp_offload_flow_get(netdev, ufid, stats, attrs);
}

static int
afxdp_offload_netdev_init(struct netdev *netdev)
{
    if (!afxdp_port_lookup(netdev)) {
        return EOPNOTSUPP;
    }
    afxdp_port_offload_turned_on(netdev);
    return 0;
}

static const struct netdev_flow_api afxdp_offload_api = {
    .type = AFXDP_OFFLOAD_API,
    .flow_flush = afxdp_offload_flow_flush,
    .flow_put = afxdp_offload_netdev_flow_put,
    .flow_get = afxdp_offload_netdev_flow_get,
    .flow_del = afxdp_offload_flow_del,
    .flow_get_n_flows = afxdp_offload_flow_get_n_flows,
    .init_flow_api = afxdp_offload_netdev_init,
};

/* Registers "afxdp_xdp".  OVS offers a port to every registered flow API;
 * ours takes afxdp ports only, and tc's declines them (our patch
 * patches/common/netdev-offload-tc-decline-afxdp.patch, for 3.1 and
 * 3.5). */
void
afxdp_offload_register(void)
{
    netdev_register_flow_api_provider(&afxdp_offload_api);
}

bool
afxdp_offload_ovs_enabled(void)
{
    return netdev_is_flow_api_enabled();
}

struct netdev *
afxdp_offload_ovs_port(struct netdev *in, odp_port_t port)
{
    return netdev_ports_get(port, netdev_get_dpif_type(in));
}

#endif /* AFXDP_OVS_NETDEV_FLOW_API */
