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

/* The 'actions' command of 'ovstest test-afxdp-offload' (see
 * test-afxdp-offload.c): our XDP program's actions against OVS's
 * odp_execute_actions(), frame by frame. */

#include <config.h>
#undef NDEBUG

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "afxdp-compat.h"
#include "afxdp-flow-table.h"
#include "afxdp-offload.h"
#include "afxdp-rxcsum.h"
#include "bpf/afxdp-flow.h"
#include "bpf/afxdp-hints.h"
#include "bpf/afxdp-shared.h"
#include "bpf/afxdp.skel.h"
#include "command-line.h"
#include "csum.h"
#include "dp-packet.h"
#include "flow.h"
#include "netlink.h"
#include "odp-execute.h"
#include "odp-util.h"
#include "odp-netlink.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "ovstest.h"
#include "packets.h"
#include "random.h"
#include "test-afxdp-offload-prog.h"
#include "test-afxdp-offload.h"
#include "timeval.h"
#include "util.h"

/* 'actions': the program's actions against OVS's odp_execute_actions(). */

/* An action of a flow, described once for both. */
struct act_spec {
    enum afxdp_flow_act type;
    uint16_t tpid, tci;             /* PUSH_VLAN: TPID, TCI on the wire. */
    struct eth_addr dst, dst_mask;  /* SET_ETH; an all-zero mask stands */
    struct eth_addr src, src_mask;  /* for an unmasked set. */
    struct test_set_ip ip;          /* SET_IP (always a masked set). */
    uint8_t tp_proto;               /* SET_L4: IPPROTO_TCP or _UDP. */
    ovs_be16 tp_src, tp_src_mask, tp_dst, tp_dst_mask;
};

struct act_case {
    const char *frame;              /* Name of a frame that hits. */
    const char *what;
    struct act_spec acts[AFXDP_FLOW_MAX_ACTIONS];
};

#define PUSH(TPID, TCI) { .type = AFXDP_FLOW_ACT_PUSH_VLAN, .tpid = TPID, \
                          .tci = TCI }
#define POP { .type = AFXDP_FLOW_ACT_POP_VLAN }
#define OUTPUT { .type = AFXDP_FLOW_ACT_OUTPUT }
#define SET_ETH(DST, DM, SRC, SM) { .type = AFXDP_FLOW_ACT_SET_ETH, \
                                    .dst = ETH_ADDR_C DST,           \
                                    .dst_mask = ETH_ADDR_C DM,       \
                                    .src = ETH_ADDR_C SRC,           \
                                    .src_mask = ETH_ADDR_C SM }
#define SET_IP(V, TOS, TM, TTL, LM)                                     \
    { .type = AFXDP_FLOW_ACT_SET_IP,                                    \
      .ip = { .version = V, .tos = TOS, .tos_mask = TM, .ttl = TTL,     \
              .ttl_mask = LM } }
/* IPv4 source and destination addresses under their masks. */
#define SET_IP4(S, SM, D, DM)                                           \
    { .type = AFXDP_FLOW_ACT_SET_IP,                                    \
      .ip = { .version = 4,                                             \
              .src = { CONSTANT_HTONL(S) },                             \
              .src_mask = { CONSTANT_HTONL(SM) },                       \
              .dst = { CONSTANT_HTONL(D) },                             \
              .dst_mask = { CONSTANT_HTONL(DM) } } }
#define W4(A, B, C, D) { CONSTANT_HTONL(A), CONSTANT_HTONL(B),           \
                         CONSTANT_HTONL(C), CONSTANT_HTONL(D) }
#define SET_L4(PROTO, S, SM, D, DM)                                     \
    { .type = AFXDP_FLOW_ACT_SET_L4, .tp_proto = PROTO,                 \
      .tp_src = CONSTANT_HTONS(S), .tp_src_mask = CONSTANT_HTONS(SM),   \
      .tp_dst = CONSTANT_HTONS(D), .tp_dst_mask = CONSTANT_HTONS(DM) }
#define ALL (ff, ff, ff, ff, ff, ff)
#define NONE (00, 00, 00, 00, 00, 00)

