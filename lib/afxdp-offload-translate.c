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

/* Flow offload: translation of an OVS megaflow (its match and datapath
 * actions) into the key, mask and actions of our XDP program's flow table
 * (bpf/afxdp-flow.h).  Pure but for finding the afxdp port that an output
 * action names.  Used by lib/afxdp-offload.c; exposed for unit tests
 * through lib/afxdp-offload.h. */

#include <config.h>

#include "afxdp-offload.h"

#include <errno.h>
#include <string.h>

#include "afxdp-offload-private.h"
#include "afxdp-port-private.h"
#include "bpf/afxdp-flow.h"
#include "flow.h"
#include "netdev-provider.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/match.h"
#include "packets.h"
#include "util.h"

/* Match translation (pure). */

/* True if every bit of 'value' under 'mask' is zero. */
static bool
afxdp_masked_zero(const void *value_, const void *mask_, size_t n)
{
    const uint8_t *value = value_, *mask = mask_;

    for (size_t i = 0; i < n; i++) {
        if (value[i] & mask[i]) {
            return false;
        }
    }
    return true;
}

/* Fields that every frame the program parses has at zero (metadata of a
 * frame fresh from the wire, and a second VLAN tag, which the program
 * never parses): a match on them is fine if it asks for zero.  Clears them
 * from 'rest'.  Returns NULL or what is wrong. */
static const char *
afxdp_match_zero_fields(const struct flow *f, struct flow *rest)
{
#define AFXDP_ZERO_FIELD(FIELD, NAME)                                     \
    if (!afxdp_masked_zero(&f->FIELD, &rest->FIELD, sizeof f->FIELD)) {  \
        return NAME " is not zero";                                       \
    }                                                                     \
    memset(&rest->FIELD, 0, sizeof rest->FIELD);

    AFXDP_ZERO_FIELD(tunnel, "tunnel metadata");
    AFXDP_ZERO_FIELD(metadata, "metadata");
    AFXDP_ZERO_FIELD(regs, "a register");
    AFXDP_ZERO_FIELD(skb_priority, "skb_priority");
    AFXDP_ZERO_FIELD(pkt_mark, "pkt_mark");
    AFXDP_ZERO_FIELD(dp_hash, "dp_hash");
    AFXDP_ZERO_FIELD(recirc_id, "recirc_id");
    AFXDP_ZERO_FIELD(ct_state, "ct_state");
    AFXDP_ZERO_FIELD(ct_nw_proto, "ct_nw_proto");
    AFXDP_ZERO_FIELD(ct_zone, "ct_zone");
    AFXDP_ZERO_FIELD(ct_mark, "ct_mark");
    AFXDP_ZERO_FIELD(packet_type, "packet_type (not Ethernet)");
    AFXDP_ZERO_FIELD(ct_label, "ct_label");
    AFXDP_ZERO_FIELD(conj_id, "conj_id");
    AFXDP_ZERO_FIELD(actset_output, "actset_output");
    AFXDP_ZERO_FIELD(vlans[1], "a second VLAN tag");
    AFXDP_ZERO_FIELD(ct_nw_src, "ct_nw_src");
    AFXDP_ZERO_FIELD(ct_nw_dst, "ct_nw_dst");
    AFXDP_ZERO_FIELD(ct_ipv6_src, "ct_ipv6_src");
    AFXDP_ZERO_FIELD(ct_ipv6_dst, "ct_ipv6_dst");
    AFXDP_ZERO_FIELD(ct_tp_src, "ct_tp_src");
    AFXDP_ZERO_FIELD(ct_tp_dst, "ct_tp_dst");
#undef AFXDP_ZERO_FIELD
    return NULL;
}

/* Moves the L3 and L4 fields of the match into 'key' and 'mask' and
 * clears them from 'rest'.  Returns NULL or what is wrong. */
static const char *
afxdp_match_l3(const struct flow *f, struct flow *rest,
               struct afxdp_flow_key *key, struct afxdp_flow_key *mask)
{
    const struct flow *m = rest;
    bool v4 = f->dl_type == htons(ETH_TYPE_IP);
    bool v6 = f->dl_type == htons(ETH_TYPE_IPV6);
    bool l3 = (m->nw_src || m->nw_dst || m->nw_proto || m->nw_tos
               || m->nw_ttl || m->nw_frag || m->ipv6_label
               || !ipv6_mask_is_any(&m->ipv6_src)
               || !ipv6_mask_is_any(&m->ipv6_dst));
    bool l4 = m->tp_src || m->tp_dst;

