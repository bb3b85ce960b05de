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
#include "test-afxdp-offload.h"
#include "timeval.h"
#include "util.h"

static void
cmd_translate(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    test_afxdp_offload_translate();
}

/* The program under test. */

/* The flows added since the flow table was last emptied. */
struct added {
    size_t n;
    struct {
        __u64 key[AFXDP_FLOW_KEY_WORDS];    /* Lookup key. */
        struct afxdp_flow_place place;
    } flows[AFXDP_FLOW_MAX_FLOWS];
};

struct prog {
    struct afxdp_bpf *skel;
    int fd;                     /* afxdp_ovs_redir. */
    int masks_fd;               /* afxdp_flow_masks. */
    struct afxdp_flow_masks *table;     /* As in afxdp_flow_masks. */
    struct afxdp_flow_table *flows;     /* The flow table's copy. */
    struct added *added;        /* The flows in it. */
    int egress_fd;              /* afxdp_egress. */
    int stats_fd;               /* afxdp_stats. */
    int n_cpus;
};

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

static void
prog_unload(struct prog *p)
{
    afxdp_bpf__destroy(p->skel);
    free(p->table);
    afxdp_flow_table_destroy(p->flows);
    free(p->added);
}

/* Loads our XDP program without hints. */
static void
prog_load(struct prog *p)
{
    prog_load_hints(p, XDP_HINTS_OFF);
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
static void
add_flow(const struct prog *p, const struct afxdp_flow_key *key,
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
static void
flow_counts(const struct prog *p, const struct afxdp_flow_key *key, int slot,
            struct afxdp_flow_counts *sum)
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
static void
clear_flows(const struct prog *p)
{
    set_masks(p, 0, NULL, NULL);
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

static void
frame_init(struct frame *f, int index)
{
    f->s = &afxdp_offload_frames[index];
    f->other = afxdp_offload_build_frame(
        index, afxdp_offload_frame_src(index, true));
    frame_extract(f, afxdp_offload_build_frame(
                         index, afxdp_offload_frame_src(index, false)),
                  f->s->wild);
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
    clear_flows(p);
    set_masks(p, 1, &slot, &f->mask);
    add_flow(p, &f->key, &f->mask, slot, &drop_entry);
    run_expect(p, f->pkt, "frame", XDP_DROP, AFXDP_PROG_OFFLOAD_DROPPED, -1,
               err);
    run_expect(p, f->other, "from another source", XDP_PASS,
               AFXDP_PROG_OFFLOAD_MISS, AFXDP_PROG_NO_SOCKET, err);

    /* The entry counted the frame as OVS would. */
    flow_counts(p, &f->key, slot, &counts);
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
    clear_flows(p);
    set_masks(p, 1, &slot, &full);
    add_flow(p, &f->key, &full, slot, &drop_entry);
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
    add_flow(p, &zero, &zero, slot, &drop_entry);
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
        add_flow(p, &fs[i].key, &masks[s], s, &drop_entry);
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
        struct afxdp_flow_counts counts;

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
            frame_destroy(&f);
            continue;
        }
        clear_flows(p);
        set_masks(p, 1, &slot, &f.mask);
        add_flow(p, &f.key, &f.mask, slot, &drop_entry);
        read_counters(p, &before);
        ret = run(p, f.pkt, 1, NULL);
        read_counters(p, &after);
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
            format_moved(&s, &before, &after);
            ds_put_cstr(&s, "\nOVS's key: ");
            test_afxdp_offload_format_key(&s, &f.key);
            ds_put_char(&s, '\n');
            ds_put_hex_dump(&s, dp_packet_data(f.pkt), dp_packet_size(f.pkt),
                            0, false);
            printf("DISAGREE: %s", ds_cstr(&s));
            ds_destroy(&s);
            n_bad++;
        }
        frame_destroy(&f);
    }
    printf("%d random frames (seed %"PRIu32"): %d hit, %d left to the PMD, "
           "%d with a megaflow the program cannot take, %d disagree\n",
           n, seed, n_hit, n_pmd, n_refused, n_bad);
    return n_bad;
}

/* The optional "N SEED" arguments of a command with random cases: stores
 * them in '*n' and '*seed', or 'default_n' and 'default_seed' where
 * absent. */