static const struct act_case act_cases[] = {
    { "IPv4 UDP", "output", { OUTPUT } },
    { "IPv4 UDP", "push 802.1Q VID 10 PCP 3, output",
      { PUSH(ETH_TYPE_VLAN_8021Q, 0x600a), OUTPUT } },
    { "IPv6 TCP", "push 802.1ad VID 4095, DEI asked, output",
      { PUSH(ETH_TYPE_VLAN_8021AD, 0x1fff), OUTPUT } },
    { "Ethernet header only", "push 802.1Q VID 1, output",
      { PUSH(ETH_TYPE_VLAN_8021Q, 0x0001), OUTPUT } },
    { "802.1Q IPv4 UDP", "push a second tag, output",
      { PUSH(ETH_TYPE_VLAN_8021AD, 0x0064), OUTPUT } },
    { "802.1Q IPv4 UDP", "pop, output", { POP, OUTPUT } },
    { "802.1ad IPv6 ICMPv6 echo", "pop, output", { POP, OUTPUT } },
    { "IPv4 TCP", "pop an absent tag, output", { POP, OUTPUT } },
    { "802.1Q ARP request", "pop, push 802.1Q VID 20, output",
      { POP, PUSH(ETH_TYPE_VLAN_8021Q, 0x0014), OUTPUT } },
    { "IPv4 UDP", "set both addresses, output",
      { SET_ETH((02, 11, 22, 33, 44, 55), NONE, (02, aa, bb, cc, dd, ee),
                NONE), OUTPUT } },
    { "IPv6 UDP", "set masked addresses, output",
      { SET_ETH((02, 11, 22, 33, 44, 55), (ff, 00, ff, 00, 0f, f0),
                (00, 00, 00, 00, 00, 7e), (00, 00, 00, 00, 00, ff)),
        OUTPUT } },
    { "802.1Q IPv6 UDP", "pop, set addresses, push 802.1ad, output",
      { POP, SET_ETH((02, 11, 22, 33, 44, 55), ALL, (02, aa, bb, cc, dd, ee),
                     (00, ff, 00, ff, 00, ff)),
        PUSH(ETH_TYPE_VLAN_8021AD, 0xe123), OUTPUT } },
    { "IPv4 UDP", "set TTL (dec_ttl), output",
      { SET_IP(4, 0, 0, 63, 0xff), OUTPUT } },
    { "IPv4 TOS 0xb9 (DSCP and ECN)", "set DSCP, set MAC addresses, output",
      { SET_IP(4, 0x28, 0xfc, 0, 0),
        SET_ETH((02, 11, 22, 33, 44, 55), NONE, (02, aa, bb, cc, dd, ee),
                NONE), OUTPUT } },
    { "IPv4 TTL 255", "set ECN and TTL, output",
      { SET_IP(4, 0x03, 0x03, 254, 0xff), OUTPUT } },
    { "IPv4 TTL 1", "set TTL to what it is, output",
      { SET_IP(4, 0, 0, 1, 0xff), OUTPUT } },
    { "802.1Q IPv4 UDP", "pop, set TTL, output",
      { POP, SET_IP(4, 0, 0, 7, 0xff), OUTPUT } },
    { "802.1Q IPv4 UDP", "set TOS and TTL behind the tag, output",
      { SET_IP(4, 0xe0, 0xff, 9, 0x0f), OUTPUT } },
    { "IPv6 TCP", "set hop limit and traffic class, output",
      { SET_IP(6, 0xb8, 0xfc, 63, 0xff), OUTPUT } },
    { "802.1ad IPv6 ICMPv6 echo", "set traffic class, pop, output",
      { SET_IP(6, 0x01, 0x03, 0, 0), POP, OUTPUT } },
    /* Addresses and ports, with OVS's L4 checksum updates. */
    { "IPv4 TCP", "set IPv4 source (SNAT), output",
      { SET_IP4(0xc6336401, 0xffffffff, 0, 0), OUTPUT } },
    { "IPv4 UDP", "set IPv4 destination and port (DNAT), output",
      { SET_IP4(0, 0, 0xac100a0b, 0xffffffff),
        SET_L4(IPPROTO_UDP, 0, 0, 8053, 0xffff), OUTPUT } },
    { "IPv4 UDP without checksum", "set addresses and port, output",
      { SET_IP4(0x0b000001, 0xffffffff, 0x0c000002, 0xffffffff),
        SET_L4(IPPROTO_UDP, 1234, 0xffff, 0, 0), OUTPUT } },
    { "IPv4 ICMP echo request", "set IPv4 destination, output",
      { SET_IP4(0, 0, 0x08080808, 0xffffffff), OUTPUT } },
    { "IPv4 SCTP", "set IPv4 source, output",
      { SET_IP4(0x0a0a0a0a, 0xffffffff, 0, 0), OUTPUT } },
    { "IPv4 later fragment", "set IPv4 source, output",
      { SET_IP4(0x0a0a0a0a, 0xffffffff, 0, 0), OUTPUT } },
    { "IPv4 later fragment, too short for TCP", "set IPv4 source, output",
      { SET_IP4(0x0a0a0a0a, 0xffffffff, 0, 0), OUTPUT } },
    { "IPv4 with IP options, UDP", "set source /24 and TTL, output",
      { { .type = AFXDP_FLOW_ACT_SET_IP,
          .ip = { .version = 4, .src = W4(0xc0000200, 0, 0, 0),
                  .src_mask = W4(0xffffff00, 0, 0, 0), .ttl = 5,
                  .ttl_mask = 0xff } }, OUTPUT } },
    { "IPv4 UDP with Ethernet padding", "set both IPv4 addresses, output",
      { SET_IP4(0x01020304, 0xffffffff, 0x05060708, 0xffffffff), OUTPUT } },
    { "IPv4 TCP", "set IPv4 source to what it is, output",
      { SET_IP4(0x0a000101, 0xffffffff, 0, 0), OUTPUT } },
    { "802.1Q IPv4 UDP", "pop, set destination and UDP port, output",
      { POP, SET_IP4(0, 0, 0x0a0000fe, 0xffffffff),
        SET_L4(IPPROTO_UDP, 0, 0, 5000, 0xffff), OUTPUT } },
    { "IPv4 TCP with options, all flags", "set TCP ports (source masked)",
      { SET_L4(IPPROTO_TCP, 0x1200, 0xff00, 8443, 0xffff), OUTPUT } },
    { "IPv4 last fragment", "set TCP ports (bytes of a later fragment)",
      { SET_L4(IPPROTO_TCP, 1, 0xffff, 2, 0xffff), OUTPUT } },
    { "IPv4 later fragment, as if TCP data offset 15",
      "set TCP ports: not done (no TCP payload)",
      { SET_L4(IPPROTO_TCP, 1, 0xffff, 2, 0xffff), OUTPUT } },
    { "IPv4 TCP", "set TCP destination to what it is, output",
      { SET_L4(IPPROTO_TCP, 0, 0, 443, 0xffff), OUTPUT } },
    { "IPv6 TCP", "set IPv6 source, output",
      { { .type = AFXDP_FLOW_ACT_SET_IP,
          .ip = { .version = 6,
                  .src = W4(0x20010db8, 0, 0, 0x00000001),
                  .src_mask = W4(0xffffffff, 0xffffffff, 0xffffffff,
                                 0xffffffff) } }, OUTPUT } },
    { "IPv6 UDP", "set IPv6 destination /96 and UDP port, output",
      { { .type = AFXDP_FLOW_ACT_SET_IP,
          .ip = { .version = 6, .dst = W4(0, 0, 0, 0x0a000001),
                  .dst_mask = W4(0, 0, 0, 0xffffffff) } },
        SET_L4(IPPROTO_UDP, 0, 0, 5353, 0xffff), OUTPUT } },
    { "IPv6 ICMPv6 echo request", "set both IPv6 addresses, output",
      { { .type = AFXDP_FLOW_ACT_SET_IP,
          .ip = { .version = 6, .src = W4(0xfe800000, 0, 0, 0x11),
                  .src_mask = W4(0xffffffff, 0, 0, 0xffffffff),
                  .dst = W4(0xfe800000, 0, 0, 0x22),
                  .dst_mask = W4(0xffffffff, 0xffffffff, 0xffffffff,
                                 0xffffffff) } }, OUTPUT } },
    { "IPv6 traffic class 0xa5, flow label", "set flow label (masked)",
      { { .type = AFXDP_FLOW_ACT_SET_IP,
          .ip = { .version = 6, .label = CONSTANT_HTONL(0x12345),
                  .label_mask = CONSTANT_HTONL(0xff0ff) } }, OUTPUT } },
    { "IPv4 TCP", "drop", { { .type = AFXDP_FLOW_ACT_DROP } } },
    { "IPv4 TCP", "partial offload (mark)",
      { { .type = AFXDP_FLOW_ACT_MARK } } },
};