    if (!l3 && !l4) {
        return NULL;
    }
    if (m->dl_type != OVS_BE16_MAX || (!v4 && !v6)) {
        return "L3 fields without an exact IPv4 or IPv6 EtherType";
    }
    if (v4 && (!ipv6_mask_is_any(&m->ipv6_src)
               || !ipv6_mask_is_any(&m->ipv6_dst) || m->ipv6_label)) {
        return "IPv6 addresses or flow label in an IPv4 flow";
    }
    if (v6 && (m->nw_src || m->nw_dst)) {
        return "IPv4 addresses in an IPv6 flow";
    }
    if (l4) {
        uint8_t p = f->nw_proto;

        if (m->nw_proto != UINT8_MAX
            || !(p == IPPROTO_TCP || p == IPPROTO_UDP || p == IPPROTO_SCTP
                 || (v4 && p == IPPROTO_ICMP)
                 || (v6 && p == IPPROTO_ICMPV6))) {
            return "L4 fields without an exact TCP, UDP, SCTP or ICMP "
                   "protocol";
        }
    }

    if (v4) {
        key->nw_src[0] = f->nw_src & m->nw_src;
        mask->nw_src[0] = m->nw_src;
        key->nw_dst[0] = f->nw_dst & m->nw_dst;
        mask->nw_dst[0] = m->nw_dst;
    } else {
        struct in6_addr a;

        a = ipv6_addr_bitand(&f->ipv6_src, &m->ipv6_src);
        memcpy(key->nw_src, &a, sizeof a);
        memcpy(mask->nw_src, &m->ipv6_src, sizeof m->ipv6_src);
        a = ipv6_addr_bitand(&f->ipv6_dst, &m->ipv6_dst);
        memcpy(key->nw_dst, &a, sizeof a);
        memcpy(mask->nw_dst, &m->ipv6_dst, sizeof m->ipv6_dst);
        /* flow_extract() keeps the label's 20 bits only. */
        mask->ipv6_label = m->ipv6_label & htonl(IPV6_LABEL_MASK);
        key->ipv6_label = f->ipv6_label & mask->ipv6_label;
    }
    key->nw_proto = f->nw_proto & m->nw_proto;
    mask->nw_proto = m->nw_proto;
    key->nw_tos = f->nw_tos & m->nw_tos;
    mask->nw_tos = m->nw_tos;
    key->nw_ttl = f->nw_ttl & m->nw_ttl;
    mask->nw_ttl = m->nw_ttl;
    key->nw_frag = f->nw_frag & m->nw_frag;
    mask->nw_frag = m->nw_frag;
    key->tp_src = f->tp_src & m->tp_src;
    mask->tp_src = m->tp_src;
    key->tp_dst = f->tp_dst & m->tp_dst;
    mask->tp_dst = m->tp_dst;

    memset(&rest->nw_src, 0, sizeof rest->nw_src);
    memset(&rest->nw_dst, 0, sizeof rest->nw_dst);
    memset(&rest->ipv6_src, 0, sizeof rest->ipv6_src);
    memset(&rest->ipv6_dst, 0, sizeof rest->ipv6_dst);
    rest->ipv6_label = 0;
    rest->nw_proto = rest->nw_tos = rest->nw_ttl = rest->nw_frag = 0;
    rest->tp_src = rest->tp_dst = 0;
    return NULL;
}

const char *
afxdp_offload_translate_match(const struct match *match,
                              struct afxdp_flow_key *key,
                              struct afxdp_flow_key *mask)
{
    const struct flow *f = &match->flow;
    struct flow rest = match->wc.masks;
    const struct flow *m = &rest;
    const char *why;

    memset(key, 0, sizeof *key);
    memset(mask, 0, sizeof *mask);

    /* The port is the one the flow API was called for. */
    memset(&rest.in_port, 0, sizeof rest.in_port);
    why = afxdp_match_zero_fields(f, &rest);
    if (why) {
        return why;
    }

    for (int i = 0; i < ETH_ADDR_LEN; i++) {
        key->eth_dst[i] = f->dl_dst.ea[i] & m->dl_dst.ea[i];
        mask->eth_dst[i] = m->dl_dst.ea[i];
        key->eth_src[i] = f->dl_src.ea[i] & m->dl_src.ea[i];
        mask->eth_src[i] = m->dl_src.ea[i];
    }
    key->eth_type = f->dl_type & m->dl_type;
    mask->eth_type = m->dl_type;
    key->vlan_tci = f->vlans[0].tci & m->vlans[0].tci;
    mask->vlan_tci = m->vlans[0].tci;
    key->vlan_tpid = f->vlans[0].tpid & m->vlans[0].tpid;
    mask->vlan_tpid = m->vlans[0].tpid;

