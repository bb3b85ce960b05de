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

/* Checks of flow offload: the match translation of lib/afxdp-offload.c and
 * the parser, lookup and counters of our XDP program
 * (bpf/afxdp-offload.bpf.h), against OVS's own flow_extract().
 *
 * Commands:
 *
 *   translate
 *       No privileges.  afxdp_offload_translate_match() on matches built
 *       with OVS's match_*() API: keys come out masked, addresses, VLAN
 *       and L4 fields land where bpf/afxdp-flow.h says, metadata is
 *       accepted only when the match asks for zero, and every match the
 *       program cannot compute is refused with a reason.  Prints one line
 *       per group of checks and "PASS".
 *
 *   parse
 *       Root.  Loads our XDP program from its skeleton (not attached to
 *       any device) and runs crafted frames through it with
 *       BPF_PROG_TEST_RUN.  For each frame OVS's flow_extract() gives the
 *       flow; the frame's exact-match megaflow (match_wc_init(), less the
 *       fields the key does not carry), translated, goes into the
 *       program's maps with a drop action.  A frame the program parses
 *       must hit that flow (XDP_DROP, its entry and xdp_offload_dropped
 *       counted, the same bytes and TCP flags as OVS saw), also under a
 *       mask over every field of the key, while the same frame from
 *       another MAC misses; a frame it must leave to the PMD must not be
 *       parsed even under a catch-all flow (xdp_offload_unparsed, and the
 *       socket path's XDP_PASS).  Then all the flows at once, each frame
 *       hitting its own.  Prints one line per frame and
 *       "N hit, M left to the PMD, 0 disagree"; exits 1 on any
 *       disagreement.
 *
 *   cost [REPEAT]
 *       Root.  Average run time of the program per frame (BPF_PROG_TEST_RUN
 *       with REPEAT runs, default 200000) with no flow offloaded, with a
 *       hit in the first mask, and with a hit after K masks.  Not a test:
 *       numbers for the benchmark discussion.
 *
 * Exits 77 when a command needs root and is not run as root. */

#include <config.h>
#undef NDEBUG

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "afxdp-offload.h"
#include "test-afxdp-offload.h"
#include "bpf/afxdp-flow.h"
#include "bpf/afxdp-shared.h"
#include "bpf/afxdp.skel.h"
#include "command-line.h"
#include "csum.h"
#include "dp-packet.h"
#include "flow.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/vlog.h"
#include "ovstest.h"
#include "packets.h"
#include "util.h"

/* The key's bits and OVS's are the same. */
BUILD_ASSERT_DECL(AFXDP_FLOW_VLAN_PRESENT == VLAN_CFI);
BUILD_ASSERT_DECL(AFXDP_FLOW_FRAG_ANY == FLOW_NW_FRAG_ANY);
BUILD_ASSERT_DECL(AFXDP_FLOW_FRAG_LATER == FLOW_NW_FRAG_LATER);
BUILD_ASSERT_DECL(sizeof(struct afxdp_flow_key) == 64);

static void fail(const char *format, ...) OVS_PRINTF_FORMAT(1, 2)
    OVS_NO_RETURN;