#undef PUSH
#undef POP
#undef OUTPUT
#undef SET_ETH
#undef SET_IP
#undef SET_IP4
#undef W4
#undef SET_L4
#undef ALL
#undef NONE

/* Device that OUTPUT redirects to: any that exists will do, since
 * BPF_PROG_TEST_RUN only returns XDP_REDIRECT and does not send. */
#define ACT_EGRESS_IFINDEX 1        /* lo, in every network namespace. */
#define ACT_MARK 0x1234

/* Appends OVS's datapath action for 'a' (not OUTPUT, DROP or MARK, which
 * end a flow) to 'odp'. */
static void
act_put_odp(const struct act_spec *a, struct ofpbuf *odp)
{
    struct ovs_action_push_vlan pv;
    struct ovs_key_ethernet kv[2];
    bool masked;
    size_t ofs;

    switch (a->type) {
    case AFXDP_FLOW_ACT_PUSH_VLAN:
        /* OVS's TCI has VLAN_CFI for "present". */
        pv.vlan_tpid = htons(a->tpid);
        pv.vlan_tci = htons(a->tci | VLAN_CFI);
        nl_msg_put_unspec(odp, OVS_ACTION_ATTR_PUSH_VLAN, &pv, sizeof pv);
        break;
    case AFXDP_FLOW_ACT_POP_VLAN:
        nl_msg_put_flag(odp, OVS_ACTION_ATTR_POP_VLAN);
        break;
    case AFXDP_FLOW_ACT_SET_ETH:
        masked = !eth_addr_is_zero(a->dst_mask)
                 || !eth_addr_is_zero(a->src_mask);
        /* OVS's masked sets carry the value under its mask, as odp-util
         * makes them (odp_execute_actions() relies on it). */
        kv[0].eth_dst = a->dst;
        kv[0].eth_src = a->src;
        kv[1].eth_dst = a->dst_mask;
        kv[1].eth_src = a->src_mask;
        if (masked) {
            for (int j = 0; j < ETH_ADDR_LEN; j++) {
                kv[0].eth_dst.ea[j] &= a->dst_mask.ea[j];
                kv[0].eth_src.ea[j] &= a->src_mask.ea[j];
            }
        }
        ofs = nl_msg_start_nested(odp, masked ? OVS_ACTION_ATTR_SET_MASKED
                                              : OVS_ACTION_ATTR_SET);
        nl_msg_put_unspec(odp, OVS_KEY_ATTR_ETHERNET, kv,
                          (masked ? 2 : 1) * sizeof kv[0]);
        nl_msg_end_nested(odp, ofs);
        break;
    case AFXDP_FLOW_ACT_SET_IP:
        test_afxdp_offload_put_set_ip(odp, &a->ip);
        break;
    case AFXDP_FLOW_ACT_SET_L4:
        test_afxdp_offload_put_set_l4(odp, a->tp_proto, a->tp_src,
                                      a->tp_src_mask, a->tp_dst,
                                      a->tp_dst_mask);
        break;
    case AFXDP_FLOW_ACT_NONE:
    case AFXDP_FLOW_ACT_OUTPUT:
    case AFXDP_FLOW_ACT_DROP:
    case AFXDP_FLOW_ACT_MARK:
    default:
        break;
    }
}

