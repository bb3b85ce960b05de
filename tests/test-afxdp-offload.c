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

/* Checks of flow offload: the match translation of lib/afxdp-offload.c and
 * the parser, lookup and counters of our XDP program
 * (bpf/afxdp-parse.bpf.h, bpf/afxdp-lookup.bpf.h), against OVS's own
 * flow_extract().
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
 *       hitting its own.  Then N-RANDOM (default 20000) random frames
 *       from SEED (default 1): crafted frames with bits flipped, bytes
 *       changed, cut or padded, each with OVS's exact megaflow of it as
 *       the only flow, which it must hit unless the program leaves it to
 *       the PMD.  Prints one line per crafted frame, a line of counts for
 *       the random ones and "N hit, M left to the PMD, 0 disagree"; exits
 *       1 on any disagreement.
 *
 *   actions
 *       Root.  The program's actions (output, push and pop VLAN, set
 *       Ethernet addresses, set IPv4/IPv6 header fields and TCP/UDP ports
 *       with their checksums, drop, mark) on frames that hit their flow,
 *       against OVS's odp_execute_actions() of the same datapath actions,
 *       which lib/afxdp-offload.c translates for the program: the same
 *       bytes, the XDP action, the counter.  OUTPUT goes to lo
 *       through the devmap (BPF_PROG_TEST_RUN does not send), and to a
 *       device not in the devmap is an action error.  Then N-RANDOM
 *       (default 10000) random cases from SEED (default 1): random masked
 *       sets of IP fields and ports, with pops, pushes and Ethernet sets,
 *       on IP frames with random checksums (often 0, 0xffff and their
 *       neighbours).  Prints one line per written case, the random cases
 *       that disagree, "N random cases (seed S), 0 disagree" and
 *       "N action cases, 0 disagree"; exits 1 on any disagreement.
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

static void
cmd_translate(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    test_afxdp_offload_translate();
}

/* The program under test. */



/* Loads our XDP program with hints mode 'hints' (enum xdp_hints_mode),
 * without attaching it anywhere. */
static void
prog_load_hints(struct prog *p, uint32_t hints)
{
    int error;

    p->skel = afxdp_bpf__open();
    if (!p->skel) {
        test_afxdp_offload_fail("opening the skeleton: %s",
                                ovs_strerror(errno));
    }
    p->skel->rodata->hints_mode = hints;
    /* The device-bound variant needs a device: not this one. */
    bpf_program__set_autoload(p->skel->progs.afxdp_ovs_dev, false);
    error = afxdp_bpf__load(p->skel);
    if (error) {
        test_afxdp_offload_fail("loading the XDP program: %s",
                                ovs_strerror(-error));
    }
    p->fd = bpf_program__fd(p->skel->progs.afxdp_ovs_redir);
    p->masks_fd = bpf_map__fd(p->skel->maps.afxdp_flow_masks);
    p->table = xzalloc(sizeof *p->table);
    p->table->seed = random_uint64();
    p->flows = afxdp_flow_table_create();
    CHECK(!afxdp_flow_table_reset(
              p->flows, bpf_map__fd(p->skel->maps.afxdp_flows),
              bpf_map__fd(p->skel->maps.afxdp_flow_stats),
              bpf_map__fd(p->skel->maps.afxdp_flow_buckets), p->table->seed));
    p->added = xzalloc(sizeof *p->added);
    p->egress_fd = bpf_map__fd(p->skel->maps.afxdp_egress);
    p->stats_fd = bpf_map__fd(p->skel->maps.afxdp_stats);
    p->n_cpus = libbpf_num_possible_cpus();
    CHECK(p->n_cpus > 0);
}

void
tao_prog_unload(struct prog *p)
{
    afxdp_bpf__destroy(p->skel);
    free(p->table);
    afxdp_flow_table_destroy(p->flows);
    free(p->added);
}

/* Loads our XDP program without hints. */
void
tao_prog_load(struct prog *p)
{
    prog_load_hints(p, XDP_HINTS_OFF);
}


void
tao_read_counters(const struct prog *p, struct counters *out)
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
void
tao_set_masks(const struct prog *p, int n, const int slots[],
              const struct afxdp_flow_key masks[])
{
    struct afxdp_flow_masks *t = p->table;
    uint64_t seed = t->seed;
    uint32_t zero = 0;

    memset(t, 0, sizeof *t);
    memset(t->order, AFXDP_FLOW_ORDER_END, sizeof t->order);
    t->seed = seed;
    t->n_masks = n;
    for (int i = 0; i < n; i++) {
        t->order[i] = slots[i];
        afxdp_flow_slot_set(t, slots[i], &masks[i]);
    }
    CHECK(!bpf_map_update_elem(p->masks_fd, &zero, t, BPF_ANY));
}