    why = afxdp_match_l3(f, &rest, key, mask);
    if (why) {
        return why;
    }
    rest.dl_dst = eth_addr_zero;
    rest.dl_src = eth_addr_zero;
    rest.dl_type = 0;
    memset(&rest.vlans[0], 0, sizeof rest.vlans[0]);

    if (!is_all_zeros(&rest, sizeof rest)) {
        return "a field the XDP program does not parse (MPLS, ARP, ND, "
               "NSH, IGMP or TCP flags)";
    }
    return NULL;
}

/* Action translation. */

/* Returns the ifindex of the afxdp port with datapath port 'port' of the
 * datapath of 'in', or 0 if it is not an afxdp port other than 'in'. */
static int
afxdp_offload_egress_ifindex(struct netdev *in, odp_port_t port)
{
    struct netdev *out;
    int ifindex = 0;

    if (!in) {
        return 0;
    }
    out = afxdp_offload_ovs_port(in, port);
    if (out) {
        if (out != in && afxdp_port_lookup(out)) {
            ifindex = netdev_get_ifindex(out);
            ifindex = MAX(ifindex, 0);
        }
        netdev_close(out);
    }
    return ifindex;
}

/* True if 'e', with '*n' actions, has an action of 'type', or (if
 * 'after_push') a PUSH_VLAN: the program finds the IP header behind at
 * most one tag, so it sets no IP or L4 field after a push. */
static bool
afxdp_act_has(const struct afxdp_flow_entry *e, int n, int type,
              bool after_push)
{
    for (int i = 0; i < n; i++) {
        if (e->acts[i] == type
            || (after_push && e->acts[i] == AFXDP_FLOW_ACT_PUSH_VLAN)) {
            return true;
        }
    }
    return false;
}

/* Adds a SET_ETH action that writes 'v' under 'm' (NULL for all ones).
 * Returns false if it cannot (one per flow). */
static bool
afxdp_act_set_eth(struct afxdp_flow_entry *e, int *n,
                  const struct ovs_key_ethernet *v,
                  const struct ovs_key_ethernet *m)
{
    if (afxdp_act_has(e, *n, AFXDP_FLOW_ACT_SET_ETH, false)) {
        return false;
    }
    for (int i = 0; i < ETH_ADDR_LEN; i++) {
        uint8_t dm = m ? m->eth_dst.ea[i] : 0xff;
        uint8_t sm = m ? m->eth_src.ea[i] : 0xff;

        e->eth_dst[i] = v->eth_dst.ea[i] & dm;
        e->eth_dst_mask[i] = dm;
        e->eth_src[i] = v->eth_src.ea[i] & sm;
        e->eth_src_mask[i] = sm;
    }
    e->acts[(*n)++] = AFXDP_FLOW_ACT_SET_ETH;
    return true;
}

/* Stores in 'e' the addresses 'src' and 'dst' (of 'n_words' 32-bit words)
 * that a SET_IP writes under 'src_mask' and 'dst_mask'. */
static void
afxdp_act_set_addrs(struct afxdp_flow_entry *e, const ovs_be32 *src,
                    const ovs_be32 *src_mask, const ovs_be32 *dst,
                    const ovs_be32 *dst_mask, int n_words)
{
    for (int i = 0; i < n_words; i++) {
        e->ip_src[i] = src[i] & src_mask[i];
        e->ip_src_mask[i] = src_mask[i];
        e->ip_dst[i] = dst[i] & dst_mask[i];
        e->ip_dst_mask[i] = dst_mask[i];
        e->ip_addrs |= src_mask[i] || dst_mask[i];
    }
}

/* Adds the SET_IP action of OVS's masked set of its IPv4 key 'v' under
 * 'm'.  Returns false if it cannot: the protocol and fragment bits are
 * not fields a datapath sets. */