/* Makes OVS's datapath actions for 'acts', without the final output
 * (which needs a datapath), into 'odp', and the program's entry for them
 * into 'e' with lib/afxdp-offload.c's own translation, ended by the
 * OUTPUT, DROP or MARK of 'acts' (a MARK alone: the PMD runs the rest).
 * So the program's actions are checked together with their
 * translation. */
static void
act_translate(const struct act_spec acts[], struct afxdp_flow_entry *e,
              struct ofpbuf *odp)
{
    enum afxdp_flow_act last = AFXDP_FLOW_ACT_DROP;
    struct ofpbuf *xl;
    int n = 0;

    for (int i = 0; i < AFXDP_FLOW_MAX_ACTIONS && acts[i].type; i++) {
        act_put_odp(&acts[i], odp);
        last = acts[i].type;
    }
    /* The same actions, ended by a drop, which needs no datapath. */
    xl = ofpbuf_clone(odp);
    nl_msg_put_flag(xl, OVS_ACTION_ATTR_DROP);
    memset(e, 0, sizeof *e);
    if (!afxdp_offload_translate_actions(NULL, xl->data, xl->size, e)) {
        test_afxdp_offload_fail("actions not offloaded fully");
    }
    ofpbuf_delete(xl);
    while (n < AFXDP_FLOW_MAX_ACTIONS && e->acts[n]) {
        n++;
    }
    CHECK(n && e->acts[n - 1] == AFXDP_FLOW_ACT_DROP);
    if (last == AFXDP_FLOW_ACT_OUTPUT) {
        e->acts[n - 1] = AFXDP_FLOW_ACT_OUTPUT;
        e->out_ifindex = ACT_EGRESS_IFINDEX;
    } else if (last == AFXDP_FLOW_ACT_MARK) {
        memset(e, 0, sizeof *e);
        e->acts[0] = AFXDP_FLOW_ACT_MARK;
        e->mark = ACT_MARK;
    }
}

/* Runs 'frame' through the program once; the frame as the program left
 * it goes into 'out'. */
static uint32_t
run_out(const struct prog *p, const struct dp_packet *frame,
        struct dp_packet *out)
{
    uint8_t buf[2048];
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = dp_packet_data(frame),
                .data_size_in = dp_packet_size(frame),
                .data_out = buf,
                .data_size_out = sizeof buf,
                .repeat = 1);
    int ret = bpf_prog_test_run_opts(p->fd, &opts);

    if (ret) {
        test_afxdp_offload_fail("BPF_PROG_TEST_RUN: %s", ovs_strerror(-ret));
    }
    dp_packet_clear(out);
    dp_packet_put(out, buf, opts.data_size_out);
    return opts.retval;
}

/* Runs the actions 'acts' on frame 'f' in the program and in OVS;
 * appends what disagrees to 'err', with the datapath actions. */
static void
check_act_frame(const struct prog *p, const struct frame *f,
                const struct act_spec acts[], struct ds *err)
{
    uint64_t stub[256 / 8];
    struct ofpbuf odp = OFPBUF_STUB_INITIALIZER(stub);
    struct dp_packet *ovs, *xdp = dp_packet_new(2048);
    size_t err_len = err->length;
    struct afxdp_flow_entry e;
    struct dp_packet_batch batch;
    struct counters before, after;
    int last_act = 0, counter;
    uint32_t want, ret;
    int slot = 3;

    act_translate(acts, &e, &odp);
    while (last_act + 1 < AFXDP_FLOW_MAX_ACTIONS
           && acts[last_act + 1].type) {
        last_act++;
    }
    /* An int: only the last action's kind matters here. */
    int last = acts[last_act].type;
    switch (last) {
    case AFXDP_FLOW_ACT_OUTPUT:
        want = XDP_REDIRECT;
        counter = AFXDP_PROG_OFFLOAD_FORWARDED;
        break;
    case AFXDP_FLOW_ACT_MARK:
        want = XDP_PASS;                /* No socket: the socket path's. */
        counter = AFXDP_PROG_OFFLOAD_MARKED;
        break;
    default:
        want = XDP_DROP;
        counter = AFXDP_PROG_OFFLOAD_DROPPED;
        break;
    }

    /* OVS's result. */
    ovs = dp_packet_clone(f->pkt);
    dp_packet_batch_init_packet(&batch, ovs);
    odp_execute_actions(NULL, &batch, false, odp.data, odp.size, NULL);

    /* The program's. */
    tao_clear_flows(p);
    tao_set_masks(p, 1, &slot, &f->mask);
    tao_add_flow(p, &f->key, &f->mask, slot, &e);
    tao_read_counters(p, &before);
    ret = run_out(p, f->pkt, xdp);
    tao_read_counters(p, &after);

    if (ret != want) {
        ds_put_format(err, "; action %"PRIu32", expected %"PRIu32, ret, want);
    }
    if (after.c[counter] != before.c[counter] + 1
        || after.c[AFXDP_PROG_OFFLOAD_ACTION_ERROR]
           != before.c[AFXDP_PROG_OFFLOAD_ACTION_ERROR]) {
        ds_put_cstr(err, "; ");
        tao_format_moved(err, &before, &after);
    }
    if (want != XDP_DROP && !dp_packet_equal(ovs, xdp)) {
        ds_put_cstr(err, "; frame differs from OVS's:\n");
        ds_put_hex_dump(err, dp_packet_data(xdp), dp_packet_size(xdp), 0,
                        false);
        ds_put_cstr(err, "OVS:\n");
        ds_put_hex_dump(err, dp_packet_data(ovs), dp_packet_size(ovs), 0,
                        false);
    }
    if (err->length != err_len) {
        ds_put_cstr(err, "datapath actions: ");
        format_odp_actions(err, odp.data, odp.size, NULL);
        ds_put_char(err, '\n');
    }
    dp_packet_delete(ovs);
    dp_packet_delete(xdp);
    ofpbuf_uninit(&odp);
}