static void
random_args(const struct ovs_cmdl_context *ctx, int default_n,
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

    random_args(ctx, PARSE_N_RANDOM, PARSE_RANDOM_SEED, &n_random, &seed);
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

    frame_init(&f, frame_by_name("IPv4 UDP"));
    clear_flows(p);
    memset(&m, 0, sizeof m);
    memset(m.eth_src, 0xff, sizeof m.eth_src);
    set_masks(p, 1, &slot, &m);
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
        add_flow(p, &keys[i], &m, slot, &drop_entry);
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
            flow_counts(p, &keys[i], slot, &counts);
            n_bad += counts.packets != 1;
        }
    }
    printf("%d flows in one bucket of the flow table: %s\n", n,
           n_bad ? "WRONG" : "each frame hit its own flow, a ninth refused");
    clear_flows(p);
    frame_destroy(&f);
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

    prog_load(&p);
    frame_init(&f, frame_by_name("IPv4 UDP"));
    memset(&m, 0, sizeof m);
    memset(m.eth_src, 0xff, sizeof m.eth_src);
    set_masks(&p, 1, &slot, &m);
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
    frame_destroy(&f);
    prog_unload(&p);
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
        prog_unload(&p);
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
    prog_load(&p);
    frame_init(&f, frame_by_name("IPv4 UDP"));
    frame_init(&pmd, frame_by_name("IPv6 hop-by-hop options, UDP"));
    CHECK(!f.why && pmd.s->expect == FRAME_PMD);

    printf("%d runs of a %"PRIu32"-byte IPv4 UDP frame each "
           "(BPF_PROG_TEST_RUN)\n", repeat, dp_packet_size(f.pkt));
    clear_flows(&p);
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
        set_masks(&p, 1, &slot, &m);
        add_flow(&p, &k, &m, slot, &drop_entry);
        print_cost(&p, f.pkt, repeat, "hit in mask 1 of 1, EtherType (drop)",
                   XDP_DROP);
        clear_flows(&p);
    }

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
        add_flow(&p, &f.key, &f.mask, k - 1, &drop_entry);
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
    clear_flows(p);
    set_masks(p, 1, &slot, &f->mask);
    add_flow(p, &f->key, &f->mask, slot, &e);
    read_counters(p, &before);
    ret = run_out(p, f->pkt, xdp);
    read_counters(p, &after);

    if (ret != want) {
        ds_put_format(err, "; action %"PRIu32", expected %"PRIu32, ret, want);
    }
    if (after.c[counter] != before.c[counter] + 1
        || after.c[AFXDP_PROG_OFFLOAD_ACTION_ERROR]
           != before.c[AFXDP_PROG_OFFLOAD_ACTION_ERROR]) {
        ds_put_cstr(err, "; ");
        format_moved(err, &before, &after);
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

    frame_init(&f, frame_by_name(c->frame));
    check_act_frame(p, &f, c->acts, err);
    frame_destroy(&f);
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

        frame_init(&f, frame_by_name(name));
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
        frame_destroy(&f);
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
    frame_init(&f, frame_by_name(c->frame));
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
    frame_destroy(&f);
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
    clear_flows(p);
    set_masks(p, 1, &slot, &f->mask);
    add_flow(p, &f->key, &f->mask, slot, e);
}

