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

#ifndef TEST_AFXDP_OFFLOAD_PROG_H
#define TEST_AFXDP_OFFLOAD_PROG_H 1

/* Our XDP program loaded for the checks of 'ovstest test-afxdp-offload'
 * (not attached anywhere), its flow table, counters and frames: defined in
 * test-afxdp-offload.c, used there and by the 'actions' command in
 * test-afxdp-offload-actions.c.  The 'tao_' prefix is this test's. */

#include <stdint.h>

#include "bpf/afxdp-flow.h"
#include "bpf/afxdp-shared.h"
#include "flow.h"
#include "test-afxdp-offload.h"

struct afxdp_flow_masks;
struct afxdp_flow_table;
struct dp_packet;
struct ds;
struct ovs_cmdl_context;

/* The flows added since the flow table was last emptied. */
struct added {
    size_t n;
    struct {
        __u64 key[AFXDP_FLOW_KEY_WORDS];    /* Lookup key. */
        struct afxdp_flow_place place;
    } flows[AFXDP_FLOW_MAX_FLOWS];
};

/* Our XDP program, loaded for the tests. */
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

/* Program counters, summed over CPUs. */
struct counters {
    uint64_t c[AFXDP_PROG_N_COUNTERS];
};

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

/* Loads our XDP program without hints. */
void tao_prog_load(struct prog *p);

/* Frees what tao_prog_load() loaded. */
void tao_prog_unload(struct prog *p);

/* Reads the program's counters into '*out'. */
void tao_read_counters(const struct prog *p, struct counters *out);

/* Writes the mask table: 'n' masks, tried in the order of 'slots'. */
void tao_set_masks(const struct prog *p, int n, const int slots[],
                   const struct afxdp_flow_key masks[]);

/* Adds the flow 'key' (masked) in mask slot 'slot', whose mask is (or
 * will be) 'mask', with the actions of 'entry'. */
void tao_add_flow(const struct prog *p, const struct afxdp_flow_key *key,
                  const struct afxdp_flow_key *mask, int slot,
                  const struct afxdp_flow_entry *entry);

/* Reads the counters of flow 'key' in 'slot' of the mask table, summed
 * over CPUs. */
void tao_flow_counts(const struct prog *p, const struct afxdp_flow_key *key,
                     int slot, struct afxdp_flow_counts *sum);

/* Empties the mask table and the flow table. */
void tao_clear_flows(const struct prog *p);

/* Fills 'f' for frame 'index' of afxdp_offload_frames[]. */
void tao_frame_init(struct frame *f, int index);

/* Frees what tao_frame_init() allocated. */
void tao_frame_destroy(struct frame *f);

/* Counters that moved from 'a' to 'b', as text. */
void tao_format_moved(struct ds *s, const struct counters *a,
                      const struct counters *b);

/* Runs 'pkt' and checks that it gives 'action' and moves exactly the
 * counters 'c1' and 'c2' (-1 for none) by one.  Appends what differs to
 * 'err'. */
void tao_run_expect(const struct prog *p, const struct dp_packet *pkt,
                    const char *what, uint32_t action, int c1, int c2,
                    struct ds *err);

/* The optional "N SEED" arguments of a command with random cases: stores
 * them in '*n' and '*seed', or 'default_n' and 'default_seed' where
 * absent. */
void tao_random_args(const struct ovs_cmdl_context *ctx, int default_n,
                     int default_seed, int *n, int *seed);

/* Returns the index of the frame called 'name'. */
int tao_frame_by_name(const char *name);

/* The 'actions' command (test-afxdp-offload-actions.c). */
void tao_cmd_actions(struct ovs_cmdl_context *ctx);

#endif /* test-afxdp-offload-prog.h */