/* Runs case 'c'; appends what disagrees to 'err'. */
static void
check_act_case(const struct prog *p, const struct act_case *c,
               struct ds *err)
{
    struct frame f;

    tao_frame_init(&f, tao_frame_by_name(c->frame));
    check_act_frame(p, &f, c->acts, err);
    tao_frame_destroy(&f);
}

/* Random cases: random set actions on IP frames with random checksums,
 * against OVS, for the corners that hand-written cases miss. */

/* The frames they start from: each kind of frame the sets treat
 * differently. */
static const char *const random_act_frames[] = {
    "IPv4 TCP", "IPv4 UDP", "IPv4 UDP without checksum",
    "IPv4 ICMP echo request", "IPv4 with IP options, UDP",
    "IPv4 TCP with options, all flags", "IPv4 later fragment",
    "IPv4 later fragment, too short for TCP", "IPv4 SCTP",
    "IPv4 UDP with Ethernet padding", "802.1Q IPv4 UDP", "IPv6 TCP",
    "IPv6 UDP", "IPv6 ICMPv6 echo request",
    "IPv6 traffic class 0xa5, flow label", "802.1Q IPv6 UDP",
};

/* A random mask of 'bits' bits: none, all, a prefix, or any bits. */
static uint32_t
random_mask(int bits)
{
    uint32_t all = bits == 32 ? UINT32_MAX : (1u << bits) - 1;
    int n;

    switch (random_range(4)) {
    case 0:
        return 0;
    case 1:
        return all;
    case 2:
        n = random_range(bits + 1);
        return n ? all & ~((1ull << (bits - n)) - 1) : 0;
    default:
        return random_uint32() & all;
    }
}

/* A random checksum, often one of the values at the edges of ones'
 * complement arithmetic (0 and 0xffff are both zero). */
static ovs_be16
random_csum(void)
{
    static const uint16_t edges[] = { 0x0000, 0xffff, 0xfffe, 0x0001,
                                      0x8000, 0x7fff };

    return (OVS_FORCE ovs_be16) (random_range(2)
                                 ? edges[random_range(ARRAY_SIZE(edges))]
                                 : random_uint32());
}

/* Gives frame 'f' random IPv4 header and L4 checksums, which its key does
 * not carry. */
static void
random_act_csums(struct frame *f)
{
    uint8_t *l4 = dp_packet_l4(f->pkt);
    int ofs = afxdp_offload_l4_csum_ofs(f->flow.nw_proto);
    ovs_be16 c;

    if (f->flow.dl_type == htons(ETH_TYPE_IP)) {
        struct ip_header *ip = dp_packet_l3(f->pkt);

        ip->ip_csum = random_csum();
    }
    if (l4 && ofs >= 0 && dp_packet_l4_size(f->pkt) >= ofs + sizeof c) {
        c = random_csum();
        memcpy(l4 + ofs, &c, sizeof c);
    }
}

/* Random actions for frame 'f', in the order OVS emits them, up to the
 * program's 4 with the output. */