/* Tries to add the flow 'key' (masked) in mask slot 'slot', whose mask is
 * (or will be) 'mask', with the actions of 'entry'.  Returns what
 * afxdp_flow_table_add() returns. */
static int
try_add_flow(const struct prog *p, const struct afxdp_flow_key *key,
             const struct afxdp_flow_key *mask, int slot,
             const struct afxdp_flow_entry *entry)
{
    struct afxdp_flow_entry e = *entry;
    struct afxdp_flow_masks t;
    struct afxdp_flow_place place;
    unsigned int size;
    int error;

    memset(&t, 0, sizeof t);
    afxdp_flow_slot_set(&t, slot, mask);
    size = afxdp_flow_lookup_key(&t, slot, key, e.key);
    error = afxdp_flow_table_add(p->flows, &e,
                                 AFXDP_FLOW_KEY_SIZE_WORDS(size), &place);
    if (!error) {
        struct added *a = p->added;

        CHECK(a->n < ARRAY_SIZE(a->flows));
        memcpy(a->flows[a->n].key, e.key, sizeof e.key);
        a->flows[a->n++].place = place;
    }
    return error;
}

/* Adds the flow 'key' (masked) in mask slot 'slot', whose mask is (or
 * will be) 'mask', with the actions of 'entry'. */
void
tao_add_flow(const struct prog *p, const struct afxdp_flow_key *key,
             const struct afxdp_flow_key *mask, int slot,
             const struct afxdp_flow_entry *entry)
{
    int error = try_add_flow(p, key, mask, slot, entry);

    if (error) {
        test_afxdp_offload_fail("adding a flow: %s", ovs_strerror(error));
    }
}

/* Reads the counters of flow 'key' in 'slot' of the mask table, summed
 * over CPUs. */
void
tao_flow_counts(const struct prog *p, const struct afxdp_flow_key *key,
                int slot, struct afxdp_flow_counts *sum)
{
    __u64 lookup_key[AFXDP_FLOW_KEY_WORDS];
    const struct added *a = p->added;
    size_t i;

    afxdp_flow_lookup_key(p->table, slot, key, lookup_key);
    for (i = 0; i < a->n; i++) {
        if (!memcmp(a->flows[i].key, lookup_key, sizeof lookup_key)) {
            break;
        }
    }
    CHECK(i < a->n);
    CHECK(!afxdp_flow_table_read(p->flows, &a->flows[i].place, sum));
}

/* Empties the mask table and the flow table. */
void
tao_clear_flows(const struct prog *p)
{
    tao_set_masks(p, 0, NULL, NULL);
    for (size_t i = 0; i < p->added->n; i++) {
        afxdp_flow_table_remove(p->flows, &p->added->flows[i].place);
    }
    p->added->n = 0;
    /* Their ids are free at once: no program runs meanwhile. */
    CHECK(!afxdp_flow_table_reset(
              p->flows, bpf_map__fd(p->skel->maps.afxdp_flows),
              bpf_map__fd(p->skel->maps.afxdp_flow_stats),
              bpf_map__fd(p->skel->maps.afxdp_flow_buckets), p->table->seed));
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
        test_afxdp_offload_fail("BPF_PROG_TEST_RUN: %s", ovs_strerror(-ret));
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


/* Fills 'f' for frame 'pkt' (which 'f' takes) as OVS sees it, with
 * 'wild' (FRAME_WILD_*) for its megaflow. */
static void
frame_extract(struct frame *f, struct dp_packet *pkt, int wild)
{
    struct match m;

    f->pkt = pkt;
    pkt_metadata_init(&f->pkt->md, u32_to_odp(1));
    flow_extract(f->pkt, &f->flow);
    match_wc_init(&m, &f->flow);
    clear_unkeyed(&m.wc, &f->flow, wild);
    f->why = afxdp_offload_translate_match(&m, &f->key, &f->mask);
}

void
tao_frame_init(struct frame *f, int index)
{
    f->s = &afxdp_offload_frames[index];
    f->other = afxdp_offload_build_frame(
        index, afxdp_offload_frame_src(index, true));
    frame_extract(f, afxdp_offload_build_frame(
                         index, afxdp_offload_frame_src(index, false)),
                  f->s->wild);
}

void
tao_frame_destroy(struct frame *f)
{
    dp_packet_delete(f->pkt);
    dp_packet_delete(f->other);
}

/* Counters that moved from 'a' to 'b', as text. */
void
tao_format_moved(struct ds *s, const struct counters *a,
                 const struct counters *b)
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
        [AFXDP_PROG_OFFLOAD_NO_SG] = "offload_egress_no_sg",
        [AFXDP_PROG_OFFLOAD_CSUM_PARTIAL] = "offload_csum_partial",
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
void
tao_run_expect(const struct prog *p, const struct dp_packet *pkt,
               const char *what, uint32_t action, int c1, int c2,
               struct ds *err)
{
    struct counters before, after, expected;
    uint32_t ret;

    tao_read_counters(p, &before);
    ret = run(p, pkt, 1, NULL);
    tao_read_counters(p, &after);

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
        tao_format_moved(err, &before, &after);
    }
}