static void
fail(const char *format, ...)
{
    va_list args;

    va_start(args, format);
    fputs("test-afxdp-offload: FAILED: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

#define CHECK(COND)                                                     \
    do {                                                                \
        if (!(COND)) {                                                  \
            fail("%s:%d: %s", __FILE__, __LINE__, #COND);               \
        }                                                               \
    } while (0)

/* Appends 'k' to 's', only the fields that are not zero. */
static void
format_key(struct ds *s, const struct afxdp_flow_key *k)
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
    } else if (k->nw_src[0] || k->nw_dst[0]) {
        ds_put_format(s, "ip "IP_FMT">"IP_FMT" ", IP_ARGS(k->nw_src[0]),
                      IP_ARGS(k->nw_dst[0]));
    }
    if (k->mask_slot || k->pad0 || k->pad1) {
        ds_put_format(s, "slot %u pad %u %"PRIu32, k->mask_slot, k->pad0,
                      k->pad1);
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
        format_key(&s, k);
        ds_put_cstr(&s, "\nexpected\n  ");
        format_key(&s, expected);
        fail("%s", ds_cstr(&s));
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
        fail("%s: refused (%s), should be accepted", what, why);
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
        fail("%s: accepted, should be refused", what);
    }
    if (!why[0]) {
        fail("%s: refused with an empty reason", what);
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
    CHECK(!k.mask_slot && !k.pad0 && !k.pad1);
    CHECK(!mk.mask_slot && !mk.pad0 && !mk.pad1);
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

    /* TCP flags and the IPv6 flow label: not in the key. */
    REFUSE(ETH_TYPE_IP, IPPROTO_TCP, match_set_tcp_flags(&m, htons(2)));
    REFUSE(ETH_TYPE_IPV6, IPPROTO_TCP,
           match_set_tcp_flags_masked(&m, 0, htons(TCP_SYN)));
    REFUSE(ETH_TYPE_IPV6, 0, match_set_ipv6_label(&m, htonl(0x12345)));
    REFUSE(ETH_TYPE_IPV6, 0, match_set_ipv6_label(&m, 0));

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

static void
cmd_translate(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    test_translate_eth();
    test_translate_ipv4();
    test_translate_ipv6();
    test_translate_masked(false);
    test_translate_masked(true);
    test_translate_metadata();
    test_translate_refused();
    printf("%d matches refused, each with a reason\n", n_refusals);
    printf("PASS\n");
}

/* The program under test. */

struct prog {
    struct afxdp_bpf *skel;
    int fd;                     /* afxdp_ovs_redir. */
    int masks_fd;               /* afxdp_flow_masks. */
    int flows_fd;               /* afxdp_flows. */
    int egress_fd;              /* afxdp_egress. */
    int stats_fd;               /* afxdp_stats. */
    int n_cpus;
};

/* Loads our XDP program, without attaching it anywhere. */
static void
prog_load(struct prog *p)
{
    int error;

    p->skel = afxdp_bpf__open();
    if (!p->skel) {
        fail("opening the skeleton: %s", ovs_strerror(errno));
    }
    /* The device-bound variant needs a device: not this one. */
    bpf_program__set_autoload(p->skel->progs.afxdp_ovs_dev, false);
    error = afxdp_bpf__load(p->skel);
    if (error) {
        fail("loading the XDP program: %s", ovs_strerror(-error));
    }
    p->fd = bpf_program__fd(p->skel->progs.afxdp_ovs_redir);
    p->masks_fd = bpf_map__fd(p->skel->maps.afxdp_flow_masks);
    p->flows_fd = bpf_map__fd(p->skel->maps.afxdp_flows);
    p->egress_fd = bpf_map__fd(p->skel->maps.afxdp_egress);
    p->stats_fd = bpf_map__fd(p->skel->maps.afxdp_stats);
    p->n_cpus = libbpf_num_possible_cpus();
    CHECK(p->n_cpus > 0);
}

static void
prog_unload(struct prog *p)
{
    afxdp_bpf__destroy(p->skel);
}

/* Program counters, summed over CPUs. */
struct counters {
    uint64_t c[AFXDP_PROG_N_COUNTERS];
};

static void
read_counters(const struct prog *p, struct counters *out)
{
    uint64_t *v = xcalloc(p->n_cpus, sizeof *v);

    for (uint32_t i = 0; i < AFXDP_PROG_N_COUNTERS; i++) {
        CHECK(!bpf_map_lookup_elem(p->stats_fd, &i, v));
        out->c[i] = 0;
        for (int cpu = 0; cpu < p->n_cpus; cpu++) {
            out->c[i] += v[cpu];
        }
    }
    free(v);
}

/* Writes the mask table: 'n' masks, tried in the order of 'slots'. */
static void
set_masks(const struct prog *p, int n, const int slots[],
          const struct afxdp_flow_key masks[])
{
    struct afxdp_flow_masks t;
    uint32_t zero = 0;

    memset(&t, 0, sizeof t);
    t.n_masks = n;
    for (int i = 0; i < n; i++) {
        t.order[i] = slots[i];
        t.masks[slots[i]] = masks[i];
    }
    CHECK(!bpf_map_update_elem(p->masks_fd, &zero, &t, BPF_ANY));
}

/* Adds the flow 'key' (masked) in mask slot 'slot' with actions 'acts'
 * (up to AFXDP_FLOW_MAX_ACTIONS). */
static void
add_flow(const struct prog *p, const struct afxdp_flow_key *key, int slot,
         const struct afxdp_flow_entry *entry)
{
    struct afxdp_flow_entry *v = xcalloc(p->n_cpus, sizeof *v);
    struct afxdp_flow_key k = *key;
    int ret;

    k.mask_slot = slot;
    for (int i = 0; i < p->n_cpus; i++) {
        v[i] = *entry;
    }
    ret = bpf_map_update_elem(p->flows_fd, &k, v, BPF_NOEXIST);
    if (ret) {
        fail("adding a flow: %s", ovs_strerror(-ret));
    }
    free(v);
}

/* Reads the counters of flow 'key' in 'slot', summed over CPUs. */
static void
flow_counts(const struct prog *p, const struct afxdp_flow_key *key, int slot,
            struct afxdp_flow_entry *sum)
{
    struct afxdp_flow_entry *v = xcalloc(p->n_cpus, sizeof *v);
    struct afxdp_flow_key k = *key;

    k.mask_slot = slot;
    CHECK(!bpf_map_lookup_elem(p->flows_fd, &k, v));
    memset(sum, 0, sizeof *sum);
    for (int i = 0; i < p->n_cpus; i++) {
        sum->packets += v[i].packets;
        sum->bytes += v[i].bytes;
        sum->tcp_flags |= v[i].tcp_flags;
        sum->used_ns = MAX(sum->used_ns, v[i].used_ns);
    }
    free(v);
}

/* Removes every flow and mask. */
static void
clear_flows(const struct prog *p)
{
    struct afxdp_flow_key k, next;

    set_masks(p, 0, NULL, NULL);
    while (!bpf_map_get_next_key(p->flows_fd, NULL, &next)) {
        k = next;
        CHECK(!bpf_map_delete_elem(p->flows_fd, &k));
    }
}

/* Runs the program 'repeat' times on 'frame'.  Returns its XDP action and
 * the average run time in ns in '*ns' (if nonnull). */
static uint32_t
run(const struct prog *p, const struct dp_packet *frame, int repeat,
    uint32_t *ns)
{
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = dp_packet_data(frame),
                .data_size_in = dp_packet_size(frame),
                .repeat = repeat);
    int ret = bpf_prog_test_run_opts(p->fd, &opts);

    if (ret) {
        fail("BPF_PROG_TEST_RUN: %s", ovs_strerror(-ret));
    }
    if (ns) {
        *ns = opts.duration;
    }
    return opts.retval;
}

/* 'parse': the program against flow_extract(). */

/* Clears from 'wc' the fields of 'flow' the key does not carry: an
 * OpenFlow rule on them makes a megaflow the program cannot take, and
 * without one OVS leaves them out of the megaflow. */
static void
clear_unkeyed(struct flow_wildcards *wc, const struct flow *flow, int wild)
{
    wc->masks.tcp_flags = 0;
    wc->masks.ipv6_label = 0;
    memset(wc->masks.mpls_lse, 0, sizeof wc->masks.mpls_lse);
    if (!is_ip_any(flow)) {
        /* ARP's fields, in the members IP uses. */
        wc->masks.nw_src = wc->masks.nw_dst = 0;
        wc->masks.nw_proto = 0;
        wc->masks.arp_sha = wc->masks.arp_tha = eth_addr_zero;
    }
    if (wild & FRAME_WILD_TP) {
        wc->masks.tp_src = wc->masks.tp_dst = 0;
    }
}

/* One frame of afxdp_offload_frames[], with OVS's view of it. */
struct frame {
    const struct frame_spec *s;
    struct dp_packet *pkt;      /* The frame. */
    struct dp_packet *other;    /* The same from another Ethernet source. */
    struct flow flow;           /* flow_extract() of 'pkt'. */
    const char *why;            /* Why its megaflow cannot be offloaded, or
                                 * NULL. */
    struct afxdp_flow_key key;  /* Its megaflow, translated. */
    struct afxdp_flow_key mask;
};

static void
frame_init(struct frame *f, int index)
{
    struct match m;

    f->s = &afxdp_offload_frames[index];
    f->pkt = afxdp_offload_build_frame(
        index, afxdp_offload_frame_src(index, false));
    f->other = afxdp_offload_build_frame(
        index, afxdp_offload_frame_src(index, true));
    pkt_metadata_init(&f->pkt->md, u32_to_odp(1));
    flow_extract(f->pkt, &f->flow);
    match_wc_init(&m, &f->flow);
    clear_unkeyed(&m.wc, &f->flow, f->s->wild);
    f->why = afxdp_offload_translate_match(&m, &f->key, &f->mask);
}

static void
frame_destroy(struct frame *f)
{
    dp_packet_delete(f->pkt);
    dp_packet_delete(f->other);
}

/* Counters that moved from 'a' to 'b', as text. */
static void
format_moved(struct ds *s, const struct counters *a, const struct counters *b)
{
    static const char *names[AFXDP_PROG_N_COUNTERS] = {
        [AFXDP_PROG_REDIRECTED] = "redirected",
        [AFXDP_PROG_NO_SOCKET] = "no_socket",
        [AFXDP_PROG_QUEUE_RANGE] = "queue_range",
        [AFXDP_PROG_HINTS_FAILED] = "hints_failed",
        [AFXDP_PROG_OFFLOAD_FORWARDED] = "offload_forwarded",
        [AFXDP_PROG_OFFLOAD_DROPPED] = "offload_dropped",
        [AFXDP_PROG_OFFLOAD_MARKED] = "offload_marked",
        [AFXDP_PROG_OFFLOAD_MISS] = "offload_miss",
        [AFXDP_PROG_OFFLOAD_UNPARSED] = "offload_unparsed",
        [AFXDP_PROG_OFFLOAD_ACTION_ERROR] = "offload_action_error",
    };

    ds_put_cstr(s, "counters moved:");
    for (int i = 0; i < AFXDP_PROG_N_COUNTERS; i++) {
        if (a->c[i] != b->c[i]) {
            ds_put_format(s, " %s+%"PRIu64, names[i], b->c[i] - a->c[i]);
        }
    }
}

/* Runs 'pkt' and checks that it gives 'action' and moves exactly the
 * counters 'c1' and 'c2' (-1 for none) by one.  Appends what differs to
 * 'err'. */
static void
run_expect(const struct prog *p, const struct dp_packet *pkt,
           const char *what, uint32_t action, int c1, int c2, struct ds *err)
{
    struct counters before, after, expected;
    uint32_t ret;

    read_counters(p, &before);
    ret = run(p, pkt, 1, NULL);
    read_counters(p, &after);

    expected = before;
    if (c1 >= 0) {
        expected.c[c1]++;
    }
    if (c2 >= 0) {
        expected.c[c2]++;
    }
    if (ret != action || memcmp(&after, &expected, sizeof after)) {
        ds_put_format(err, "; %s: action %"PRIu32" (expected %"PRIu32"), ",
                      what, ret, action);
        format_moved(err, &before, &after);
    }
}

/* The full mask: every field of the key. */
static void
full_mask(struct afxdp_flow_key *m)
{
    memset(m, 0xff, sizeof *m);
    m->mask_slot = m->pad0 = 0;
    m->pad1 = 0;
}

static const struct afxdp_flow_entry drop_entry = {
    .acts = { AFXDP_FLOW_ACT_DROP },
};

/* Frame 'f' (number 'i'), which the program must parse as OVS does: it
 * hits its megaflow, also under the full mask, and misses from another
 * Ethernet source. */
static void
check_hit(const struct prog *p, const struct frame *f, int i, struct ds *err)
{
    int slot = i % AFXDP_FLOW_MAX_MASKS;
    struct afxdp_flow_entry counts;
    struct afxdp_flow_key full;

    if (f->why) {
        ds_put_format(err, "; OVS's flow not offloadable: %s", f->why);
        return;
    }
    clear_flows(p);
    set_masks(p, 1, &slot, &f->mask);
    add_flow(p, &f->key, slot, &drop_entry);
    run_expect(p, f->pkt, "frame", XDP_DROP, AFXDP_PROG_OFFLOAD_DROPPED, -1,
               err);
    run_expect(p, f->other, "from another source", XDP_PASS,
               AFXDP_PROG_OFFLOAD_MISS, AFXDP_PROG_NO_SOCKET, err);

    /* The entry counted the frame as OVS would. */
    flow_counts(p, &f->key, slot, &counts);
    if (counts.packets != 1 || counts.bytes != dp_packet_size(f->pkt)
        || counts.tcp_flags != ntohs(f->flow.tcp_flags) || !counts.used_ns) {
        ds_put_format(err, "; entry counted %"PRIu64" packets, %"PRIu64
                      " bytes (frame %"PRIu32"), TCP flags %#"PRIx16
                      " (OVS %#"PRIx16")", (uint64_t) counts.packets,
                      (uint64_t) counts.bytes,
                      dp_packet_size(f->pkt), (uint16_t) counts.tcp_flags,
                      ntohs(f->flow.tcp_flags));
    }

    /* Under a mask over every field: what OVS leaves out of its megaflow
     * (ports of a protocol without any, ARP's addresses...), the program
     * leaves at zero. */
    slot = (slot + 1) % AFXDP_FLOW_MAX_MASKS;
    full_mask(&full);
    clear_flows(p);
    set_masks(p, 1, &slot, &full);
    add_flow(p, &f->key, slot, &drop_entry);
    run_expect(p, f->pkt, "under the full mask", XDP_DROP,
               AFXDP_PROG_OFFLOAD_DROPPED, -1, err);
}

/* Frame 'f' (number 'i'), which the program must leave to the PMD, even
 * with a flow that matches every frame. */
static void
check_pmd(const struct prog *p, const struct frame *f, int i, struct ds *err)
{
    int slot = i % AFXDP_FLOW_MAX_MASKS;
    struct afxdp_flow_key zero;

    memset(&zero, 0, sizeof zero);
    clear_flows(p);
    set_masks(p, 1, &slot, &zero);
    add_flow(p, &zero, slot, &drop_entry);
    run_expect(p, f->pkt, "frame", XDP_PASS, AFXDP_PROG_OFFLOAD_UNPARSED,
               AFXDP_PROG_NO_SOCKET, err);
}

/* Installs every megaflow of 'fs' that can be offloaded, at once, each
 * mask in a slot of its own (in the order the update protocol of
 * bpf/afxdp-flow.h asks for: flows first, then the mask table).  Stores
 * each frame's slot in 'slot_of'.  Returns the number of masks. */
static int
install_all(const struct prog *p, const struct frame fs[], int n,
            int slot_of[], int *n_flows)
{
    struct afxdp_flow_key masks[AFXDP_FLOW_MAX_MASKS];
    struct afxdp_flow_key ordered[AFXDP_FLOW_MAX_MASKS];
    int slots[AFXDP_FLOW_MAX_MASKS];
    int n_masks = 0;

    clear_flows(p);
    *n_flows = 0;
    for (int i = 0; i < n; i++) {
        int s;

        if (fs[i].s->expect != FRAME_HIT || fs[i].why) {
            continue;
        }
        for (s = 0; s < n_masks; s++) {
            if (!memcmp(&masks[s], &fs[i].mask, sizeof masks[s])) {
                break;
            }
        }
        if (s == n_masks) {
            CHECK(n_masks < AFXDP_FLOW_MAX_MASKS);
            masks[n_masks++] = fs[i].mask;
        }
        slot_of[i] = s;
        add_flow(p, &fs[i].key, s, &drop_entry);
        (*n_flows)++;
    }
    /* The lookup tries the slots from the last to the first. */
    memset(ordered, 0, sizeof ordered);
    memset(slots, 0, sizeof slots);
    for (int i = 0; i < n_masks; i++) {
        slots[i] = n_masks - 1 - i;
        ordered[i] = masks[slots[i]];
    }
    set_masks(p, n_masks, slots, ordered);
    return n_masks;
}

/* All the megaflows of 'fs' at once: each frame must hit its own flow,
 * and only once.  Returns the number of disagreements. */
static int
check_all_at_once(const struct prog *p, const struct frame fs[], int n)
{
    int *slot_of = xcalloc(n, sizeof *slot_of);
    int n_masks, n_flows, bad = 0;

    n_masks = install_all(p, fs, n, slot_of, &n_flows);
    for (int i = 0; i < n; i++) {
        bool hit = fs[i].s->expect == FRAME_HIT && !fs[i].why;
        uint32_t want = hit ? XDP_DROP : XDP_PASS;
        uint32_t ret = run(p, fs[i].pkt, 1, NULL);

        if (ret != want) {
            printf("all at once: %s: action %"PRIu32", expected %"PRIu32"\n",
                   fs[i].s->name, ret, want);
            bad++;
        }
    }
    for (int i = 0; i < n; i++) {
        struct afxdp_flow_entry counts;

        if (fs[i].s->expect != FRAME_HIT || fs[i].why) {
            continue;
        }
        flow_counts(p, &fs[i].key, slot_of[i], &counts);
        if (counts.packets != 1) {
            printf("all at once: the flow of %s counted %"PRIu64" packets\n",
                   fs[i].s->name, (uint64_t) counts.packets);
            bad++;
        }
    }
    printf("all %d flows at once, in %d masks: %s\n", n_flows, n_masks,
           bad ? "DISAGREE" : "each frame hit its own flow");
    clear_flows(p);
    free(slot_of);
    return bad;
}

static void
cmd_parse(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    int n = afxdp_offload_n_frames;
    struct frame *fs = xcalloc(n, sizeof *fs);
    int n_hit = 0, n_pmd = 0, n_bad = 0;
    struct prog p;

    prog_load(&p);
    for (int i = 0; i < n; i++) {
        struct ds err = DS_EMPTY_INITIALIZER;
        struct frame *f = &fs[i];

        frame_init(f, i);
        if (f->s->expect == FRAME_HIT) {
            check_hit(&p, f, i, &err);
        } else {
            check_pmd(&p, f, i, &err);
        }
        printf("%-48s ", f->s->name);
        if (err.length) {
            struct ds key = DS_EMPTY_INITIALIZER;

            format_key(&key, &f->key);
            printf("DISAGREE%s (OVS's key: %s)\n", ds_cstr(&err),
                   ds_cstr(&key));
            ds_destroy(&key);
            n_bad++;
        } else if (f->s->expect == FRAME_HIT) {
            printf("hit\n");
            n_hit++;
        } else {
            printf("left to the PMD%s%s%s\n", f->why ? " (OVS's flow: " : "",
                   f->why ? f->why : "", f->why ? ")" : "");
            n_pmd++;
        }
        ds_destroy(&err);
    }
    n_bad += check_all_at_once(&p, fs, n);

    for (int i = 0; i < n; i++) {
        frame_destroy(&fs[i]);
    }
    free(fs);
    prog_unload(&p);
    printf("%d hit, %d left to the PMD, %d disagree\n", n_hit, n_pmd, n_bad);
    exit(n_bad ? 1 : 0);
}

/* 'cost': run time per frame. */

/* Returns the index of the frame called 'name'. */
static int
frame_by_name(const char *name)
{
    for (size_t i = 0; i < afxdp_offload_n_frames; i++) {
        if (!strcmp(afxdp_offload_frames[i].name, name)) {
            return i;
        }
    }
    OVS_NOT_REACHED();
}

/* Prints the average run time of 'pkt' over 'repeat' runs. */
static void
print_cost(const struct prog *p, const struct dp_packet *pkt, int repeat,
           const char *what, uint32_t expected)
{
    uint32_t ns;
    uint32_t ret = run(p, pkt, repeat, &ns);

    CHECK(ret == expected);
    printf("%-44s %6"PRIu32" ns/frame\n", what, ns);
}

static void
cmd_cost(struct ovs_cmdl_context *ctx)
{
    int repeat = ctx->argc > 1 ? atoi(ctx->argv[1]) : 200000;
    struct afxdp_flow_key masks[AFXDP_FLOW_MAX_MASKS];
    int slots[AFXDP_FLOW_MAX_MASKS];
    struct frame f, pmd;
    struct prog p;

    CHECK(repeat > 0);
    prog_load(&p);
    frame_init(&f, frame_by_name("IPv4 UDP"));
    frame_init(&pmd, frame_by_name("IPv6 hop-by-hop options, UDP"));
    CHECK(!f.why && pmd.s->expect == FRAME_PMD);

    printf("%d runs of a %"PRIu32"-byte IPv4 UDP frame each "
           "(BPF_PROG_TEST_RUN)\n", repeat, dp_packet_size(f.pkt));
    clear_flows(&p);
    print_cost(&p, f.pkt, repeat, "no flow offloaded (table empty)",
               XDP_PASS);

    /* Masks that no flow uses (each with a bit of its own) before the one
     * that hits. */
    for (int i = 0; i < AFXDP_FLOW_MAX_MASKS; i++) {
        memset(&masks[i], 0, sizeof masks[i]);
        masks[i].nw_ttl = i + 1;
    }
    for (int k = 1; k <= AFXDP_FLOW_MAX_MASKS; k *= 2) {
        char what[64];

        clear_flows(&p);
        for (int i = 0; i < k; i++) {
            slots[i] = i;
        }
        masks[k - 1] = f.mask;
        set_masks(&p, k, slots, masks);
        add_flow(&p, &f.key, k - 1, &drop_entry);
        snprintf(what, sizeof what, "hit in mask %d of %d (drop)", k, k);
        print_cost(&p, f.pkt, repeat, what, XDP_DROP);
        if (k == AFXDP_FLOW_MAX_MASKS) {
            print_cost(&p, f.other, repeat, "miss after 16 masks", XDP_PASS);
            print_cost(&p, pmd.pkt, repeat,
                       "not parsed (IPv6 extension header)", XDP_PASS);
        }
        /* Back to a mask that misses. */
        memset(&masks[k - 1], 0, sizeof masks[k - 1]);
        masks[k - 1].nw_ttl = k;
    }
    clear_flows(&p);
    frame_destroy(&f);
    frame_destroy(&pmd);
    prog_unload(&p);
}

static const struct ovs_cmdl_command commands[] = {
    {"translate", "", 0, 0, cmd_translate, OVS_RO},
    {"parse", "", 0, 0, cmd_parse, OVS_RO},
    {"cost", "[REPEAT]", 0, 1, cmd_cost, OVS_RO},
    {NULL, NULL, 0, 0, NULL, OVS_RO},
};

static void
test_afxdp_offload_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx = { .argc = argc - 1, .argv = argv + 1 };

    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_OFF);
    if (argc > 1 && strcmp(argv[1], "translate") && geteuid()) {
        printf("test-afxdp-offload: skipped: %s needs root\n", argv[1]);
        exit(77);
    }
    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-afxdp-offload", test_afxdp_offload_main);
