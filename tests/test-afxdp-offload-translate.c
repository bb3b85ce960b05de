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

/* 'ovstest test-afxdp-offload translate': afxdp_offload_translate_match()
 * (lib/afxdp-offload.c) on matches built with OVS's match_*() API.  See
 * test-afxdp-offload.c. */

#include <config.h>
#undef NDEBUG

#include "test-afxdp-offload.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afxdp-offload.h"
#include "bpf/afxdp-flow.h"
#include "flow.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "packets.h"
#include "random.h"
#include "util.h"

/* The key's bits and OVS's are the same. */
BUILD_ASSERT_DECL(AFXDP_FLOW_VLAN_PRESENT == VLAN_CFI);
BUILD_ASSERT_DECL(AFXDP_FLOW_FRAG_ANY == FLOW_NW_FRAG_ANY);
BUILD_ASSERT_DECL(AFXDP_FLOW_FRAG_LATER == FLOW_NW_FRAG_LATER);
BUILD_ASSERT_DECL(sizeof(struct afxdp_flow_key) == 64);

void
test_afxdp_offload_fail(const char *format, ...)
{
    va_list args;

    va_start(args, format);
    fputs("test-afxdp-offload: FAILED: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

void
test_afxdp_offload_format_key(struct ds *s, const struct afxdp_flow_key *k)
{
    static const uint8_t zero[16];

    if (memcmp(k->eth_dst, zero, 6) || memcmp(k->eth_src, zero, 6)) {
        ds_put_format(s, "eth "ETH_ADDR_FMT">"ETH_ADDR_FMT" ",
                      ETH_ADDR_BYTES_ARGS(k->eth_src),
                      ETH_ADDR_BYTES_ARGS(k->eth_dst));
    }
    if (k->eth_type) {
        ds_put_format(s, "type %#06"PRIx16" ", ntohs(k->eth_type));
    }
    if (k->vlan_tci || k->vlan_tpid) {
        ds_put_format(s, "vlan %#06"PRIx16"/%#06"PRIx16" ",
                      ntohs(k->vlan_tpid), ntohs(k->vlan_tci));
    }
    if (k->nw_proto || k->nw_tos || k->nw_ttl || k->nw_frag) {
        ds_put_format(s, "proto %u tos %#x ttl %u frag %u ", k->nw_proto,
                      k->nw_tos, k->nw_ttl, k->nw_frag);
    }
    if (k->tp_src || k->tp_dst) {
        ds_put_format(s, "tp %u>%u ", ntohs(k->tp_src), ntohs(k->tp_dst));
    }
    if (memcmp(k->nw_src + 1, zero, 12) || memcmp(k->nw_dst + 1, zero, 12)) {
        struct in6_addr a;

        ds_put_cstr(s, "ipv6 ");
        memcpy(&a, k->nw_src, sizeof a);
        ipv6_format_addr(&a, s);
        ds_put_char(s, '>');
        memcpy(&a, k->nw_dst, sizeof a);
        ipv6_format_addr(&a, s);
        ds_put_char(s, ' ');
        if (k->ipv6_label) {
            ds_put_format(s, "label %#"PRIx32" ", ntohl(k->ipv6_label));
        }
    } else if (k->nw_src[0] || k->nw_dst[0]) {
        ds_put_format(s, "ip "IP_FMT">"IP_FMT" ", IP_ARGS(k->nw_src[0]),
                      IP_ARGS(k->nw_dst[0]));
    }
    if (k->mask_slot || k->pad0) {
        ds_put_format(s, "slot %u pad %u", k->mask_slot, k->pad0);
    }
}

/* Fails unless 'k' equals 'expected'. */
static void
check_key_eq(const char *what, const struct afxdp_flow_key *k,
             const struct afxdp_flow_key *expected)
{
    if (memcmp(k, expected, sizeof *k)) {
        struct ds s = DS_EMPTY_INITIALIZER;

        ds_put_format(&s, "%s: got\n  ", what);
        test_afxdp_offload_format_key(&s, k);
        ds_put_cstr(&s, "\nexpected\n  ");
        test_afxdp_offload_format_key(&s, expected);
        test_afxdp_offload_fail("%s", ds_cstr(&s));
    }
}

/* 'translate': afxdp_offload_translate_match(). */

static int n_refusals;

/* Translates 'm', which must be accepted. */
static void
translate_ok(const char *what, const struct match *m,
             struct afxdp_flow_key *k, struct afxdp_flow_key *mk)
{
    const char *why = afxdp_offload_translate_match(m, k, mk);

    if (why) {
        test_afxdp_offload_fail("%s: refused (%s), should be accepted",
                                what, why);
    }
}

/* Translates 'm' and checks that it gives 'key' and 'mask'. */
static void
translate_eq(const char *what, const struct match *m,
             const struct afxdp_flow_key *key,
             const struct afxdp_flow_key *mask)
{
    struct afxdp_flow_key k, mk;

    translate_ok(what, m, &k, &mk);
    check_key_eq(what, &k, key);
    check_key_eq(what, &mk, mask);
}

/* 'm' must be refused, with a reason. */
static void
translate_refused(const char *what, const struct match *m)
{
    struct afxdp_flow_key k, mk;
    const char *why = afxdp_offload_translate_match(m, &k, &mk);

    if (!why) {
        test_afxdp_offload_fail("%s: accepted, should be refused", what);
    }
    if (!why[0]) {
        test_afxdp_offload_fail("%s: refused with an empty reason", what);
    }
    n_refusals++;
}

static const struct eth_addr mac_a = ETH_ADDR_C(02, 00, 00, 00, 0a, 01);
static const struct eth_addr mac_b = ETH_ADDR_C(02, 00, 00, 00, 0b, 02);

static void
test_translate_eth(void)
{
    struct afxdp_flow_key k, mk, key, mask;
    struct match m;

    /* Catch-all: a zero key and mask. */
    match_init_catchall(&m);
    memset(&key, 0, sizeof key);
    memset(&mask, 0, sizeof mask);
    translate_eq("catch-all", &m, &key, &mask);
    /* in_port is the port the flow API was called for: not a field. */
    match_set_in_port(&m, 7);
    translate_eq("in_port", &m, &key, &mask);

    /* Ethernet: the key is the flow under the mask, even when the flow
     * has bits outside it. */
    match_init_catchall(&m);
    match_set_dl_dst(&m, mac_b);
    match_set_dl_type(&m, htons(0x88cc));
    m.flow.dl_src = mac_a;
    m.wc.masks.dl_src = (struct eth_addr) ETH_ADDR_C(ff, ff, ff, 00, ff, 00);
    memcpy(key.eth_dst, mac_b.ea, 6);
    memset(mask.eth_dst, 0xff, 6);
    memcpy(key.eth_src, mac_a.ea, 6);
    key.eth_src[3] = key.eth_src[5] = 0;
    memcpy(mask.eth_src, m.wc.masks.dl_src.ea, 6);
    key.eth_type = htons(0x88cc);
    mask.eth_type = OVS_BE16_MAX;
    translate_eq("Ethernet, masked source", &m, &key, &mask);

    /* The packet type, exactly Ethernet, is fine. */
    match_set_packet_type(&m, htonl(PT_ETH));
    translate_eq("packet_type Ethernet", &m, &key, &mask);

    /* VLAN: OVS's TCI has VLAN_CFI for "tagged", and so has the key. */
    match_init_catchall(&m);
    match_set_dl_vlan(&m, htons(100), 0);
    memset(&key, 0, sizeof key);
    memset(&mask, 0, sizeof mask);
    key.vlan_tci = htons(AFXDP_FLOW_VLAN_PRESENT | 100);
    mask.vlan_tci = htons(AFXDP_FLOW_VLAN_PRESENT | VLAN_VID_MASK);
    translate_eq("VLAN 100", &m, &key, &mask);
    match_set_dl_vlan_pcp(&m, 5, 0);
    key.vlan_tci |= htons(5 << VLAN_PCP_SHIFT);
    mask.vlan_tci |= htons(VLAN_PCP_MASK);
    translate_eq("VLAN 100 priority 5", &m, &key, &mask);
    m.flow.vlans[0].tpid = htons(ETH_TYPE_VLAN_8021AD);
    m.wc.masks.vlans[0].tpid = OVS_BE16_MAX;
    key.vlan_tpid = htons(ETH_TYPE_VLAN_8021AD);
    mask.vlan_tpid = OVS_BE16_MAX;
    translate_eq("802.1ad VLAN", &m, &key, &mask);
    /* A second tag, asked to be absent, is fine. */
    m.wc.masks.vlans[1].qtag = OVS_BE32_MAX;
    translate_eq("no second tag", &m, &key, &mask);

    /* "Untagged": TCI 0, exactly. */
    match_init_catchall(&m);
    match_set_dl_tci(&m, 0);
    memset(&key, 0, sizeof key);
    memset(&mask, 0, sizeof mask);
    mask.vlan_tci = OVS_BE16_MAX;
    translate_eq("untagged", &m, &key, &mask);
    match_set_any_vid(&m);
    match_set_dl_tci_masked(&m, htons(VLAN_CFI), htons(VLAN_CFI));
    key.vlan_tci = htons(VLAN_CFI);
    mask.vlan_tci = htons(VLAN_CFI);
    translate_eq("any tag", &m, &key, &mask);

    /* The padding and slot of what comes out are zero. */
    translate_ok("any tag", &m, &k, &mk);
    CHECK(!k.mask_slot && !k.pad0);
    CHECK(!mk.mask_slot && !mk.pad0);
    printf("Ethernet and VLAN: ok\n");
}

static void
test_translate_ipv4(void)
{
    struct afxdp_flow_key key, mask;
    struct match m;

    match_init_catchall(&m);
    match_set_dl_type(&m, htons(ETH_TYPE_IP));
    m.flow.nw_src = htonl(0x0a010203);
    m.wc.masks.nw_src = htonl(0xffff0000);
    match_set_nw_dst(&m, htonl(0xc0a80001));
    match_set_nw_proto(&m, IPPROTO_TCP);
    match_set_tp_dst(&m, htons(80));
    m.flow.tp_src = htons(0x1234);
    m.wc.masks.tp_src = htons(0xff00);
    match_set_nw_dscp(&m, 0xb8);
    match_set_nw_ttl(&m, 9);
    match_set_nw_frag_masked(&m, FLOW_NW_FRAG_ANY, FLOW_NW_FRAG_MASK);

    memset(&key, 0, sizeof key);
    memset(&mask, 0, sizeof mask);
    key.eth_type = htons(ETH_TYPE_IP);
    mask.eth_type = OVS_BE16_MAX;
    key.nw_src[0] = htonl(0x0a010000);
    mask.nw_src[0] = htonl(0xffff0000);
    key.nw_dst[0] = htonl(0xc0a80001);
    mask.nw_dst[0] = OVS_BE32_MAX;
    key.nw_proto = IPPROTO_TCP;
    mask.nw_proto = 0xff;
    key.tp_dst = htons(80);
    mask.tp_dst = OVS_BE16_MAX;
    key.tp_src = htons(0x1200);
    mask.tp_src = htons(0xff00);
    key.nw_tos = 0xb8;
    mask.nw_tos = IP_DSCP_MASK;
    key.nw_ttl = 9;
    mask.nw_ttl = 0xff;
    key.nw_frag = AFXDP_FLOW_FRAG_ANY;
    mask.nw_frag = AFXDP_FLOW_FRAG_ANY | AFXDP_FLOW_FRAG_LATER;
    translate_eq("IPv4 TCP", &m, &key, &mask);

    /* ECN bits go with the DSCP in nw_tos. */
    match_set_nw_ecn(&m, 2);
    key.nw_tos |= 2;
    mask.nw_tos |= IP_ECN_MASK;
    translate_eq("IPv4 DSCP and ECN", &m, &key, &mask);

    /* L4 fields with each protocol the program parses. */
    static const uint8_t protos[] = { IPPROTO_UDP, IPPROTO_SCTP,
                                      IPPROTO_ICMP };
    for (size_t i = 0; i < ARRAY_SIZE(protos); i++) {
        match_set_nw_proto(&m, protos[i]);
        key.nw_proto = protos[i];
        translate_eq("IPv4 L4", &m, &key, &mask);
    }

    /* Without L4 fields, any protocol. */
    match_set_tp_src_masked(&m, 0, 0);
    match_set_tp_dst_masked(&m, 0, 0);
    match_set_nw_proto(&m, IPPROTO_GRE);
    key.nw_proto = IPPROTO_GRE;
    key.tp_src = key.tp_dst = mask.tp_src = mask.tp_dst = 0;
    translate_eq("IPv4 GRE", &m, &key, &mask);
    printf("IPv4: ok\n");
}

static void
test_translate_ipv6(void)
{
    struct in6_addr src, dst, src_mask;
    struct afxdp_flow_key key, mask;
    struct match m;

    CHECK(ipv6_parse("2001:db8:1:2:3:4:5:6", &src));
    CHECK(ipv6_parse("fd00::1:0:0:9", &dst));
    src_mask = ipv6_create_mask(56);

    match_init_catchall(&m);
    match_set_dl_type(&m, htons(ETH_TYPE_IPV6));
    m.flow.ipv6_src = src;
    m.wc.masks.ipv6_src = src_mask;
    match_set_ipv6_dst(&m, &dst);
    match_set_nw_proto(&m, IPPROTO_ICMPV6);
    match_set_tp_src(&m, htons(128));
    match_set_tp_dst(&m, htons(0));
    match_set_nw_dscp(&m, 0x28);
    match_set_nw_ttl(&m, 255);

    memset(&key, 0, sizeof key);
    memset(&mask, 0, sizeof mask);
    key.eth_type = htons(ETH_TYPE_IPV6);
    mask.eth_type = OVS_BE16_MAX;
    struct in6_addr masked = ipv6_addr_bitand(&src, &src_mask);
    memcpy(key.nw_src, &masked, 16);
    memcpy(mask.nw_src, &src_mask, 16);
    memcpy(key.nw_dst, &dst, 16);
    memset(mask.nw_dst, 0xff, 16);
    key.nw_proto = IPPROTO_ICMPV6;
    mask.nw_proto = 0xff;
    key.tp_src = htons(128);
    mask.tp_src = mask.tp_dst = OVS_BE16_MAX;
    key.nw_tos = 0x28;
    mask.nw_tos = IP_DSCP_MASK;
    key.nw_ttl = 255;
    mask.nw_ttl = 0xff;
    translate_eq("IPv6 ICMPv6", &m, &key, &mask);
    /* Each word of the address counts: the last one differs. */
    CHECK(key.nw_dst[3] != 0 && key.nw_src[1] != 0);

    static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP,
                                      IPPROTO_SCTP };
    for (size_t i = 0; i < ARRAY_SIZE(protos); i++) {
        match_set_nw_proto(&m, protos[i]);
        key.nw_proto = protos[i];
        translate_eq("IPv6 L4", &m, &key, &mask);
    }

    /* The flow label (which OVS's megaflows match when a flow sets it),
     * masked; only its 20 bits. */
    match_set_ipv6_label_masked(&m, htonl(0xfabcde), htonl(0xff0ff0));
    key.ipv6_label = htonl(0x0a0cd0);
    mask.ipv6_label = htonl(0x0f0ff0);
    translate_eq("IPv6 flow label", &m, &key, &mask);
    printf("IPv6: ok\n");
}

/* Keys are masked: with every field of the flow all ones (but the
 * EtherType and protocol, which must be exact), the key is the mask. */
static void
test_translate_masked(bool v6)
{
    struct afxdp_flow_key key, mask;
    struct match m;

    match_init_catchall(&m);
    memset(&m.flow.dl_dst, 0xff, sizeof m.flow.dl_dst);
    memset(&m.flow.dl_src, 0xff, sizeof m.flow.dl_src);
    m.flow.vlans[0].qtag = OVS_BE32_MAX;
    m.flow.nw_tos = m.flow.nw_ttl = 0xff;
    m.flow.nw_frag = FLOW_NW_FRAG_MASK;
    m.flow.tp_src = m.flow.tp_dst = OVS_BE16_MAX;
    match_set_dl_type(&m, htons(v6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP));
    match_set_nw_proto(&m, IPPROTO_UDP);

    m.wc.masks.dl_dst = (struct eth_addr) ETH_ADDR_C(f0, 0f, 00, ff, 01, 80);
    m.wc.masks.dl_src = (struct eth_addr) ETH_ADDR_C(00, 00, 00, 00, 00, 01);
    m.wc.masks.vlans[0].tci = htons(0x0fff);
    m.wc.masks.vlans[0].tpid = htons(0xff00);
    m.wc.masks.nw_tos = 0x0f;
    m.wc.masks.nw_ttl = 0xf0;
    m.wc.masks.nw_frag = FLOW_NW_FRAG_LATER;
    m.wc.masks.tp_src = htons(0x00ff);
    m.wc.masks.tp_dst = htons(0x8001);
    if (v6) {
        memset(&m.flow.ipv6_src, 0xff, sizeof m.flow.ipv6_src);
        memset(&m.flow.ipv6_dst, 0xff, sizeof m.flow.ipv6_dst);
        m.wc.masks.ipv6_src = ipv6_create_mask(100);
        m.wc.masks.ipv6_dst.s6_addr[15] = 0x3c;
    } else {
        m.flow.nw_src = m.flow.nw_dst = OVS_BE32_MAX;
        m.wc.masks.nw_src = htonl(0xff00ff00);
        m.wc.masks.nw_dst = htonl(0x00000001);
    }
    translate_ok("masked", &m, &key, &mask);
    CHECK(key.eth_type == m.flow.dl_type && key.nw_proto == IPPROTO_UDP);
    key.eth_type = mask.eth_type;
    key.nw_proto = mask.nw_proto;
    check_key_eq(v6 ? "IPv6 key masked" : "IPv4 key masked", &key, &mask);
    CHECK(!memcmp(mask.eth_dst, m.wc.masks.dl_dst.ea, 6));
    CHECK(mask.vlan_tci == htons(0x0fff) && mask.vlan_tpid == htons(0xff00));
    CHECK(mask.nw_frag == AFXDP_FLOW_FRAG_LATER);
    CHECK(mask.tp_dst == htons(0x8001) && mask.nw_ttl == 0xf0);
    if (v6) {
        CHECK(!memcmp(mask.nw_src, &m.wc.masks.ipv6_src, 16));
        CHECK(mask.nw_dst[3] == htonl(0x3c) && !mask.nw_dst[0]);
    } else {
        CHECK(mask.nw_src[0] == htonl(0xff00ff00));
        CHECK(!mask.nw_src[1] && !mask.nw_src[2] && !mask.nw_src[3]);
        CHECK(mask.nw_dst[0] == htonl(1));
    }
    printf("%s keys masked: ok\n", v6 ? "IPv6" : "IPv4");
}

/* Metadata: fine when the match asks for zero, refused otherwise. */
static void
test_translate_metadata(void)
{
    struct afxdp_flow_key key, mask;
    struct match m;

    match_init_catchall(&m);
    match_set_dl_type(&m, htons(ETH_TYPE_IP));
    translate_ok("base", &m, &key, &mask);

    match_set_recirc_id(&m, 0);
    match_set_ct_state_masked(&m, 0, CS_TRACKED);
    match_set_ct_zone(&m, 0);
    match_set_ct_mark(&m, 0);
    match_set_ct_label(&m, OVS_U128_ZERO);
    match_set_ct_nw_src(&m, 0);
    match_set_ct_tp_dst(&m, 0);
    match_set_pkt_mark(&m, 0);
    match_set_skb_priority(&m, 0);
    match_set_dp_hash(&m, 0);
    match_set_tun_id(&m, 0);
    match_set_tun_dst(&m, 0);
    match_set_reg(&m, 0, 0);
    match_set_reg(&m, 7, 0);
    match_set_metadata(&m, 0);
    match_set_conj_id(&m, 0);
    translate_eq("metadata asked to be zero", &m, &key, &mask);
    printf("metadata at zero: ok\n");

#define REFUSE_META(CALL)                               \
    do {                                                \
        match_init_catchall(&m);                        \
        match_set_dl_type(&m, htons(ETH_TYPE_IP));      \
        CALL;                                           \
        translate_refused(#CALL, &m);                   \
    } while (0)

    REFUSE_META(match_set_recirc_id(&m, 1));
    REFUSE_META(match_set_ct_state_masked(&m, CS_TRACKED, CS_TRACKED));
    REFUSE_META(match_set_ct_state_masked(&m, CS_NEW | CS_TRACKED,
                                          CS_NEW | CS_TRACKED));
    REFUSE_META(match_set_ct_zone(&m, 1));
    REFUSE_META(match_set_ct_mark(&m, 1));
    REFUSE_META(match_set_ct_label(&m, OVS_U128_MAX));
    REFUSE_META(match_set_ct_nw_src(&m, htonl(1)));
    REFUSE_META(match_set_ct_tp_dst(&m, htons(1)));
    REFUSE_META(match_set_pkt_mark(&m, 1));
    REFUSE_META(match_set_pkt_mark_masked(&m, 0x100, 0x100));
    REFUSE_META(match_set_skb_priority(&m, 1));
    REFUSE_META(match_set_dp_hash(&m, 1));
    REFUSE_META(match_set_tun_id(&m, htonll(5)));
    REFUSE_META(match_set_tun_dst(&m, htonl(0x0a000001)));
    REFUSE_META(match_set_reg(&m, 3, 1));
    REFUSE_META(match_set_metadata(&m, htonll(1)));
    REFUSE_META(match_set_conj_id(&m, 1));
    REFUSE_META(match_set_actset_output(&m, 1));
    REFUSE_META(match_set_packet_type(&m, PACKET_TYPE_BE(OFPHTN_ETHERTYPE,
                                                         ETH_TYPE_IP)));
#undef REFUSE_META
    printf("metadata not zero refused: ok\n");
}

/* Matches on fields the program does not parse, or cannot compute. */
static void
test_translate_refused(void)
{
    struct in6_addr a6;
    struct match m;

    CHECK(ipv6_parse("2001:db8::1", &a6));

#define REFUSE(DL_TYPE, PROTO, CALL)                            \
    do {                                                        \
        match_init_catchall(&m);                                \
        if (DL_TYPE) {                                          \
            match_set_dl_type(&m, htons(DL_TYPE));              \
        }                                                       \
        if (PROTO) {                                            \
            match_set_nw_proto(&m, PROTO);                      \
        }                                                       \
        CALL;                                                   \
        translate_refused(#DL_TYPE " " #PROTO " " #CALL, &m);   \
    } while (0)

    /* TCP flags: not in the key. */
    REFUSE(ETH_TYPE_IP, IPPROTO_TCP, match_set_tcp_flags(&m, htons(2)));
    REFUSE(ETH_TYPE_IPV6, IPPROTO_TCP,
           match_set_tcp_flags_masked(&m, 0, htons(TCP_SYN)));
    /* The IPv6 flow label, in a flow that is not IPv6. */
    REFUSE(ETH_TYPE_IP, 0, match_set_ipv6_label(&m, htonl(0x12345)));

    /* A second VLAN tag: only its absence. */
    REFUSE(0, 0, match_set_dl_vlan(&m, htons(5), 1));
    REFUSE(0, 0, (match_set_dl_vlan(&m, htons(5), 0),
                  match_set_dl_vlan(&m, htons(6), 1)));

    /* ARP and neighbour discovery fields. */
    REFUSE(ETH_TYPE_ARP, 0, match_set_nw_src(&m, htonl(0x0a000001)));
    REFUSE(ETH_TYPE_ARP, 0, match_set_nw_proto(&m, ARP_OP_REQUEST));
    REFUSE(ETH_TYPE_ARP, 0, match_set_arp_sha(&m, mac_a));
    REFUSE(ETH_TYPE_ARP, 0, match_set_arp_tha(&m, mac_b));
    REFUSE(ETH_TYPE_RARP, 0, match_set_nw_dst(&m, htonl(0x0a000001)));
    REFUSE(ETH_TYPE_IPV6, IPPROTO_ICMPV6,
           (match_set_tp_src(&m, htons(135)), match_set_nd_target(&m, &a6)));
    REFUSE(ETH_TYPE_IPV6, IPPROTO_ICMPV6,
           (match_set_tp_src(&m, htons(136)),
            match_set_arp_tha(&m, mac_b)));
    REFUSE(ETH_TYPE_IPV6, IPPROTO_ICMPV6, match_set_nd_reserved(&m,
                                                               htonl(1)));
    REFUSE(ETH_TYPE_IPV6, IPPROTO_ICMPV6, match_set_nd_options_type(&m, 1));

    /* MPLS and IGMP. */
    REFUSE(ETH_TYPE_MPLS, 0, match_set_mpls_label(&m, 0, htonl(100)));
    REFUSE(ETH_TYPE_MPLS, 0, match_set_mpls_bos(&m, 0, 1));
    REFUSE(ETH_TYPE_MPLS_MCAST, 0, match_set_mpls_lse(&m, 0, 0));
    REFUSE(ETH_TYPE_IP, IPPROTO_IGMP,
           (m.flow.igmp_group_ip4 = htonl(0xe0000001),
            m.wc.masks.igmp_group_ip4 = OVS_BE32_MAX));
    REFUSE(ETH_TYPE_IP, IPPROTO_IGMP, match_set_tp_src(&m, htons(0x16)));

    /* L3 fields need an exact IPv4 or IPv6 EtherType. */
    REFUSE(0, 0, match_set_nw_src(&m, htonl(0x0a000001)));
    REFUSE(0, 0, match_set_nw_ttl(&m, 1));
    REFUSE(0, 0, match_set_ipv6_dst(&m, &a6));
    REFUSE(0, IPPROTO_TCP, (void) 0);
    REFUSE(0x88cc, 0, match_set_nw_dscp(&m, 4));
    REFUSE(0, 0, (match_set_dl_type(&m, htons(ETH_TYPE_IP)),
                  m.wc.masks.dl_type = htons(0xff00),
                  match_set_nw_src(&m, htonl(1))));
    REFUSE(0, 0, (match_set_dl_type(&m, htons(ETH_TYPE_IPV6)),
                  m.wc.masks.dl_type = htons(0xfffe),
                  match_set_nw_frag(&m, FLOW_NW_FRAG_ANY)));

    /* Addresses of the other IP version. */
    REFUSE(ETH_TYPE_IPV6, 0, match_set_nw_src(&m, htonl(0x0a000001)));
    REFUSE(ETH_TYPE_IPV6, 0, match_set_nw_dst_masked(&m, htonl(1),
                                                     htonl(1)));
    REFUSE(ETH_TYPE_IP, 0, match_set_ipv6_src(&m, &a6));
    REFUSE(ETH_TYPE_IP, 0, match_set_ipv6_dst(&m, &a6));

    /* L4 ports need an exact protocol that has them. */
    REFUSE(ETH_TYPE_IP, 0, match_set_tp_dst(&m, htons(80)));
    REFUSE(ETH_TYPE_IP, 0, (match_set_nw_proto(&m, IPPROTO_TCP),
                            m.wc.masks.nw_proto = 0xfe,
                            match_set_tp_dst(&m, htons(80))));
    REFUSE(ETH_TYPE_IP, IPPROTO_GRE, match_set_tp_src(&m, htons(1)));
    REFUSE(ETH_TYPE_IP, IPPROTO_ICMPV6, match_set_tp_src(&m, htons(128)));
    REFUSE(ETH_TYPE_IPV6, IPPROTO_ICMP, match_set_tp_src(&m, htons(8)));
    REFUSE(ETH_TYPE_IPV6, 59, match_set_tp_dst(&m, htons(1)));
    REFUSE(ETH_TYPE_IPV6, IPPROTO_IGMP, match_set_tp_dst_masked(&m, 0,
                                                                htons(1)));
#undef REFUSE
    printf("refusals: ok\n");
}

/* Compact keys (bpf/afxdp-flow.h): the size of a mask's lookup keys, and
 * that a lookup key holds exactly the words the mask keeps, masked, with the
 * slot number, whatever the key's other words hold. */
static void
check_lookup_key(const struct afxdp_flow_key *mask, unsigned int slot,
              unsigned int size)
{
    struct afxdp_flow_masks t;
    struct afxdp_flow_key key, other, masked;
    __u64 a[AFXDP_FLOW_KEY_WORDS], b[AFXDP_FLOW_KEY_WORDS];
    uint64_t kw[AFXDP_FLOW_KEY_WORDS], mw[AFXDP_FLOW_KEY_WORDS];
    unsigned int n = 0;

    memset(&t, 0, sizeof t);
    afxdp_flow_slot_set(&t, slot, mask);
    CHECK(t.slots[slot].size == size);
    CHECK(t.masks[slot].mask_slot == 0xff);

    /* Two keys that differ only where the mask is zero. */
    for (size_t i = 0; i < sizeof key; i++) {
        uint8_t m = ((const uint8_t *) mask)[i];

        ((uint8_t *) &key)[i] = random_uint8();
        ((uint8_t *) &other)[i] = ((((uint8_t *) &key)[i] & m)
                                   | (random_uint8() & ~m));
    }
    key.mask_slot = other.mask_slot = 0;
    CHECK(afxdp_flow_lookup_key(&t, slot, &key, a) == size);
    CHECK(afxdp_flow_lookup_key(&t, slot, &other, b) == size);
    CHECK(!memcmp(a, b, sizeof a));

    /* The lookup key is the mask's nonzero words of the masked key (with the
     * slot), in order, then zeros. */
    masked = key;
    masked.mask_slot = slot;
    memcpy(kw, &masked, sizeof kw);
    memcpy(mw, &t.masks[slot], sizeof mw);
    for (int w = 0; w < AFXDP_FLOW_KEY_WORDS; w++) {
        if (size == AFXDP_FLOW_KEY_64) {
            CHECK(a[w] == (kw[w] & mw[w]));
        } else if (mw[w]) {
            CHECK(a[n++] == (kw[w] & mw[w]));
        }
    }
    if (size != AFXDP_FLOW_KEY_64) {
        CHECK(n <= AFXDP_FLOW_KEY_SIZE_WORDS(size));
        for (int i = n; i < AFXDP_FLOW_KEY_WORDS; i++) {
            CHECK(!a[i]);
        }
    }
}

static void
test_compact_keys(void)
{
    struct afxdp_flow_key m;

    /* The slot alone (a catch-all flow): 1 word. */
    memset(&m, 0, sizeof m);
    check_lookup_key(&m, 3, AFXDP_FLOW_KEY_16);

    /* EtherType and fragment bits (the benchmark's megaflow): 2 words. */
    m.eth_type = OVS_BE16_MAX;
    m.nw_frag = 0xff;
    check_lookup_key(&m, 0, AFXDP_FLOW_KEY_16);

    /* Ethernet addresses and EtherType (NORMAL's L2 megaflows): 3. */
    memset(m.eth_dst, 0xff, sizeof m.eth_dst);
    memset(m.eth_src, 0xff, sizeof m.eth_src);
    check_lookup_key(&m, 15, AFXDP_FLOW_KEY_32);

    /* An IPv4 5-tuple: 4 words. */
    memset(&m, 0, sizeof m);
    m.eth_type = OVS_BE16_MAX;
    m.nw_proto = 0xff;
    m.nw_src[0] = m.nw_dst[0] = OVS_BE32_MAX;
    m.tp_src = m.tp_dst = OVS_BE16_MAX;
    check_lookup_key(&m, 7, AFXDP_FLOW_KEY_32);

    /* Plus the Ethernet addresses: 5 words, the whole key. */
    memset(m.eth_dst, 0xff, sizeof m.eth_dst);
    check_lookup_key(&m, 9, AFXDP_FLOW_KEY_64);

    /* IPv6 addresses: the whole key. */
    memset(&m, 0, sizeof m);
    memset(m.nw_src, 0xff, sizeof m.nw_src);
    memset(m.nw_dst, 0xff, sizeof m.nw_dst);
    check_lookup_key(&m, 1, AFXDP_FLOW_KEY_64);
    printf("compact keys: ok\n");
}

/* 'translate' also covers afxdp_offload_translate_actions(), for the
 * actions that do not need a datapath (no output). */

/* Appends to 'odp' OVS's masked set of key attribute 'type', whose value
 * and mask are the 2 * 'size' bytes at 'kv'. */
static void
put_masked_set(struct ofpbuf *odp, enum ovs_key_attr type, const void *kv,
               size_t size)
{
    size_t ofs = nl_msg_start_nested(odp, OVS_ACTION_ATTR_SET_MASKED);

    nl_msg_put_unspec(odp, type, kv, 2 * size);
    nl_msg_end_nested(odp, ofs);
}

void
test_afxdp_offload_put_set_ip(struct ofpbuf *odp,
                              const struct test_set_ip *ip)
{
    if (ip->version == 4) {
        struct ovs_key_ipv4 k[2];

        memset(k, 0, sizeof k);
        k[0].ipv4_src = ip->src[0] & ip->src_mask[0];
        k[0].ipv4_dst = ip->dst[0] & ip->dst_mask[0];
        k[0].ipv4_tos = ip->tos & ip->tos_mask;
        k[0].ipv4_ttl = ip->ttl & ip->ttl_mask;
        k[1].ipv4_src = ip->src_mask[0];
        k[1].ipv4_dst = ip->dst_mask[0];
        k[1].ipv4_tos = ip->tos_mask;
        k[1].ipv4_ttl = ip->ttl_mask;
        put_masked_set(odp, OVS_KEY_ATTR_IPV4, k, sizeof k[0]);
    } else {
        struct ovs_key_ipv6 k[2];
        ovs_be32 a[4];

        memset(k, 0, sizeof k);
        for (int i = 0; i < 4; i++) {
            a[i] = ip->src[i] & ip->src_mask[i];
        }
        memcpy(&k[0].ipv6_src, a, sizeof a);
        memcpy(&k[1].ipv6_src, ip->src_mask, sizeof a);
        for (int i = 0; i < 4; i++) {
            a[i] = ip->dst[i] & ip->dst_mask[i];
        }
        memcpy(&k[0].ipv6_dst, a, sizeof a);
        memcpy(&k[1].ipv6_dst, ip->dst_mask, sizeof a);
        k[0].ipv6_tclass = ip->tos & ip->tos_mask;
        k[0].ipv6_hlimit = ip->ttl & ip->ttl_mask;
        k[0].ipv6_label = ip->label & ip->label_mask;
        k[1].ipv6_tclass = ip->tos_mask;
        k[1].ipv6_hlimit = ip->ttl_mask;
        k[1].ipv6_label = ip->label_mask;
        put_masked_set(odp, OVS_KEY_ATTR_IPV6, k, sizeof k[0]);
    }
}

void
test_afxdp_offload_put_set_l4(struct ofpbuf *odp, uint8_t proto,
                              ovs_be16 src, ovs_be16 src_mask, ovs_be16 dst,
                              ovs_be16 dst_mask)
{
    /* struct ovs_key_tcp and ovs_key_udp are the same two ports. */
    struct ovs_key_tcp k[2] = {
        { .tcp_src = src & src_mask, .tcp_dst = dst & dst_mask },
        { .tcp_src = src_mask, .tcp_dst = dst_mask },
    };

    put_masked_set(odp, proto == IPPROTO_TCP ? OVS_KEY_ATTR_TCP
                                             : OVS_KEY_ATTR_UDP,
                   k, sizeof k[0]);
}

static void
put_push_vlan(struct ofpbuf *odp)
{
    struct ovs_action_push_vlan pv = {
        .vlan_tpid = htons(ETH_TYPE_VLAN_8021Q),
        .vlan_tci = htons(VLAN_CFI | 100),
    };

    nl_msg_put_unspec(odp, OVS_ACTION_ATTR_PUSH_VLAN, &pv, sizeof pv);
}

/* Translates the actions in 'odp', then a drop, and fails unless the
 * result is 'full' (a full offload or not); clears 'odp'.  Returns the
 * entry in '*e'. */
static void
check_actions(const char *what, struct ofpbuf *odp, bool full,
              struct afxdp_flow_entry *e)
{
    nl_msg_put_flag(odp, OVS_ACTION_ATTR_DROP);
    memset(e, 0, sizeof *e);
    if (afxdp_offload_translate_actions(NULL, odp->data, odp->size, e)
        != full) {
        test_afxdp_offload_fail("%s: %s, should be %s", what,
                                full ? "partial" : "full",
                                full ? "full" : "partial");
    }
    ofpbuf_clear(odp);
}

static void
test_translate_actions(void)
{
    uint64_t stub[256 / 8];
    struct ofpbuf odp = OFPBUF_STUB_INITIALIZER(stub);
    struct afxdp_flow_entry e;
    int n = 0, n_partial = 0;

    /* dec_ttl. */
    test_afxdp_offload_put_set_ip(&odp, &(struct test_set_ip) {
        .version = 4, .ttl = 63, .ttl_mask = 0xff });
    check_actions("set IPv4 TTL", &odp, true, &e);
    if (e.acts[0] != AFXDP_FLOW_ACT_SET_IP || e.ip_version != 4
        || e.ip_ttl != 63 || e.ip_ttl_mask != 0xff || e.ip_tos_mask
        || e.ip_addrs || e.acts[1] != AFXDP_FLOW_ACT_DROP) {
        test_afxdp_offload_fail("set IPv4 TTL: wrong entry");
    }
    n++;
    /* mod_nw_tos and mod_nw_ecn: the values under their masks only. */
    test_afxdp_offload_put_set_ip(&odp, &(struct test_set_ip) {
        .version = 4, .tos = 0xff, .tos_mask = 0xfc });
    check_actions("set IPv4 DSCP", &odp, true, &e);
    if (e.ip_tos != 0xfc || e.ip_tos_mask != 0xfc || e.ip_ttl_mask) {
        test_afxdp_offload_fail("set IPv4 DSCP: wrong entry");
    }
    n++;
    test_afxdp_offload_put_set_ip(&odp, &(struct test_set_ip) {
        .version = 6, .tos = 0x2e, .tos_mask = 0xff, .ttl = 7,
        .ttl_mask = 0xff });
    check_actions("set IPv6 traffic class and hop limit", &odp, true, &e);
    if (e.ip_version != 6 || e.ip_tos != 0x2e || e.ip_ttl != 7
        || e.ip_addrs || e.ip6_label_mask) {
        test_afxdp_offload_fail("set IPv6 fields: wrong entry");
    }
    n++;
    /* OVS sets IP fields before it pushes a tag: the program can. */
    test_afxdp_offload_put_set_ip(&odp, &(struct test_set_ip) {
        .version = 4, .ttl = 9, .ttl_mask = 0xff });
    put_push_vlan(&odp);
    check_actions("set TTL, push VLAN", &odp, true, &e);
    n++;
    /* SNAT-like: a source address under a mask, and the source port. */
    test_afxdp_offload_put_set_ip(&odp, &(struct test_set_ip) {
        .version = 4, .src = { htonl(0x0a0909ff) },
        .src_mask = { htonl(0xffffff00) } });
    test_afxdp_offload_put_set_l4(&odp, IPPROTO_TCP, htons(4000),
                                  OVS_BE16_MAX, htons(0xffff), 0);
    check_actions("set IPv4 source and TCP source port", &odp, true, &e);
    if (e.acts[0] != AFXDP_FLOW_ACT_SET_IP || !e.ip_addrs
        || e.ip_src[0] != htonl(0x0a090900)
        || e.ip_src_mask[0] != htonl(0xffffff00) || e.ip_dst_mask[0]
        || e.acts[1] != AFXDP_FLOW_ACT_SET_L4 || e.tp_proto != IPPROTO_TCP
        || e.tp_src != htons(4000) || e.tp_src_mask != OVS_BE16_MAX
        || e.tp_dst || e.tp_dst_mask) {
        test_afxdp_offload_fail("set IPv4 source and port: wrong entry");
    }
    n++;
    test_afxdp_offload_put_set_ip(&odp, &(struct test_set_ip) {
        .version = 6, .dst = { 0, 0, 0, htonl(5) },
        .dst_mask = { 0, 0, 0, OVS_BE32_MAX },
        .label = htonl(0xfffff), .label_mask = htonl(0x0ffff) });
    test_afxdp_offload_put_set_l4(&odp, IPPROTO_UDP, 0, 0, htons(53),
                                  OVS_BE16_MAX);
    check_actions("set IPv6 destination, flow label and UDP port", &odp,
                  true, &e);
    if (!e.ip_addrs || e.ip_dst[3] != htonl(5) || e.ip_dst_mask[2]
        || e.ip6_label != htonl(0x0ffff)
        || e.ip6_label_mask != htonl(0x0ffff) || e.tp_proto != IPPROTO_UDP
        || e.tp_dst != htons(53)) {
        test_afxdp_offload_fail("set IPv6 destination and label: "
                                "wrong entry");
    }
    n++;

    /* Partial offloads. */
    put_push_vlan(&odp);
    test_afxdp_offload_put_set_ip(&odp, &(struct test_set_ip) {
        .version = 4, .ttl = 9, .ttl_mask = 0xff });
    check_actions("push VLAN, then set TTL (IP header behind two tags?)",
                  &odp, false, &e);
    n_partial++;
    put_push_vlan(&odp);
    test_afxdp_offload_put_set_l4(&odp, IPPROTO_UDP, htons(1), OVS_BE16_MAX,
                                  0, 0);
    check_actions("push VLAN, then set a UDP port", &odp, false, &e);
    n_partial++;
    test_afxdp_offload_put_set_ip(&odp, &(struct test_set_ip) {
        .version = 4, .ttl = 9, .ttl_mask = 0xff });
    test_afxdp_offload_put_set_ip(&odp, &(struct test_set_ip) {
        .version = 4, .tos = 0x20, .tos_mask = 0xfc });
    check_actions("two IPv4 sets", &odp, false, &e);
    n_partial++;
    {
        struct ovs_key_ipv4 k[2];

        memset(k, 0, sizeof k);
        k[0].ipv4_proto = IPPROTO_UDP;
        k[1].ipv4_proto = 0xff;
        put_masked_set(&odp, OVS_KEY_ATTR_IPV4, k, sizeof k[0]);
        check_actions("set the IPv4 protocol", &odp, false, &e);
        n_partial++;
    }
    {
        struct ovs_key_sctp k[2] = {
            { .sctp_src = htons(1) }, { .sctp_src = OVS_BE16_MAX },
        };

        put_masked_set(&odp, OVS_KEY_ATTR_SCTP, k, sizeof k[0]);
        check_actions("set an SCTP port (CRC32c)", &odp, false, &e);
        n_partial++;
    }
    {
        struct ovs_key_ipv4 k;
        size_t ofs = nl_msg_start_nested(&odp, OVS_ACTION_ATTR_SET);

        memset(&k, 0, sizeof k);
        k.ipv4_ttl = 9;
        nl_msg_put_unspec(&odp, OVS_KEY_ATTR_IPV4, &k, sizeof k);
        nl_msg_end_nested(&odp, ofs);
        check_actions("unmasked IPv4 set", &odp, false, &e);
        n_partial++;
    }
    ofpbuf_uninit(&odp);
    printf("actions: %d offloaded fully, %d left partial, as they should\n",
           n, n_partial);
}

void
test_afxdp_offload_translate(void)
{
    test_translate_eth();
    test_translate_ipv4();
    test_translate_ipv6();
    test_translate_masked(false);
    test_translate_masked(true);
    test_translate_metadata();
    test_translate_refused();
    test_compact_keys();
    test_translate_actions();
    printf("%d matches refused, each with a reason\n", n_refusals);
    printf("PASS\n");
}