/* The full mask: every field of the key. */
static void
full_mask(struct afxdp_flow_key *m)
{
    memset(m, 0xff, sizeof *m);
    m->mask_slot = m->pad0 = 0;
    m->ipv6_label = htonl(IPV6_LABEL_MASK);
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
    struct afxdp_flow_counts counts;
    struct afxdp_flow_key full;

    if (f->why) {
        ds_put_format(err, "; OVS's flow not offloadable: %s", f->why);
        return;
    }
    tao_clear_flows(p);
    tao_set_masks(p, 1, &slot, &f->mask);
    tao_add_flow(p, &f->key, &f->mask, slot, &drop_entry);
    tao_run_expect(p, f->pkt, "frame", XDP_DROP,
                   AFXDP_PROG_OFFLOAD_DROPPED, -1, err);
    tao_run_expect(p, f->other, "from another source", XDP_PASS,
                   AFXDP_PROG_OFFLOAD_MISS, AFXDP_PROG_NO_SOCKET, err);

    /* The entry counted the frame as OVS would. */
    tao_flow_counts(p, &f->key, slot, &counts);
    if (counts.packets != 1 || counts.bytes != dp_packet_size(f->pkt)
        || counts.tcp_flags != ntohs(f->flow.tcp_flags)) {
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
    tao_clear_flows(p);
    tao_set_masks(p, 1, &slot, &full);
    tao_add_flow(p, &f->key, &full, slot, &drop_entry);
    tao_run_expect(p, f->pkt, "under the full mask", XDP_DROP,
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
    tao_clear_flows(p);
    tao_set_masks(p, 1, &slot, &zero);
    tao_add_flow(p, &zero, &zero, slot, &drop_entry);
    tao_run_expect(p, f->pkt, "frame", XDP_PASS, AFXDP_PROG_OFFLOAD_UNPARSED,
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

    tao_clear_flows(p);
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
        tao_add_flow(p, &fs[i].key, &masks[s], s, &drop_entry);
        (*n_flows)++;
    }
    /* The lookup tries the slots from the last to the first. */
    memset(ordered, 0, sizeof ordered);
    memset(slots, 0, sizeof slots);
    for (int i = 0; i < n_masks; i++) {
        slots[i] = n_masks - 1 - i;
        ordered[i] = masks[slots[i]];
    }
    tao_set_masks(p, n_masks, slots, ordered);
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
        struct afxdp_flow_counts counts;

        if (fs[i].s->expect != FRAME_HIT || fs[i].why) {
            continue;
        }
        tao_flow_counts(p, &fs[i].key, slot_of[i], &counts);
        if (counts.packets != 1) {
            printf("all at once: the flow of %s counted %"PRIu64" packets\n",
                   fs[i].s->name, (uint64_t) counts.packets);
            bad++;
        }
    }
    printf("all %d flows at once, in %d masks: %s\n", n_flows, n_masks,
           bad ? "DISAGREE" : "each frame hit its own flow");
    tao_clear_flows(p);
    free(slot_of);
    return bad;
}

static int check_one_bucket(const struct prog *);

/* Random frames: the crafted ones, damaged at random, which the program
 * must either parse as OVS does or leave to the PMD, never parse into
 * another key (a frame that OVS's exact megaflow, the only flow, would
 * take but that misses it). */

/* Damages frame 'b' in 1 to 3 ways: a bit flipped or a byte changed in
 * its first 80 bytes (the headers), cut short (to no less than an
 * Ethernet header, as BPF_PROG_TEST_RUN needs), or padded. */
static void
parse_random_damage(struct dp_packet *b)
{
    int k = 1 + random_range(3);

    for (int j = 0; j < k; j++) {
        size_t size = dp_packet_size(b);
        uint8_t *d = dp_packet_data(b);
        size_t at = random_range(MIN(size, 80));

        switch (random_range(5)) {
        case 0:
        case 1:
            d[at] ^= 1u << random_range(8);
            break;
        case 2:
            d[at] = random_uint8();
            break;
        case 3:
            dp_packet_set_size(b, ETH_HEADER_LEN
                                  + random_range(size - ETH_HEADER_LEN + 1));
            break;
        default:
            dp_packet_put_zeros(b, 1 + random_range(32));
            break;
        }
    }
}

/* Runs 'n' random frames from 'seed' with OVS's exact megaflow of each
 * (when the program can take it) as the only flow.  Prints a line of
 * counts and each frame that disagrees; returns how many disagree. */
static int
check_parse_random(const struct prog *p, int n, uint32_t seed)
{
    int n_hit = 0, n_pmd = 0, n_refused = 0, n_bad = 0;
    int slot = 5;

    random_set_seed(seed);
    for (int i = 0; i < n; i++) {
        int index = random_range(afxdp_offload_n_frames);
        struct dp_packet *b = afxdp_offload_build_frame(
            index, afxdp_offload_frame_src(index, false));
        struct counters before, after;
        struct frame f;
        uint32_t ret;

        parse_random_damage(b);
        memset(&f, 0, sizeof f);
        frame_extract(&f, b, 0);
        if (f.why) {
            n_refused++;
            tao_frame_destroy(&f);
            continue;
        }
        tao_clear_flows(p);
        tao_set_masks(p, 1, &slot, &f.mask);
        tao_add_flow(p, &f.key, &f.mask, slot, &drop_entry);
        tao_read_counters(p, &before);
        ret = run(p, f.pkt, 1, NULL);
        tao_read_counters(p, &after);
        if (ret == XDP_DROP
            && after.c[AFXDP_PROG_OFFLOAD_DROPPED]
               == before.c[AFXDP_PROG_OFFLOAD_DROPPED] + 1) {
            n_hit++;
        } else if (ret == XDP_PASS
                   && after.c[AFXDP_PROG_OFFLOAD_UNPARSED]
                      == before.c[AFXDP_PROG_OFFLOAD_UNPARSED] + 1) {
            n_pmd++;
        } else {
            struct ds s = DS_EMPTY_INITIALIZER;

            ds_put_format(&s, "random frame %d (from %s): action %"PRIu32
                          ", ", i, afxdp_offload_frames[index].name, ret);
            tao_format_moved(&s, &before, &after);
            ds_put_cstr(&s, "\nOVS's key: ");
            test_afxdp_offload_format_key(&s, &f.key);
            ds_put_char(&s, '\n');
            ds_put_hex_dump(&s, dp_packet_data(f.pkt), dp_packet_size(f.pkt),
                            0, false);
            printf("DISAGREE: %s", ds_cstr(&s));
            ds_destroy(&s);
            n_bad++;
        }
        tao_frame_destroy(&f);
    }
    printf("%d random frames (seed %"PRIu32"): %d hit, %d left to the PMD, "
           "%d with a megaflow the program cannot take, %d disagree\n",
           n, seed, n_hit, n_pmd, n_refused, n_bad);
    return n_bad;
}

/* The optional "N SEED" arguments of a command with random cases: stores
 * them in '*n' and '*seed', or 'default_n' and 'default_seed' where
 * absent. */
void
tao_random_args(const struct ovs_cmdl_context *ctx, int default_n,
                int default_seed, int *n, int *seed)
{
    *n = ctx->argc > 1 ? atoi(ctx->argv[1]) : default_n;
    *seed = ctx->argc > 2 ? atoi(ctx->argv[2]) : default_seed;
}

/* Random frames the 'parse' command runs by default, always the same
 * ones. */
#define PARSE_N_RANDOM 20000
#define PARSE_RANDOM_SEED 1

static void
cmd_parse(struct ovs_cmdl_context *ctx)
{
    int n = afxdp_offload_n_frames;
    int n_random, seed;
    struct frame *fs = xcalloc(n, sizeof *fs);
    int n_hit = 0, n_pmd = 0, n_bad = 0;
    struct prog p;

    tao_random_args(ctx, PARSE_N_RANDOM, PARSE_RANDOM_SEED, &n_random, &seed);
    tao_prog_load(&p);
    for (int i = 0; i < n; i++) {
        struct ds err = DS_EMPTY_INITIALIZER;
        struct frame *f = &fs[i];

        tao_frame_init(f, i);
        if (f->s->expect == FRAME_HIT) {
            check_hit(&p, f, i, &err);
        } else {
            check_pmd(&p, f, i, &err);
        }
        printf("%-48s ", f->s->name);
        if (err.length) {
            struct ds key = DS_EMPTY_INITIALIZER;

            test_afxdp_offload_format_key(&key, &f->key);
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
    n_bad += check_one_bucket(&p);
    n_bad += check_parse_random(&p, n_random, seed);

    for (int i = 0; i < n; i++) {
        tao_frame_destroy(&fs[i]);
    }
    free(fs);
    tao_prog_unload(&p);
    printf("%d hit, %d left to the PMD, %d disagree\n", n_hit, n_pmd, n_bad);
    exit(n_bad ? 1 : 0);
}

/* 'cost': run time per frame. */

/* Returns the index of the frame called 'name'. */
int
tao_frame_by_name(const char *name)
{
    for (size_t i = 0; i < afxdp_offload_n_frames; i++) {
        if (!strcmp(afxdp_offload_frames[i].name, name)) {
            return i;
        }
    }
    OVS_NOT_REACHED();
}

/* Fills one bucket of the flow table: AFXDP_FLOW_BUCKET_WAYS flows over the
 * Ethernet source, whose lookup keys fall in the same bucket, and checks
 * that each frame hits its own flow, and that another source misses.
 * Returns the number of frames that did not. */
static int
check_one_bucket(const struct prog *p)
{
    struct afxdp_flow_key m, keys[AFXDP_FLOW_BUCKET_WAYS + 1];
    struct frame f;
    uint32_t bucket = 0;
    int slot = 5, n = 0, n_bad = 0;

    tao_frame_init(&f, tao_frame_by_name("IPv4 UDP"));
    tao_clear_flows(p);
    memset(&m, 0, sizeof m);
    memset(m.eth_src, 0xff, sizeof m.eth_src);
    tao_set_masks(p, 1, &slot, &m);
    for (uint32_t v = 0; n <= AFXDP_FLOW_BUCKET_WAYS && v < 1000000; v++) {
        __u64 lookup_key[AFXDP_FLOW_KEY_WORDS];
        struct afxdp_flow_key k;
        ovs_be32 be = htonl(v);
        unsigned int size;
        uint32_t b;

        memset(&k, 0, sizeof k);
        memcpy(&k.eth_src[2], &be, sizeof be);
        size = afxdp_flow_lookup_key(p->table, slot, &k, lookup_key);
        b = afxdp_flow_bucket_of(afxdp_flow_hash(
                p->table->seed, lookup_key, AFXDP_FLOW_KEY_SIZE_WORDS(size)));
        if (!n || b == bucket) {
            bucket = b;
            keys[n++] = k;
        }
    }
    CHECK(n == AFXDP_FLOW_BUCKET_WAYS + 1);
    n = AFXDP_FLOW_BUCKET_WAYS;
    for (int i = 0; i < n; i++) {
        tao_add_flow(p, &keys[i], &m, slot, &drop_entry);
    }
    /* A ninth does not fit; the first again is refused as a duplicate. */
    n_bad += try_add_flow(p, &keys[n], &m, slot, &drop_entry) != ENOSPC;
    n_bad += try_add_flow(p, &keys[0], &m, slot, &drop_entry) != EEXIST;
    for (int i = 0; i <= n; i++) {
        struct eth_header *eth = dp_packet_eth(f.pkt);
        struct afxdp_flow_counts counts;
        uint32_t expected = i < n ? XDP_DROP : XDP_PASS;

        memcpy(eth->eth_src.ea, i < n ? keys[i].eth_src : m.eth_src,
               sizeof eth->eth_src.ea);
        if (run(p, f.pkt, 1, NULL) != expected) {
            printf("flow %d of %d in one bucket: not %s\n", i + 1, n,
                   i < n ? "hit" : "missed");
            n_bad++;
        } else if (i < n) {
            tao_flow_counts(p, &keys[i], slot, &counts);
            n_bad += counts.packets != 1;
        }
    }
    printf("%d flows in one bucket of the flow table: %s\n", n,
           n_bad ? "WRONG" : "each frame hit its own flow, a ninth refused");
    tao_clear_flows(p);
    tao_frame_destroy(&f);
    return n_bad;
}

/* 'table': the flow table filled to its last id, emptied flow by flow,
 * and filled again (ids reused), which must wait for a grace period. */

/* Key of flow 'v' of cmd_table(): Ethernet source 00:00:v. */
static void
table_key(uint32_t v, struct afxdp_flow_key *k)
{
    ovs_be32 be = htonl(v);

    memset(k, 0, sizeof *k);
    memcpy(&k->eth_src[2], &be, sizeof be);
}

/* Runs frame 'f' from Ethernet source 'k' through the program. */
static uint32_t
table_run(const struct prog *p, struct frame *f,
          const struct afxdp_flow_key *k)
{
    struct eth_header *eth = dp_packet_eth(f->pkt);

    memcpy(eth->eth_src.ea, k->eth_src, sizeof eth->eth_src.ea);
    return run(p, f->pkt, 1, NULL);
}

static void
cmd_table(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    const uint32_t n_tries = AFXDP_FLOW_MAX_FLOWS + 100;
    uint8_t *added = xzalloc(n_tries);
    struct afxdp_flow_key m, k;
    int slot = 2, n_bad = 0;
    struct frame f;
    struct prog p;

    tao_prog_load(&p);
    tao_frame_init(&f, tao_frame_by_name("IPv4 UDP"));
    memset(&m, 0, sizeof m);
    memset(m.eth_src, 0xff, sizeof m.eth_src);
    tao_set_masks(&p, 1, &slot, &m);
    for (int round = 1; round <= 2; round++) {
        int n_added = 0, n_full = 0, n_missed = 0, n_hit_after = 0;
        int n_early = 0;

        if (round == 2) {
            long long int start = time_msec();

            /* All ids are free again, but a program run may still hold
             * any of them: none is handed out before a grace period that
             * began after they left has ended. */
            table_key(0, &k);
            n_early = try_add_flow(&p, &k, &m, slot, &drop_entry) != EAGAIN;
            CHECK(!afxdp_flow_table_grace_wait(
                      afxdp_flow_table_grace_mark()));
            printf("round 2: ids reused before a grace period: %d; it "
                   "took %lld ms\n", n_early, time_msec() - start);
        }
        for (uint32_t v = 0; v < n_tries; v++) {
            int error;

            table_key(v, &k);
            error = try_add_flow(&p, &k, &m, slot, &drop_entry);
            CHECK(!error || error == ENOSPC);
            added[v] = !error;
            n_added += !error;
            /* Refused with ids left: its bucket was full. */
            n_full += error && n_added < AFXDP_FLOW_MAX_FLOWS;
        }
        for (uint32_t v = 0; v < n_tries; v++) {
            table_key(v, &k);
            n_missed += (table_run(&p, &f, &k)
                         != (added[v] ? XDP_DROP : XDP_PASS));
        }
        /* Flow by flow, as OVS deletes them, without starting over. */
        for (size_t i = 0; i < p.added->n; i++) {
            afxdp_flow_table_remove(p.flows, &p.added->flows[i].place);
        }
        p.added->n = 0;
        for (uint32_t v = 0; v < n_tries; v++) {
            table_key(v, &k);
            n_hit_after += table_run(&p, &f, &k) != XDP_PASS;
        }
        printf("round %d: %d flows added, %d refused for want of room in "
               "their bucket, "
               "%d frames not as expected, %d hit after removal\n",
               round, n_added, n_full, n_missed, n_hit_after);
        /* With a random seed, a bucket or two may be full (a flow takes
         * one of its 8 ways, with 4 ways a flow in all), and the next key
         * tried takes the id: all ids are used all the same. */
        n_bad += (n_added != AFXDP_FLOW_MAX_FLOWS
                  || n_full > AFXDP_FLOW_MAX_FLOWS / 100
                  || n_missed || n_hit_after || n_early);
    }
    printf("flow table: %s\n", n_bad ? "WRONG" : "ok");
    tao_frame_destroy(&f);
    tao_prog_unload(&p);
    free(added);
    exit(n_bad ? 1 : 0);
}

/* 'verifier': how much of the verifier's limit (a million instructions
 * processed) loading the program takes, with each hints mode.  It fails
 * above a quarter of the limit, to leave room for changes: the cost grows
 * with the product of the ways in which the program's parts can end. */
static void
cmd_verifier(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    static const uint32_t modes[] = {
        XDP_HINTS_OFF, XDP_HINTS_TS, XDP_HINTS_TS_HASH,
    };
    const uint32_t limit = 1000000 / 4;
    int n_bad = 0;

    for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
        struct bpf_prog_info info;
        uint32_t len = sizeof info;
        struct prog p;

        prog_load_hints(&p, modes[i]);
        memset(&info, 0, sizeof info);
        CHECK(!bpf_obj_get_info_by_fd(p.fd, &info, &len));
        printf("hints mode %"PRIu32": %"PRIu32" instructions verified%s\n",
               modes[i], info.verified_insns,
               info.verified_insns > limit ? ", TOO MANY" : "");
        n_bad += info.verified_insns > limit;
        tao_prog_unload(&p);
    }
    printf("verifier: %s\n", n_bad ? "too close to its limit" : "ok");
    exit(n_bad ? 1 : 0);
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
    tao_prog_load(&p);
    tao_frame_init(&f, tao_frame_by_name("IPv4 UDP"));
    tao_frame_init(&pmd, tao_frame_by_name("IPv6 hop-by-hop options, UDP"));
    CHECK(!f.why && pmd.s->expect == FRAME_PMD);

    printf("%d runs of a %"PRIu32"-byte IPv4 UDP frame each "
           "(BPF_PROG_TEST_RUN)\n", repeat, dp_packet_size(f.pkt));
    tao_clear_flows(&p);
    print_cost(&p, f.pkt, repeat, "no flow offloaded (table empty)",
               XDP_PASS);

    /* The benchmark's megaflow: EtherType and fragment bits only (a
     * 16-byte map key). */
    {
        struct afxdp_flow_key m, k;
        int slot = 0;

        memset(&m, 0, sizeof m);
        m.eth_type = OVS_BE16_MAX;
        m.nw_frag = 0xff;
        k = f.key;
        for (size_t i = 0; i < sizeof k; i++) {
            ((uint8_t *) &k)[i] &= ((uint8_t *) &m)[i];
        }
        tao_set_masks(&p, 1, &slot, &m);
        tao_add_flow(&p, &k, &m, slot, &drop_entry);
        print_cost(&p, f.pkt, repeat, "hit in mask 1 of 1, EtherType (drop)",
                   XDP_DROP);
        tao_clear_flows(&p);
    }

    /* Masks that no flow uses (each with a bit of its own) before the one
     * that hits. */
    for (int i = 0; i < AFXDP_FLOW_MAX_MASKS; i++) {
        memset(&masks[i], 0, sizeof masks[i]);
        masks[i].nw_ttl = i + 1;
    }
    for (int k = 1; k <= AFXDP_FLOW_MAX_MASKS; k *= 2) {
        char what[64];

        tao_clear_flows(&p);
        for (int i = 0; i < k; i++) {
            slots[i] = i;
        }
        masks[k - 1] = f.mask;
        tao_set_masks(&p, k, slots, masks);
        tao_add_flow(&p, &f.key, &f.mask, k - 1, &drop_entry);
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
    tao_clear_flows(&p);
    tao_frame_destroy(&f);
    tao_frame_destroy(&pmd);
    tao_prog_unload(&p);
}

static void
cmd_egress_grace(struct ovs_cmdl_context *ctx)
{
    test_afxdp_offload_egress_grace(atoi(ctx->argv[1]), atoi(ctx->argv[2]));
}

static const struct ovs_cmdl_command commands[] = {
    {"translate", "", 0, 0, cmd_translate, OVS_RO},
    {"parse", "[N-RANDOM [SEED]]", 0, 2, cmd_parse, OVS_RO},
    {"actions", "[N-RANDOM [SEED]]", 0, 2, tao_cmd_actions, OVS_RO},
    {"cost", "[REPEAT]", 0, 1, cmd_cost, OVS_RO},
    {"table", "", 0, 0, cmd_table, OVS_RO},
    {"verifier", "", 0, 0, cmd_verifier, OVS_RO},
    {"egress-grace", "IFINDEX-A IFINDEX-B", 2, 2, cmd_egress_grace, OVS_RO},
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
