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

/* libFuzzer target for the action translation of flow offload
 * (lib/afxdp-offload.c): OVS datapath actions, as netlink attributes, to
 * the actions of an entry of our XDP program's flow table, or a refusal
 * (the flow then stays a partial offload).
 *
 * The input is the actions' bytes.  Besides the sanitizers' findings, it
 * checks what the translation promises the program (bpf/afxdp-flow.h,
 * bpf/afxdp-actions.bpf.h); a broken promise aborts:
 *   - 1 to AFXDP_FLOW_MAX_ACTIONS actions, the last a DROP (without a
 *     datapath, as here, no output has a device), none before it that
 *     ends a flow;
 *   - at most one each of PUSH_VLAN, SET_ETH, SET_IP and SET_L4, and no
 *     SET_IP or SET_L4 after a PUSH_VLAN (the program finds the IP header
 *     behind at most one tag);
 *   - the parameters of each action valid: a pushed tag's TPID is 802.1Q
 *     or 802.1ad and its TCI has no "present" bit, every value set under a
 *     mask has no bit outside it, IP version 4 (one address word) or 6,
 *     a flow label of 20 bits, L4 protocol TCP or UDP. */

#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "afxdp-offload.h"
#include "bpf/afxdp-flow.h"
#include "packets.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* No bit of the 'n' bytes at 'value' outside the same bytes at 'mask'. */
static void
check_masked(const void *value_, const void *mask_, size_t n)
{
    const uint8_t *value = value_, *mask = mask_;

    for (size_t i = 0; i < n; i++) {
        ovs_assert(!(value[i] & ~mask[i]));
    }
}

static void
check_set_ip(const struct afxdp_flow_entry *e)
{
    int words = e->ip_version == 4 ? 1 : 4;
    bool addrs = false;

    ovs_assert(e->ip_version == 4 || e->ip_version == 6);
    check_masked(&e->ip_tos, &e->ip_tos_mask, 1);
    check_masked(&e->ip_ttl, &e->ip_ttl_mask, 1);
    check_masked(e->ip_src, e->ip_src_mask, sizeof e->ip_src);
    check_masked(e->ip_dst, e->ip_dst_mask, sizeof e->ip_dst);
    check_masked(&e->ip6_label, &e->ip6_label_mask, sizeof e->ip6_label);
    ovs_assert(!(e->ip6_label_mask & ~htonl(IPV6_LABEL_MASK)));
    ovs_assert(e->ip_version == 6 || !e->ip6_label_mask);
    for (int i = 0; i < 4; i++) {
        ovs_assert(i < words || (!e->ip_src_mask[i] && !e->ip_dst_mask[i]));
        addrs |= e->ip_src_mask[i] || e->ip_dst_mask[i];
    }
    ovs_assert(e->ip_addrs == addrs);
}

static void
check_entry(const struct afxdp_flow_entry *e)
{
    int n = 0, seen[UINT8_MAX + 1] = { 0 };
    bool pushed = false;

    while (n < AFXDP_FLOW_MAX_ACTIONS && e->acts[n]) {
        n++;
    }
    ovs_assert(n >= 1 && e->acts[n - 1] == AFXDP_FLOW_ACT_DROP);
    for (int i = 0; i < n; i++) {
        int act = e->acts[i];

        ovs_assert(act <= AFXDP_FLOW_ACT_SET_L4);
        ovs_assert(i == n - 1
                   || (act != AFXDP_FLOW_ACT_OUTPUT
                       && act != AFXDP_FLOW_ACT_DROP
                       && act != AFXDP_FLOW_ACT_MARK));
        if (act != AFXDP_FLOW_ACT_POP_VLAN) {
            ovs_assert(!seen[act]++);
        }
        if (act == AFXDP_FLOW_ACT_SET_IP || act == AFXDP_FLOW_ACT_SET_L4) {
            ovs_assert(!pushed);
        }
        pushed |= act == AFXDP_FLOW_ACT_PUSH_VLAN;
    }
    if (seen[AFXDP_FLOW_ACT_PUSH_VLAN]) {
        ovs_assert(e->vlan_tpid == htons(ETH_TYPE_VLAN_8021Q)
                   || e->vlan_tpid == htons(ETH_TYPE_VLAN_8021AD));
        ovs_assert(!(e->vlan_tci & htons(VLAN_CFI)));
    }
    if (seen[AFXDP_FLOW_ACT_SET_ETH]) {
        check_masked(e->eth_dst, e->eth_dst_mask, sizeof e->eth_dst);
        check_masked(e->eth_src, e->eth_src_mask, sizeof e->eth_src);
    }
    if (seen[AFXDP_FLOW_ACT_SET_IP]) {
        check_set_ip(e);
    }
    if (seen[AFXDP_FLOW_ACT_SET_L4]) {
        ovs_assert(e->tp_proto == IPPROTO_TCP || e->tp_proto == IPPROTO_UDP);
        check_masked(&e->tp_src, &e->tp_src_mask, sizeof e->tp_src);
        check_masked(&e->tp_dst, &e->tp_dst_mask, sizeof e->tp_dst);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of its own size, so that a read past the end shows. */
    void *actions = xmemdup(data, size);
    struct afxdp_flow_entry e;

    memset(&e, 0, sizeof e);
    if (afxdp_offload_translate_actions(NULL, actions, size, &e)) {
        check_entry(&e);
    }
    free(actions);
    return 0;
}