/* OUTPUT to a device that is not in the devmap: dropped and counted. */
static void
check_act_no_egress(const struct prog *p, struct ds *err)
{
    uint64_t stub[64 / 8];
    struct ofpbuf odp = OFPBUF_STUB_INITIALIZER(stub);
    struct afxdp_flow_entry e;
    struct frame f;

    frame_init(&f, frame_by_name("IPv4 UDP"));
    only_output_flow(p, &f, &e, &odp, ACT_EGRESS_IFINDEX + 1000, 0);
    run_expect(p, f.pkt, "output to a device not in the devmap", XDP_DROP,
               AFXDP_PROG_OFFLOAD_ACTION_ERROR, -1, err);
    ofpbuf_uninit(&odp);
    frame_destroy(&f);
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

    flow_counts(p, &f->key, 0, &counts);
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

    frame_init(&f, frame_by_name("IPv4 UDP"));
    jumbo = dp_packet_clone(f.pkt);
    dp_packet_put_zeros(jumbo, 9000 - dp_packet_size(jumbo));
    only_output_flow(p, &f, &e, &odp, 0, AFXDP_FLOW_OUT_NO_SG);
    run_expect(p, jumbo, "multi-buffer frame, egress without SG", XDP_PASS,
               AFXDP_PROG_OFFLOAD_NO_SG, AFXDP_PROG_NO_SOCKET, err);
    run_expect(p, f.pkt, "single-buffer frame, egress without SG",
               XDP_REDIRECT, AFXDP_PROG_OFFLOAD_FORWARDED, -1, err);
    check_flow_counts(p, &f, "egress without SG", 1, dp_packet_size(f.pkt),
                      err);
    ofpbuf_uninit(&odp);

    ofpbuf_use_stub(&odp, stub, sizeof stub);
    only_output_flow(p, &f, &e, &odp, 0, 0);
    run_expect(p, jumbo, "multi-buffer frame, egress with SG", XDP_REDIRECT,
               AFXDP_PROG_OFFLOAD_FORWARDED, -1, err);
    check_flow_counts(p, &f, "egress with SG", 1, 9000, err);
    dp_packet_delete(jumbo);
    ofpbuf_uninit(&odp);
    frame_destroy(&f);
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

        frame_init(&f, frame_by_name(names[i]));
        partial = dp_packet_clone(f.pkt);
        if (afxdp_rxcsum_detect(dp_packet_data(f.pkt),
                                dp_packet_size(f.pkt), &info)) {
            ds_put_format(err, "; %s already pseudo-header only", names[i]);
        }
        seed = ~csum_finish(info.h.pseudo);
        memcpy((uint8_t *) dp_packet_data(partial) + info.csum_ofs, &seed,
               sizeof seed);
        only_output_flow(p, &f, &e, &odp, 0, 0);
        run_expect(p, partial, names[i], XDP_PASS,
                   AFXDP_PROG_OFFLOAD_CSUM_PARTIAL, AFXDP_PROG_NO_SOCKET,
                   err);
        run_expect(p, f.pkt, names[i], XDP_REDIRECT,
                   AFXDP_PROG_OFFLOAD_FORWARDED, -1, err);
        check_flow_counts(p, &f, names[i], 1, dp_packet_size(f.pkt), err);

        memset(&e, 0, sizeof e);
        e.acts[0] = AFXDP_FLOW_ACT_MARK;
        e.mark = 7;
        clear_flows(p);
        set_masks(p, 1, &slot, &f.mask);
        add_flow(p, &f.key, &f.mask, slot, &e);
        run_expect(p, partial, names[i], XDP_PASS,
                   AFXDP_PROG_OFFLOAD_MARKED, AFXDP_PROG_NO_SOCKET, err);
        dp_packet_delete(partial);
        ofpbuf_uninit(&odp);
        frame_destroy(&f);
    }
}

/* Random cases the 'actions' command runs by default, always the same
 * ones. */
#define ACT_N_RANDOM 10000
#define ACT_RANDOM_SEED 1

static void
cmd_actions(struct ovs_cmdl_context *ctx)
{
    int n_random, seed, n_random_bad;
    uint32_t ifindex = ACT_EGRESS_IFINDEX;
    int n_bad = 0, n = ARRAY_SIZE(act_cases);
    struct ds err = DS_EMPTY_INITIALIZER;
    struct prog p;
    int ret;

    random_args(ctx, ACT_N_RANDOM, ACT_RANDOM_SEED, &n_random, &seed);
    afxdp_odp_execute_init();
    prog_load(&p);
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
    prog_unload(&p);
    printf("%d random cases (seed %d), %d disagree\n", n_random, seed,
           n_random_bad);
    printf("%d action cases, %d disagree\n", n + 3, n_bad);
    exit(n_bad || n_random_bad ? 1 : 0);
}

static const struct ovs_cmdl_command commands[] = {
    {"translate", "", 0, 0, cmd_translate, OVS_RO},
    {"parse", "[N-RANDOM [SEED]]", 0, 2, cmd_parse, OVS_RO},
    {"actions", "[N-RANDOM [SEED]]", 0, 2, cmd_actions, OVS_RO},
    {"cost", "[REPEAT]", 0, 1, cmd_cost, OVS_RO},
    {"table", "", 0, 0, cmd_table, OVS_RO},
    {"verifier", "", 0, 0, cmd_verifier, OVS_RO},
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