static bool
afxdp_act_set_ipv4(struct afxdp_flow_entry *e, int *n,
                   const struct ovs_key_ipv4 *v, const struct ovs_key_ipv4 *m)
{
    if (m->ipv4_proto || m->ipv4_frag
        || afxdp_act_has(e, *n, AFXDP_FLOW_ACT_SET_IP, true)) {
        return false;
    }
    e->ip_version = 4;
    afxdp_act_set_addrs(e, &v->ipv4_src, &m->ipv4_src, &v->ipv4_dst,
                        &m->ipv4_dst, 1);
    e->ip_tos = v->ipv4_tos & m->ipv4_tos;
    e->ip_tos_mask = m->ipv4_tos;
    e->ip_ttl = v->ipv4_ttl & m->ipv4_ttl;
    e->ip_ttl_mask = m->ipv4_ttl;
    e->acts[(*n)++] = AFXDP_FLOW_ACT_SET_IP;
    return true;
}

/* As afxdp_act_set_ipv4(), for OVS's IPv6 key. */
static bool
afxdp_act_set_ipv6(struct afxdp_flow_entry *e, int *n,
                   const struct ovs_key_ipv6 *v, const struct ovs_key_ipv6 *m)
{
    ovs_be32 src[4], src_mask[4], dst[4], dst_mask[4];

    if (m->ipv6_proto || m->ipv6_frag
        || afxdp_act_has(e, *n, AFXDP_FLOW_ACT_SET_IP, true)) {
        return false;
    }
    e->ip_version = 6;
    memcpy(src, &v->ipv6_src, sizeof src);
    memcpy(src_mask, &m->ipv6_src, sizeof src_mask);
    memcpy(dst, &v->ipv6_dst, sizeof dst);
    memcpy(dst_mask, &m->ipv6_dst, sizeof dst_mask);
    afxdp_act_set_addrs(e, src, src_mask, dst, dst_mask, 4);
    e->ip_tos = v->ipv6_tclass & m->ipv6_tclass;
    e->ip_tos_mask = m->ipv6_tclass;
    e->ip_ttl = v->ipv6_hlimit & m->ipv6_hlimit;
    e->ip_ttl_mask = m->ipv6_hlimit;
    e->ip6_label = v->ipv6_label & m->ipv6_label & htonl(IPV6_LABEL_MASK);
    e->ip6_label_mask = m->ipv6_label & htonl(IPV6_LABEL_MASK);
    e->acts[(*n)++] = AFXDP_FLOW_ACT_SET_IP;
    return true;
}

/* Adds the SET_L4 action of OVS's masked set of the ports of 'proto'
 * (TCP or UDP) to 'src' and 'dst' under 'src_mask' and 'dst_mask'. */
static bool
afxdp_act_set_l4(struct afxdp_flow_entry *e, int *n, uint8_t proto,
                 ovs_be16 src, ovs_be16 src_mask, ovs_be16 dst,
                 ovs_be16 dst_mask)
{
    if (afxdp_act_has(e, *n, AFXDP_FLOW_ACT_SET_L4, true)) {
        return false;
    }
    e->tp_proto = proto;
    e->tp_src = src & src_mask;
    e->tp_src_mask = src_mask;
    e->tp_dst = dst & dst_mask;
    e->tp_dst_mask = dst_mask;
    e->acts[(*n)++] = AFXDP_FLOW_ACT_SET_L4;
    return true;
}

/* Adds the action of OVS_ACTION_ATTR_SET or _SET_MASKED 'a' ('masked'),
 * if the program can run it: Ethernet addresses; or, masked only (as
 * OVS's userspace datapath makes them), the IPv4 or IPv6 header's
 * addresses, TOS or traffic class, TTL or hop limit and IPv6 flow label,
 * or TCP or UDP ports.  Returns false otherwise (e.g. SCTP ports, whose
 * CRC32c the program does not compute). */