static void
random_acts(const struct frame *f, struct act_spec acts[])
{
    bool v6 = f->flow.dl_type == htons(ETH_TYPE_IPV6);
    uint8_t proto = f->flow.nw_proto;
    int n = 0;

    memset(acts, 0, AFXDP_FLOW_MAX_ACTIONS * sizeof *acts);
    if (!random_range(4)) {
        acts[n++].type = AFXDP_FLOW_ACT_POP_VLAN;
    }
    if (!random_range(4)) {
        struct act_spec *a = &acts[n++];

        a->type = AFXDP_FLOW_ACT_SET_ETH;
        for (int i = 0; i < ETH_ADDR_LEN; i++) {
            a->dst.ea[i] = random_uint8();
            a->src.ea[i] = random_uint8();
            a->dst_mask.ea[i] = random_mask(8);
            a->src_mask.ea[i] = random_mask(8);
        }
    }
    if (random_range(5)) {
        struct act_spec *a = &acts[n++];
        struct test_set_ip *ip = &a->ip;

        a->type = AFXDP_FLOW_ACT_SET_IP;
        ip->version = v6 ? 6 : 4;
        for (int i = 0; i < (v6 ? 4 : 1); i++) {
            ip->src[i] = (OVS_FORCE ovs_be32) random_uint32();
            ip->src_mask[i] = htonl(random_mask(32));
            ip->dst[i] = (OVS_FORCE ovs_be32) random_uint32();
            ip->dst_mask[i] = htonl(random_mask(32));
        }
        ip->tos = random_uint8();
        ip->tos_mask = random_mask(8);
        ip->ttl = random_uint8();
        ip->ttl_mask = random_mask(8);
        if (v6) {
            ip->label = htonl(random_uint32() & IPV6_LABEL_MASK);
            ip->label_mask = htonl(random_mask(20));
        }
    }
    if (n < 3 && (proto == IPPROTO_TCP || proto == IPPROTO_UDP)
        && random_range(3)) {
        struct act_spec *a = &acts[n++];

        a->type = AFXDP_FLOW_ACT_SET_L4;
        a->tp_proto = proto;
        a->tp_src = (OVS_FORCE ovs_be16) random_uint16();
        a->tp_src_mask = htons(random_mask(16));
        a->tp_dst = (OVS_FORCE ovs_be16) random_uint16();
        a->tp_dst_mask = htons(random_mask(16));
    }
    if (n < 3 && !random_range(5)) {
        struct act_spec *a = &acts[n++];

        a->type = AFXDP_FLOW_ACT_PUSH_VLAN;
        a->tpid = random_range(2) ? ETH_TYPE_VLAN_8021Q : ETH_TYPE_VLAN_8021AD;
        a->tci = random_uint16() & ~VLAN_CFI;
    }
    acts[n].type = AFXDP_FLOW_ACT_OUTPUT;
}

/* Runs 'n' random cases from 'seed'.  Returns how many disagree, and
 * prints them. */
static int
check_act_random(const struct prog *p, int n, uint32_t seed)
{
    struct ds err = DS_EMPTY_INITIALIZER;
    int n_bad = 0;

    random_set_seed(seed);
    for (int i = 0; i < n; i++) {
        const char *name = random_act_frames[
            random_range(ARRAY_SIZE(random_act_frames))];
        struct act_spec acts[AFXDP_FLOW_MAX_ACTIONS];
        struct frame f;

        tao_frame_init(&f, tao_frame_by_name(name));
        CHECK(!f.why);
        random_act_csums(&f);
        random_acts(&f, acts);
        ds_clear(&err);
        check_act_frame(p, &f, acts, &err);
        if (err.length) {
            printf("random case %d, %s: DISAGREE%s\n", i, name,
                   ds_cstr(&err));
            n_bad++;
        }
        tao_frame_destroy(&f);
    }
    ds_destroy(&err);
    return n_bad;
}

/* Makes into '*c' a case whose set makes the UDP checksum of frame
 * "IPv4 UDP" come out 0 in OVS's incremental update, which OVS then
 * sends as 0xffff: a set of the IPv4 source ('addr') or of the UDP source
 * port.  The value that does it depends on the frame, so it is found
 * here, with OVS's own arithmetic. */
static void
act_case_udp_zero(struct act_case *c, bool addr)
{
    struct frame f;
    const struct ip_header *ip;
    const struct udp_header *udp;

    memset(c, 0, sizeof *c);
    c->frame = "IPv4 UDP";
    c->what = (addr ? "set IPv4 source: UDP checksum 0, sent as 0xffff"
                    : "set UDP port: checksum 0, sent as 0xffff");
    tao_frame_init(&f, tao_frame_by_name(c->frame));
    ip = dp_packet_at_assert(f.pkt, ETH_HEADER_LEN, IP_HEADER_LEN);
    udp = dp_packet_at_assert(f.pkt, ETH_HEADER_LEN + IP_HEADER_LEN,
                              UDP_HEADER_LEN);
    CHECK(udp->udp_csum);
    for (uint32_t q = 1; q <= UINT16_MAX; q++) {
        ovs_be32 old = get_16aligned_be32(&ip->ip_src);
        ovs_be32 new = (old & htonl(0xffff0000)) | htonl(q);
        ovs_be16 port = htons(q);

        if (addr && new != old
            && !recalc_csum32(udp->udp_csum, old, new)) {
            c->acts[0].type = AFXDP_FLOW_ACT_SET_IP;
            c->acts[0].ip.version = 4;
            c->acts[0].ip.src[0] = new;
            c->acts[0].ip.src_mask[0] = OVS_BE32_MAX;
            break;
        } else if (!addr && port != udp->udp_src
                   && !recalc_csum16(udp->udp_csum, udp->udp_src, port)) {
            c->acts[0].type = AFXDP_FLOW_ACT_SET_L4;
            c->acts[0].tp_proto = IPPROTO_UDP;
            c->acts[0].tp_src = port;
            c->acts[0].tp_src_mask = OVS_BE16_MAX;
            break;
        }
    }
    CHECK(c->acts[0].type);
    c->acts[1].type = AFXDP_FLOW_ACT_OUTPUT;
    tao_frame_destroy(&f);
}