static bool
afxdp_act_set(struct afxdp_flow_entry *e, int *n, const struct nlattr *a,
              bool masked)
{
    const struct nlattr *key = nl_attr_get(a);
    size_t copies = masked ? 2 : 1;
    const struct ovs_key_ethernet *eth;
    const struct ovs_key_ipv4 *ip4;
    const struct ovs_key_ipv6 *ip6;
    const struct ovs_key_tcp *tcp;

    /* One key attribute, nested, that fits (OVS's actions are well
     * formed; the check keeps a malformed one from being read past). */
    if (!nl_attr_is_valid(key, nl_attr_get_size(a))) {
        return false;
    }
    switch (nl_attr_type(key)) {
    case OVS_KEY_ATTR_ETHERNET:
        if (nl_attr_get_size(key) != sizeof *eth * copies) {
            return false;
        }
        /* A masked set carries the mask right after the value. */
        eth = nl_attr_get(key);
        return afxdp_act_set_eth(e, n, eth, masked ? eth + 1 : NULL);
    case OVS_KEY_ATTR_IPV4:
        if (!masked || nl_attr_get_size(key) != sizeof *ip4 * 2) {
            return false;
        }
        ip4 = nl_attr_get(key);
        return afxdp_act_set_ipv4(e, n, ip4, ip4 + 1);
    case OVS_KEY_ATTR_IPV6:
        if (!masked || nl_attr_get_size(key) != sizeof *ip6 * 2) {
            return false;
        }
        ip6 = nl_attr_get(key);
        return afxdp_act_set_ipv6(e, n, ip6, ip6 + 1);
    case OVS_KEY_ATTR_TCP:
    case OVS_KEY_ATTR_UDP:
        /* Both keys are the two ports, source first. */
        BUILD_ASSERT(sizeof *tcp == sizeof(struct ovs_key_udp));
        if (!masked || nl_attr_get_size(key) != sizeof *tcp * 2) {
            return false;
        }
        tcp = nl_attr_get(key);
        return afxdp_act_set_l4(e, n,
                                (nl_attr_type(key) == OVS_KEY_ATTR_TCP
                                 ? IPPROTO_TCP : IPPROTO_UDP),
                                tcp->tcp_src, tcp[1].tcp_src, tcp->tcp_dst,
                                tcp[1].tcp_dst);
    default:
        return false;
    }
}

/* Translates one action 'a' into 'e' (which has '*n' actions).  Returns
 * false if the program cannot run it. */
static bool
afxdp_act_one(struct netdev *netdev, const struct nlattr *a, bool last,
              struct afxdp_flow_entry *e, int *n)
{
    const struct ovs_action_push_vlan *pv;

    if (*n >= AFXDP_FLOW_MAX_ACTIONS) {
        return false;
    }
    /* An int, not the enum: most actions are refused by 'default'. */
    int type = nl_attr_type(a);

    switch (type) {
    case OVS_ACTION_ATTR_OUTPUT:
        if (!last || nl_attr_get_size(a) != sizeof(odp_port_t)) {
            return false;
        }
        e->out_ifindex = afxdp_offload_egress_ifindex(
            netdev, nl_attr_get_odp_port(a));
        if (!e->out_ifindex) {
            return false;
        }
        e->acts[(*n)++] = AFXDP_FLOW_ACT_OUTPUT;
        return true;
    case OVS_ACTION_ATTR_DROP:
        if (!last) {
            return false;
        }
        e->acts[(*n)++] = AFXDP_FLOW_ACT_DROP;
        return true;
    case OVS_ACTION_ATTR_PUSH_VLAN:
        pv = nl_attr_get(a);
        if (nl_attr_get_size(a) != sizeof *pv
            || !(pv->vlan_tci & htons(VLAN_CFI))
            || (pv->vlan_tpid != htons(ETH_TYPE_VLAN_8021Q)
                && pv->vlan_tpid != htons(ETH_TYPE_VLAN_8021AD))) {
            return false;
        }
        if (afxdp_act_has(e, *n, AFXDP_FLOW_ACT_PUSH_VLAN, false)) {
            return false;       /* One tag's parameters per flow. */
        }
        e->vlan_tpid = pv->vlan_tpid;
        e->vlan_tci = pv->vlan_tci & ~htons(VLAN_CFI);
        e->acts[(*n)++] = AFXDP_FLOW_ACT_PUSH_VLAN;
        return true;
    case OVS_ACTION_ATTR_POP_VLAN:
        e->acts[(*n)++] = AFXDP_FLOW_ACT_POP_VLAN;
        return true;
    case OVS_ACTION_ATTR_SET:
        return afxdp_act_set(e, n, a, false);
    case OVS_ACTION_ATTR_SET_MASKED:
        return afxdp_act_set(e, n, a, true);
    default:
        return false;
    }
}

bool
afxdp_offload_translate_actions(struct netdev *netdev,
                                const struct nlattr *actions, size_t len,
                                struct afxdp_flow_entry *e)
{
    const struct nlattr *a;
    size_t left;
    int n = 0;

    if (!len) {
        e->acts[n++] = AFXDP_FLOW_ACT_DROP;
        return true;
    }
    NL_ATTR_FOR_EACH (a, left, actions, len) {
        if (!afxdp_act_one(netdev, a, left <= NLA_ALIGN(a->nla_len), e,
                           &n)) {
            return false;
        }
    }
    /* Must end in an output or a drop. */
    return n && (e->acts[n - 1] == AFXDP_FLOW_ACT_OUTPUT
                 || e->acts[n - 1] == AFXDP_FLOW_ACT_DROP);
}