/* Makes the flow of frame 'f' the only one offloaded, its entry '*e' a
 * lone OUTPUT ('odp' gets the datapath actions it translates), to
 * 'out_ifindex' if nonzero (else the devmap's device), with 'out_flags'. */
static void
only_output_flow(const struct prog *p, const struct frame *f,
                 struct afxdp_flow_entry *e, struct ofpbuf *odp,
                 uint32_t out_ifindex, uint8_t out_flags)
{
    struct act_spec acts[AFXDP_FLOW_MAX_ACTIONS] = {
        { .type = AFXDP_FLOW_ACT_OUTPUT }
    };
    int slot = 0;

    act_translate(acts, e, odp);
    if (out_ifindex) {
        e->out_ifindex = out_ifindex;
    }
    e->out_flags |= out_flags;
    tao_clear_flows(p);
    tao_set_masks(p, 1, &slot, &f->mask);
    tao_add_flow(p, &f->key, &f->mask, slot, e);
}

/* OUTPUT to a device that is not in the devmap: dropped and counted. */
static void
check_act_no_egress(const struct prog *p, struct ds *err)
{
    uint64_t stub[64 / 8];
    struct ofpbuf odp = OFPBUF_STUB_INITIALIZER(stub);
    struct afxdp_flow_entry e;
    struct frame f;

    tao_frame_init(&f, tao_frame_by_name("IPv4 UDP"));
    only_output_flow(p, &f, &e, &odp, ACT_EGRESS_IFINDEX + 1000, 0);
    tao_run_expect(p, f.pkt, "output to a device not in the devmap", XDP_DROP,
                   AFXDP_PROG_OFFLOAD_ACTION_ERROR, -1, err);
    ofpbuf_uninit(&odp);
    tao_frame_destroy(&f);
}

/* Checks that the flow of frame 'f' counted 'packets' frames of 'bytes'
 * bytes in XDP, reporting a difference for case 'what' in 'err'.  XDP
 * counts only the frames it handles itself: OVS adds the PMD's counts of
 * the same flow to these, so a frame counted by both would count twice in
 * OpenFlow. */
static void
check_flow_counts(const struct prog *p, const struct frame *f,
                  const char *what, uint64_t packets, uint64_t bytes,
                  struct ds *err)
{
    struct afxdp_flow_counts counts;

    tao_flow_counts(p, &f->key, 0, &counts);
    if (counts.packets != packets || counts.bytes != bytes) {
        ds_put_format(err, "; %s: flow counted %"PRIu64" packets, %"PRIu64
                      " bytes in XDP (expected %"PRIu64", %"PRIu64")",
                      what, (uint64_t) counts.packets,
                      (uint64_t) counts.bytes, packets, bytes);
    }
}

/* A multi-buffer frame (a 9000-byte one, which BPF_PROG_TEST_RUN spreads
 * over several buffers) of a flow whose egress takes only single-buffer
 * redirected frames (AFXDP_FLOW_OUT_NO_SG): to the socket, counted in
 * xdp_offload_egress_no_sg and not in the flow's XDP counters (the PMD
 * counts it); the same flow's single-buffer frames are redirected.  To an
 * egress that takes multi-buffer frames, the frame is redirected and the
 * flow counts it whole. */
static void
check_act_no_sg(const struct prog *p, struct ds *err)
{
    uint64_t stub[64 / 8];
    struct ofpbuf odp = OFPBUF_STUB_INITIALIZER(stub);
    struct afxdp_flow_entry e;
    struct dp_packet *jumbo;
    struct frame f;

    tao_frame_init(&f, tao_frame_by_name("IPv4 UDP"));
    jumbo = dp_packet_clone(f.pkt);
    dp_packet_put_zeros(jumbo, 9000 - dp_packet_size(jumbo));
    only_output_flow(p, &f, &e, &odp, 0, AFXDP_FLOW_OUT_NO_SG);
    tao_run_expect(p, jumbo, "multi-buffer frame, egress without SG", XDP_PASS,
                   AFXDP_PROG_OFFLOAD_NO_SG, AFXDP_PROG_NO_SOCKET, err);
    tao_run_expect(p, f.pkt, "single-buffer frame, egress without SG",
                   XDP_REDIRECT, AFXDP_PROG_OFFLOAD_FORWARDED, -1, err);
    check_flow_counts(p, &f, "egress without SG", 1, dp_packet_size(f.pkt),
                      err);
    ofpbuf_uninit(&odp);

    ofpbuf_use_stub(&odp, stub, sizeof stub);
    only_output_flow(p, &f, &e, &odp, 0, 0);
    tao_run_expect(p, jumbo, "multi-buffer frame, egress with SG",
                   XDP_REDIRECT, AFXDP_PROG_OFFLOAD_FORWARDED, -1, err);
    check_flow_counts(p, &f, "egress with SG", 1, 9000, err);
    dp_packet_delete(jumbo);
    ofpbuf_uninit(&odp);
    tao_frame_destroy(&f);
}

/* A TCP over IPv4 and a UDP over IPv6 frame of an offloaded flow whose
 * checksum holds only the pseudo-header sum (from a sender with TX
 * checksum offload): to the socket, counted in xdp_offload_csum_partial
 * and not in the flow's XDP counters, for the receive path to finish; the
 * same frames with their own checksums are redirected and counted.  A
 * partially offloaded flow's frame keeps its mark (the PMD finishes its
 * checksum all the same). */
static void
check_act_csum_partial(const struct prog *p, struct ds *err)
{
    static const char *const names[] = { "IPv4 TCP", "IPv6 UDP" };

    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        uint64_t stub[64 / 8];
        struct ofpbuf odp = OFPBUF_STUB_INITIALIZER(stub);
        struct afxdp_rxcsum_info info;
        struct afxdp_flow_entry e;
        struct dp_packet *partial;
        ovs_be16 seed;
        struct frame f;
        int slot = 0;

        tao_frame_init(&f, tao_frame_by_name(names[i]));
        partial = dp_packet_clone(f.pkt);
        if (afxdp_rxcsum_detect(dp_packet_data(f.pkt),
                                dp_packet_size(f.pkt), &info)) {
            ds_put_format(err, "; %s already pseudo-header only", names[i]);
        }
        seed = ~csum_finish(info.h.pseudo);
        memcpy((uint8_t *) dp_packet_data(partial) + info.csum_ofs, &seed,
               sizeof seed);
        only_output_flow(p, &f, &e, &odp, 0, 0);
        tao_run_expect(p, partial, names[i], XDP_PASS,
                       AFXDP_PROG_OFFLOAD_CSUM_PARTIAL, AFXDP_PROG_NO_SOCKET,
                       err);
        tao_run_expect(p, f.pkt, names[i], XDP_REDIRECT,
                       AFXDP_PROG_OFFLOAD_FORWARDED, -1, err);
        check_flow_counts(p, &f, names[i], 1, dp_packet_size(f.pkt), err);

        memset(&e, 0, sizeof e);
        e.acts[0] = AFXDP_FLOW_ACT_MARK;
        e.mark = 7;
        tao_clear_flows(p);
        tao_set_masks(p, 1, &slot, &f.mask);
        tao_add_flow(p, &f.key, &f.mask, slot, &e);
        tao_run_expect(p, partial, names[i], XDP_PASS,
                       AFXDP_PROG_OFFLOAD_MARKED, AFXDP_PROG_NO_SOCKET, err);
        dp_packet_delete(partial);
        ofpbuf_uninit(&odp);
        tao_frame_destroy(&f);
    }
}

/* Random cases the 'actions' command runs by default, always the same
 * ones. */
#define ACT_N_RANDOM 10000
#define ACT_RANDOM_SEED 1

void
tao_cmd_actions(struct ovs_cmdl_context *ctx)
{
    int n_random, seed, n_random_bad;
    uint32_t ifindex = ACT_EGRESS_IFINDEX;
    int n_bad = 0, n = ARRAY_SIZE(act_cases);
    struct ds err = DS_EMPTY_INITIALIZER;
    struct prog p;
    int ret;

    tao_random_args(ctx, ACT_N_RANDOM, ACT_RANDOM_SEED, &n_random, &seed);
    afxdp_odp_execute_init();
    tao_prog_load(&p);
    ret = bpf_map_update_elem(p.egress_fd, &ifindex, &ifindex, BPF_ANY);
    if (ret) {
        test_afxdp_offload_fail("adding ifindex %"PRIu32" to afxdp_egress: %s",
                                ifindex,
             ovs_strerror(-ret));
    }
    for (int i = 0; i < n + 2; i++) {
        struct act_case zero;
        const struct act_case *c = &zero;

        if (i < n) {
            c = &act_cases[i];
        } else {
            act_case_udp_zero(&zero, i == n);
        }
        ds_clear(&err);
        check_act_case(&p, c, &err);
        printf("%-26s %-44s %s%s\n", c->frame, c->what,
               err.length ? "DISAGREE" : "as OVS", ds_cstr(&err));
        n_bad += err.length > 0;
    }
    n += 2;
    ds_clear(&err);
    check_act_no_egress(&p, &err);
    printf("%-71s %s%s\n", "output to a device not in the devmap",
           err.length ? "DISAGREE" : "dropped, counted", ds_cstr(&err));
    n_bad += err.length > 0;
    ds_clear(&err);
    check_act_no_sg(&p, &err);
    printf("%-71s %s%s\n", "multi-buffer frame to an egress without SG",
           err.length ? "DISAGREE" : "to the PMD, counted", ds_cstr(&err));
    n_bad += err.length > 0;
    ds_clear(&err);
    check_act_csum_partial(&p, &err);
    printf("%-71s %s%s\n", "checksum left to TX offload by the sender",
           err.length ? "DISAGREE" : "to the PMD, counted", ds_cstr(&err));
    n_bad += err.length > 0;
    ds_destroy(&err);
    CHECK(n_random >= 0);
    n_random_bad = check_act_random(&p, n_random, seed);
    tao_prog_unload(&p);
    printf("%d random cases (seed %d), %d disagree\n", n_random, seed,
           n_random_bad);
    printf("%d action cases, %d disagree\n", n + 3, n_bad);
    exit(n_bad || n_random_bad ? 1 : 0);
}
