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

/* Flow offload into our XDP program, the part no OVS version changes.  See
 * afxdp-offload.h for what it does, afxdp-offload-private.h for how OVS's
 * offload API reaches it, and bpf/afxdp-flow.h for the maps it writes and
 * their update protocol. */

#include <config.h>

#include "afxdp-offload.h"

#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "afxdp-flow-table.h"
#include "afxdp-offload-egress.h"
#include "afxdp-offload-marks.h"
#include "afxdp-offload-private.h"
#include "afxdp-offload-rank.h"
#include "afxdp-port-private.h"
#include "afxdp-xdp.h"
#include "bpf/afxdp-flow.h"
#include "coverage.h"
#include "dpif.h"
#include "flow.h"
#include "netdev-provider.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "openvswitch/match.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "random.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_offload);

COVERAGE_DEFINE(afxdp_offload_refused_match);
COVERAGE_DEFINE(afxdp_offload_refused_action);
COVERAGE_DEFINE(afxdp_offload_refused_space);
COVERAGE_DEFINE(afxdp_offload_egress_removed);
COVERAGE_DEFINE(afxdp_offload_egress_broken);
COVERAGE_DEFINE(afxdp_offload_egress_no_xmit);
COVERAGE_DEFINE(afxdp_offload_egress_lost);
COVERAGE_DEFINE(afxdp_offload_egress_regained);
COVERAGE_DEFINE(afxdp_offload_masks_ranked);
COVERAGE_DEFINE(afxdp_offload_grace_wait);
COVERAGE_DEFINE(afxdp_offload_table_write_error);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* In 'slot_freed': the slot left the lookup order of 'table', but the
 * program's table could not be written since; its grace period has not
 * started. */
#define AFXDP_OFFLOAD_SLOT_UNWRITTEN UINT64_MAX

/* How many times a flow_put waits for a grace period, at most, for a mask
 * slot or a flow id to become free. */
#define AFXDP_OFFLOAD_GRACE_TRIES 3

/* One offloaded megaflow. */
struct afxdp_offload_flow {
    struct hmap_node node;          /* In 'flows', by 'ufid'. */
    ovs_u128 ufid;                  /* OVS's megaflow ufid. */
    struct afxdp_flow_key key;      /* Masked by 'mask'; no slot. */
    struct afxdp_flow_key mask;
    struct afxdp_flow_entry entry;  /* Actions, and the lookup key while
                                     * installed. */
    bool partial;                   /* ACT_MARK: the PMD runs actions. */
    bool can_full;                  /* XDP can run its actions: 'full'. */
    bool egress_off;                /* Partial although 'can_full': its
                                     * egress takes no redirected frames
                                     * (afxdp_offload_choose()). */
    struct afxdp_flow_entry full;   /* Its actions in XDP, if 'can_full'. */
    uint32_t mark;                  /* OVS's flow mark. */
    uint32_t serial;                /* What the program marks its frames
                                     * with while installed partial, else
                                     * 0 (afxdp-offload-marks.h). */
    int slot;                       /* Mask slot, -1 if not in a program. */
    struct afxdp_flow_place place;  /* In the flow table, while 'slot' is
                                     * not -1. */
    struct dpif_flow_stats base;    /* Counts from programs gone. */
    uint64_t seen_packets;          /* Its packets in this program when
                                     * last read... */
    long long int used;             /* ...and when they last moved (the
                                     * program keeps no time), 0 if
                                     * never. */
    struct afxdp_offload_egress_probe probe;   /* Its egress' watch. */
    bool stale;                     /* Its egress left OVS, or OVS's
                                     * modification of it could not be
                                     * offloaded: in no program until OVS
                                     * puts or deletes it. */
};

/* Offload state of one port. */
struct afxdp_offload {
    struct ovs_list list_node;      /* In 'all_offloads'. */
    char *name;                     /* Port name, for logs. */
    struct ovs_mutex mutex;         /* Guards what follows. */
    struct hmap flows OVS_GUARDED;  /* struct afxdp_offload_flow. */
    struct hmap replacing OVS_GUARDED;  /* Flows a put replaces, while it
                                         * waits (see flow_put). */
    bool attached OVS_GUARDED;      /* 'maps' are a live program's. */
    bool marks OVS_GUARDED;         /* Its hints can carry a flow mark. */
    bool generic OVS_GUARDED;       /* Its program runs on skbs. */
    struct afxdp_xdp_flow_maps maps OVS_GUARDED;
    struct afxdp_flow_masks table OVS_GUARDED;   /* As in the program. */
    int slot_refs[AFXDP_FLOW_MAX_MASKS] OVS_GUARDED;   /* Flows per slot. */
    /* For a slot without flows, the grace period that must end before it
     * takes another mask (afxdp_flow_table_grace_mark() when it left the
     * lookup order; 0 if it never was in it). */
    uint64_t slot_freed[AFXDP_FLOW_MAX_MASKS] OVS_GUARDED;
    uint64_t gone_seq OVS_GUARDED;  /* Bumped when an egress leaves OVS. */
    uint64_t flush_seq OVS_GUARDED; /* Bumped by each flush. */
    struct afxdp_offload_egress_set egress OVS_GUARDED;  /* Its devmap. */
    struct afxdp_offload_ranker ranker OVS_GUARDED;
    struct afxdp_flow_table *flow_table OVS_GUARDED;  /* Its copy. */
    struct afxdp_offload_marks *serials;    /* Written under 'mutex', read
                                             * by the receive path. */
};

static struct ovs_mutex all_offloads_mutex = OVS_MUTEX_INITIALIZER;
static struct ovs_list all_offloads OVS_GUARDED_BY(all_offloads_mutex)
    = OVS_LIST_INITIALIZER(&all_offloads);

/* Maps of a live program.  All with 'offload->mutex' held. */

/* The devmap of the program of 'o', -1 if it has none. */
static int
afxdp_offload_devmap(const struct afxdp_offload *o)
    OVS_REQUIRES(o->mutex)
{
    return o->attached ? o->maps.egress_fd : -1;
}

/* Writes the mask table to the program. */
static int
afxdp_offload_write_table(struct afxdp_offload *o)
    OVS_REQUIRES(o->mutex)
{
    uint32_t zero = 0;
    int ret;

    /* The kernel copies the table without any order, so a new slot's mask
     * is written by an earlier update than the byte of 'order' that names
     * it.  This fence orders the copies made by our earlier bpf() calls
     * (which ran on this CPU, or before a migration, which orders all)
     * before this one's: pairs with the program's load of 'order[i]', on
     * which its reads of the slot depend (afxdp_flow_lookup()). */
    atomic_thread_fence(memory_order_seq_cst);
    ret = bpf_map_update_elem(o->maps.masks_fd, &zero, &o->table, BPF_ANY);
    if (ret) {
        COVERAGE_INC(afxdp_offload_table_write_error);
        VLOG_WARN_RL(&rl, "%s: cannot write the XDP program's mask table "
                     "(%s)", o->name, ovs_strerror(-ret));
        return -ret;
    }
    /* Slots that left the order in 'o->table' have left the program's
     * now: their grace period can start. */
    for (int i = 0; i < AFXDP_FLOW_MAX_MASKS; i++) {
        if (o->slot_freed[i] == AFXDP_OFFLOAD_SLOT_UNWRITTEN) {
            o->slot_freed[i] = afxdp_flow_table_grace_mark();
        }
    }
    return 0;
}

/* Finds a slot for 'mask' and stores it in '*slotp': the one in use that
 * has it; or one without flows that has it (still, or again: a slot can
 * come back at once to the mask it had); or a free one whose grace period
 * ended, the one freed the longest ago, with the mask written (not yet in
 * the lookup order).  Returns 0, ENOSPC if all slots are in use, EAGAIN if
 * the others await the end of a grace period, or an errno from the
 * kernel. */
static int
afxdp_offload_get_slot(struct afxdp_offload *o,
                       const struct afxdp_flow_key *mask, int *slotp)
    OVS_REQUIRES(o->mutex)
{
    struct afxdp_flow_key m = *mask;
    int free_slot = -1, same = -1;
    bool waiting = false;
    int error;

    m.mask_slot = 0xff;         /* As in the table. */
    for (int i = 0; i < AFXDP_FLOW_MAX_MASKS; i++) {
        bool has_mask = !memcmp(&o->table.masks[i], &m, sizeof m);

        if (o->slot_refs[i]) {
            if (has_mask) {
                *slotp = i;
                return 0;
            }
        } else if (has_mask) {
            same = i;
        } else if (!afxdp_flow_table_grace_done(o->slot_freed[i])) {
            waiting = true;
        } else if (free_slot < 0
                   || o->slot_freed[i] < o->slot_freed[free_slot]) {
            free_slot = i;
        }
    }
    if (same >= 0) {
        *slotp = same;
        return 0;
    }
    if (free_slot < 0) {
        return waiting ? EAGAIN : ENOSPC;
    }

    /* No program run can be reading the slot: see "Update protocol" in
     * bpf/afxdp-flow.h. */
    afxdp_flow_slot_set(&o->table, free_slot, mask);
    error = afxdp_offload_write_table(o);
    if (error) {
        return error;
    }
    *slotp = free_slot;
    return 0;
}

/* Takes a reference to 'slot'; the first one puts it at the end of the
 * lookup order.  Returns 0, or an errno if the program's table could not
 * be written (then nothing changed). */
static int
afxdp_offload_slot_use(struct afxdp_offload *o, int slot)
    OVS_REQUIRES(o->mutex)
{
    if (!o->slot_refs[slot]) {
        int error;

        /* Where AFXDP_FLOW_ORDER_END was. */
        o->table.order[o->table.n_masks++] = slot;
        error = afxdp_offload_write_table(o);
        if (error) {
            o->table.order[--o->table.n_masks] = AFXDP_FLOW_ORDER_END;
            return error;
        }
    }
    o->slot_refs[slot]++;
    return 0;
}

/* Drops a reference to 'slot'; the last one takes it out of the order.
 * If the program's table cannot be written, the slot waits, unusable,
 * until a later write succeeds (afxdp_offload_write_table()): the program
 * may still look it up. */
static void
afxdp_offload_slot_unuse(struct afxdp_offload *o, int slot)
    OVS_REQUIRES(o->mutex)
{
    if (--o->slot_refs[slot]) {
        return;
    }
    for (uint32_t i = 0; i < o->table.n_masks; i++) {
        if (o->table.order[i] == slot) {
            memmove(&o->table.order[i], &o->table.order[i + 1],
                    o->table.n_masks - i - 1);
            o->table.n_masks--;
            o->table.order[o->table.n_masks] = AFXDP_FLOW_ORDER_END;
            break;
        }
    }
    o->slot_freed[slot] = AFXDP_OFFLOAD_SLOT_UNWRITTEN;
    afxdp_offload_write_table(o);
}

/* Reads the counters of installed 'flow', summed over CPUs, into
 * '*stats' (not counting 'base'), and notes when they last moved. */
static void
afxdp_offload_read_stats(struct afxdp_offload *o,
                         struct afxdp_offload_flow *flow,
                         struct dpif_flow_stats *stats)
    OVS_REQUIRES(o->mutex)
{
    struct afxdp_flow_counts sum;

    memset(stats, 0, sizeof *stats);
    if (flow->slot < 0) {
        return;
    }
    if (!afxdp_flow_table_read(o->flow_table, &flow->place, &sum)) {
        stats->n_packets = sum.packets;
        stats->n_bytes = sum.bytes;
        stats->tcp_flags = sum.tcp_flags;
    }
    /* Like OVS's DPDK offload, whose hardware keeps no time either: the
     * flow was used if its count moved since the last read. */
    if (stats->n_packets != flow->seen_packets) {
        flow->seen_packets = stats->n_packets;
        flow->used = time_msec();
    }
    stats->used = flow->used;
}

/* Adds 'b' to 'a'. */
static void
afxdp_stats_add(struct dpif_flow_stats *a, const struct dpif_flow_stats *b)
{
    a->n_packets += b->n_packets;
    a->n_bytes += b->n_bytes;
    a->used = MAX(a->used, b->used);
    a->tcp_flags |= b->tcp_flags;
}

/* Frames that still carry the serial of 'flow', which just left the
 * program (or never made it in), will get no mark. */
static void
afxdp_offload_forget_serial(struct afxdp_offload *o,
                            struct afxdp_offload_flow *flow)
    OVS_REQUIRES(o->mutex)
{
    if (flow->serial) {
        afxdp_offload_marks_remove(o->serials, flow->serial);
        flow->serial = 0;
        flow->entry.mark = 0;
    }
}

/* Installs 'flow' into the program.  Returns 0 or an errno: EAGAIN if a
 * mask slot or a flow id would be free after a grace period (see
 * afxdp_offload_install_wait()). */
static int
afxdp_offload_install(struct afxdp_offload *o, struct afxdp_offload_flow *flow)
    OVS_REQUIRES(o->mutex)
{
    unsigned int size;
    int slot, error;

    if (!o->attached || (flow->partial && !o->marks)) {
        return EOPNOTSUPP;
    }
    afxdp_offload_egress_reap(&o->egress, afxdp_offload_devmap(o));
    error = afxdp_offload_get_slot(o, &flow->mask, &slot);
    if (error) {
        if (error == ENOSPC) {
            COVERAGE_INC(afxdp_offload_refused_space);
        }
        return error;
    }
    if (flow->entry.out_ifindex) {
        error = afxdp_offload_egress_ref(&o->egress, o->maps.egress_fd,
                                         flow->entry.out_ifindex);
        if (error) {
            return error;
        }
    }
    size = afxdp_flow_lookup_key(&o->table, slot, &flow->key,
                                 flow->entry.key);
    if (flow->partial) {
        /* A serial of its own, before any frame can carry it. */
        afxdp_offload_forget_serial(o, flow);
        flow->serial = afxdp_offload_marks_add(o->serials, flow->mark);
        flow->entry.mark = flow->serial;
    }
    error = afxdp_flow_table_add(o->flow_table, &flow->entry,
                                 AFXDP_FLOW_KEY_SIZE_WORDS(size),
                                 &flow->place);
    if (error) {
        afxdp_offload_forget_serial(o, flow);
        if (flow->entry.out_ifindex) {
            afxdp_offload_egress_unref(&o->egress, flow->entry.out_ifindex);
        }
        if (error == ENOSPC) {
            COVERAGE_INC(afxdp_offload_refused_space);
        }
        return error;
    }
    error = afxdp_offload_slot_use(o, slot);
    if (error) {
        afxdp_flow_table_remove(o->flow_table, &flow->place);
        afxdp_offload_forget_serial(o, flow);
        if (flow->entry.out_ifindex) {
            afxdp_offload_egress_unref(&o->egress, flow->entry.out_ifindex);
        }
        return error;
    }
    flow->slot = slot;
    flow->seen_packets = 0;
    afxdp_offload_egress_probe_start(&o->egress, flow->entry.out_ifindex,
                                     &flow->probe);
    return 0;
}

/* Removes 'flow' from the program, keeping its counts in 'base'. */
static void
afxdp_offload_uninstall(struct afxdp_offload *o,
                        struct afxdp_offload_flow *flow)
    OVS_REQUIRES(o->mutex)
{
    struct dpif_flow_stats stats;

    if (flow->slot < 0) {
        return;
    }
    if (o->attached) {
        if (!flow->partial) {
            /* The PMD counts a partial flow's frames itself. */
            afxdp_offload_read_stats(o, flow, &stats);
            afxdp_stats_add(&flow->base, &stats);
        }
        afxdp_flow_table_remove(o->flow_table, &flow->place);
        afxdp_offload_forget_serial(o, flow);
        afxdp_offload_slot_unuse(o, flow->slot);
        if (flow->entry.out_ifindex) {
            afxdp_offload_egress_unref(&o->egress, flow->entry.out_ifindex);
        }
    }
    flow->slot = -1;
}

/* Installs 'flow', not yet in 'o->flows', as afxdp_offload_install()
 * does, but where that needs a mask slot or a flow id that a grace period
 * keeps, waits for it, with 'o->mutex' released (revalidators take it to
 * read counts), and tries again.  Gives up, and returns ENOSPC, when a
 * port leaves OVS meanwhile (the flow may output to it) or when no slot or
 * id comes free. */
static int
afxdp_offload_install_wait(struct afxdp_offload *o,
                           struct afxdp_offload_flow *flow)
    OVS_REQUIRES(o->mutex)
{
    static struct vlog_rate_limit wait_rl = VLOG_RATE_LIMIT_INIT(5, 20);
    int error = afxdp_offload_install(o, flow);
    bool waited = false;

    for (int i = 0; error == EAGAIN && i < AFXDP_OFFLOAD_GRACE_TRIES; i++) {
        uint64_t mark = afxdp_flow_table_grace_mark();
        uint64_t gone_seq = o->gone_seq;
        long long int start = time_msec();
        int wait_error;

        COVERAGE_INC(afxdp_offload_grace_wait);
        waited = true;
        ovs_mutex_unlock(&o->mutex);
        wait_error = afxdp_flow_table_grace_wait(mark);
        ovs_mutex_lock(&o->mutex);
        VLOG_DBG_RL(&wait_rl, "%s: waited %lld ms for a grace period, to "
                    "reuse a mask slot or a flow id", o->name,
                    time_msec() - start);
        if (wait_error || o->gone_seq != gone_seq) {
            break;
        }
        error = afxdp_offload_install(o, flow);
    }
    if (error == EAGAIN) {
        COVERAGE_INC(afxdp_offload_refused_space);
        error = ENOSPC;
    }
    if (waited) {
        /* The offload thread runs no poll loop, which would add its
         * coverage counts to those that coverage/show reports. */
        coverage_try_clear();
    }
    return error;
}

/* Hash of a ufid, as dpif-netdev hashes them: its words are random. */
static uint32_t
afxdp_ufid_hash(const ovs_u128 *ufid)
{
    return ufid->u32[0];
}

static struct afxdp_offload_flow *
afxdp_offload_find(const struct hmap *flows, const ovs_u128 *ufid)
{
    struct afxdp_offload_flow *flow;

    HMAP_FOR_EACH_WITH_HASH (flow, node, afxdp_ufid_hash(ufid), flows) {
        if (ovs_u128_equals(flow->ufid, *ufid)) {
            return flow;
        }
    }
    return NULL;
}

static void
afxdp_offload_remove(struct afxdp_offload *o, struct afxdp_offload_flow *flow)
    OVS_REQUIRES(o->mutex)
{
    afxdp_offload_uninstall(o, flow);
    hmap_remove(&o->flows, &flow->node);
    free(flow);
}

/* Puts 'flow' into 'o->flows', replacing (and removing from the program)
 * any flow with its ufid there.  Only afxdp_offload_flow_put() adds flows,
 * and OVS puts a given ufid from one offload thread only, so there is none
 * but by a caller's mistake. */
static void
afxdp_offload_insert(struct afxdp_offload *o, struct afxdp_offload_flow *flow)
    OVS_REQUIRES(o->mutex)
{
    struct afxdp_offload_flow *same = afxdp_offload_find(&o->flows,
                                                         &flow->ufid);

    if (same) {
        afxdp_offload_remove(o, same);
    }
    hmap_insert(&o->flows, &flow->node, afxdp_ufid_hash(&flow->ufid));
}

/* Puts the masks of 'o' that had the most hits since the last ranking
 * first, as OVS's classifier ranks its subtables, when that saves enough
 * lookups (see AFXDP_OFFLOAD_RANK_*).  Only the order changes, which is
 * safe at any time (bpf/afxdp-flow.h). */
static void
afxdp_offload_rank(struct afxdp_offload *o)
    OVS_REQUIRES(o->mutex)
{
    uint8_t order[AFXDP_FLOW_MAX_MASKS], old_order[AFXDP_FLOW_MAX_MASKS];
    uint32_t n = o->table.n_masks;
    uint64_t before, after, total;

    if (!o->attached
        || !afxdp_offload_rank_next(&o->ranker, o->maps.mask_hits_fd,
                                    o->table.order, n, time_msec(), order,
                                    &before, &after, &total)) {
        return;
    }
    memcpy(old_order, o->table.order, n);
    memcpy(o->table.order, order, n);
    if (afxdp_offload_write_table(o)) {
        /* The program keeps the order it had. */
        memcpy(o->table.order, old_order, n);
        return;
    }
    COVERAGE_INC(afxdp_offload_masks_ranked);
    VLOG_DBG("%s: masks ranked by hits: %"PRIu64" lookups instead of "
             "%"PRIu64" for the last %"PRIu64" frames", o->name, after,
             before, total);
}

/* Makes 'flow' a partial offload: the program only marks its frames. */
static void
afxdp_offload_make_partial(struct afxdp_offload_flow *flow)
{
    memset(&flow->entry, 0, sizeof flow->entry);
    flow->entry.acts[0] = AFXDP_FLOW_ACT_MARK;
    flow->partial = true;           /* Its serial comes at install. */
}

/* True if device 'ifindex' takes the frames that the program of 'o'
 * redirects to it, as far as we know.  A program on skbs (generic XDP)
 * redirects skbs, which any device transmits.  A native one hands frames
 * to the device's ndo_xdp_xmit, which may drop them
 * (afxdp_offload_egress_takes()). */
static bool
afxdp_offload_out_takes(const struct afxdp_offload *o, int ifindex)
    OVS_REQUIRES(o->mutex)
{
    /* Frames redirected to a port that polices its egress would bypass
     * its policer (afxdp-qos.h). */
    return ((o->generic || afxdp_offload_egress_takes(ifindex))
            && !afxdp_port_egress_policed(ifindex));
}

/* The AFXDP_FLOW_OUT_* flags of an output to device 'ifindex', which
 * afxdp_offload_out_takes(): AFXDP_FLOW_OUT_NO_SG if a native program's
 * multi-buffer frames (jumbo frames) would be dropped there, because the
 * kernel says the device's ndo_xdp_xmit takes single-buffer frames only;
 * the program then hands those frames to the PMD, and redirects the
 * others. */
static uint8_t
afxdp_offload_out_flags(const struct afxdp_offload *o, int ifindex)
    OVS_REQUIRES(o->mutex)
{
    return (!o->generic && afxdp_offload_egress_single_buffer(ifindex)
            ? AFXDP_FLOW_OUT_NO_SG : 0);
}

/* Sets what 'flow', not installed, runs in the program of 'o': its actions
 * if XDP can run them all and its egress takes redirected frames, or else
 * a flow mark for the PMD. */
static void
afxdp_offload_choose(const struct afxdp_offload *o,
                     struct afxdp_offload_flow *flow)
    OVS_REQUIRES(o->mutex)
{
    flow->egress_off = false;
    if (!flow->can_full) {
        afxdp_offload_make_partial(flow);
    } else if (flow->full.out_ifindex
               && !afxdp_offload_out_takes(o, flow->full.out_ifindex)) {
        flow->egress_off = true;
        afxdp_offload_make_partial(flow);
    } else {
        flow->entry = flow->full;
        if (flow->entry.out_ifindex) {
            flow->entry.out_flags
                = afxdp_offload_out_flags(o, flow->entry.out_ifindex);
        }
        flow->partial = false;
    }
}

/* Device 'ifindex' started or stopped taking redirected frames: each flow
 * of 'o' that outputs to it and whose place (XDP or the PMD) that changes
 * is put back into the program, fully or partially offloaded.  A flow that
 * cannot be put back (no flow marks, no room) stays out of the program,
 * its frames going to the PMD, until OVS puts it again or the program is
 * replaced.  Adds the number of flows moved to the PMD to '*to_pmd', and
 * of those moved into XDP to '*to_xdp'. */
static void
afxdp_offload_rechoose(struct afxdp_offload *o, int ifindex,
                       int *to_pmd, int *to_xdp)
    OVS_REQUIRES(o->mutex)
{
    struct afxdp_offload_flow *flow;

    HMAP_FOR_EACH (flow, node, &o->flows) {
        bool was_full = flow->slot >= 0 && !flow->partial;
        bool is_full;

        if (!flow->can_full || flow->stale
            || flow->full.out_ifindex != ifindex) {
            continue;
        }
        if (flow->slot >= 0
            && (flow->egress_off == afxdp_offload_out_takes(o, ifindex)
                || (!flow->partial && flow->entry.out_flags
                    != afxdp_offload_out_flags(o, ifindex)))) {
            afxdp_offload_uninstall(o, flow);
        } else if (flow->slot >= 0) {
            continue;
        }
        afxdp_offload_choose(o, flow);
        if (afxdp_offload_install(o, flow)) {
            VLOG_DBG_RL(&rl, "%s: a flow to device %d could not be put back "
                        "into the XDP program; the PMD handles it", o->name,
                        ifindex);
        }
        is_full = flow->slot >= 0 && !flow->partial;
        *to_pmd += was_full && !is_full;
        *to_xdp += !was_full && is_full;
    }
}

/* Checks, for the installed 'flow' that outputs to a veth and has
 * redirected 'packets' frames so far, that the veth takes them
 * (afxdp-offload-egress.h).  Demotes the flows to it if it does not, and
 * returns true if it was found broken just now (the caller then tells OVS
 * with afxdp_offload_egress_changed() once it released 'o->mutex'). */
static bool
afxdp_offload_check_egress(struct afxdp_offload *o,
                           struct afxdp_offload_flow *flow, uint64_t packets)
    OVS_REQUIRES(o->mutex)
{
    int ifindex = flow->entry.out_ifindex;
    char name[IF_NAMESIZE];
    int moved = 0;
    bool new;

    if (o->generic
        || !afxdp_offload_egress_drops(&o->egress, ifindex, &flow->probe,
                                       packets)) {
        return false;
    }

    COVERAGE_INC(afxdp_offload_egress_broken);
    if (!if_indextoname(ifindex, name)) {
        ovs_strlcpy(name, "(gone)", sizeof name);
    }
    new = afxdp_offload_egress_mark_broken(ifindex, name);
    if (new) {
        VLOG_WARN("%s: the veth %s drops the frames offloaded flows redirect "
                  "to it (its peer has neither an XDP program nor GRO on); "
                  "those flows go back to the PMD.  Turn GRO on on the "
                  "peer (ethtool -K PEER gro on), then re-add %s to OVS, "
                  "to offload them again", o->name, name, name);
    }
    afxdp_offload_rechoose(o, ifindex, &moved, &moved);
    return new;
}

/* Device 'ifindex' started or stopped taking the frames that XDP
 * redirects to it: every port's flows that output to it move into XDP or
 * back to the PMD at once, and the log says 'why'.  Without our locks. */
static void
afxdp_offload_rechoose_every(int ifindex, const char *why)
{
    int to_pmd = 0, to_xdp = 0;
    char name[IF_NAMESIZE];
    struct afxdp_offload *o;

    ovs_mutex_lock(&all_offloads_mutex);
    LIST_FOR_EACH (o, list_node, &all_offloads) {
        ovs_mutex_lock(&o->mutex);
        afxdp_offload_rechoose(o, ifindex, &to_pmd, &to_xdp);
        ovs_mutex_unlock(&o->mutex);
    }
    ovs_mutex_unlock(&all_offloads_mutex);

    if (!if_indextoname(ifindex, name)) {
        snprintf(name, sizeof name, "%d", ifindex);
    }
    COVERAGE_ADD(afxdp_offload_egress_lost, to_pmd);
    COVERAGE_ADD(afxdp_offload_egress_regained, to_xdp);
    VLOG_INFO("%s: %s: %d offloaded flow(s) to it moved to the PMD, %d into "
              "XDP", name, why, to_pmd, to_xdp);
}

/* The kernel says that device 'ifindex' started ('takes') or stopped
 * taking redirected frames, or multi-buffer ones (a veth's peer turned GRO
 * or an XDP program on or off).  Called by afxdp-xdp-features' thread
 * (afxdp_offload_egress_init()). */
static void
afxdp_offload_rechoose_all(int ifindex, bool takes)
{
    afxdp_offload_rechoose_every(ifindex, takes
        ? "takes frames redirected by XDP (the kernel's XDP features of the "
          "device have ndo_xmit)"
        : "no longer takes frames redirected by XDP (the kernel's XDP "
          "features of the device lack ndo_xmit; a veth needs an XDP "
          "program or GRO on its peer)");
    /* This thread runs no poll loop that would publish its counts. */
    coverage_try_clear();
}

void
afxdp_offload_egress_policed(int ifindex, bool policed)
{
    afxdp_offload_rechoose_every(ifindex, policed
        ? "egress policed in the send path, which frames redirected by XDP "
          "bypass"
        : "egress no longer policed");
}

/* What OVS's offload API calls, through the glue of its generation
 * (afxdp-offload-private.h). */

/* Returns the offload state of afxdp netdev 'netdev', or NULL.  The
 * caller holds a reference to 'netdev', which keeps the state alive. */
static struct afxdp_offload *
afxdp_offload_get(const struct netdev *netdev)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);

    return port ? port->offload : NULL;
}

int
afxdp_offload_flow_put(struct netdev *netdev, const struct match *match,
                       const struct nlattr *actions, size_t actions_len,
                       const ovs_u128 *ufid, uint32_t mark)
{
    struct afxdp_offload_flow *flow, *old;
    struct afxdp_offload *o;
    uint64_t flush_seq;
    const char *why;
    int error;

    flow = xzalloc(sizeof *flow);
    flow->ufid = *ufid;
    flow->slot = -1;
    why = afxdp_offload_translate_match(match, &flow->key, &flow->mask);
    if (why) {
        COVERAGE_INC(afxdp_offload_refused_match);
        VLOG_DBG_RL(&rl, "%s: flow not offloaded: %s",
                    netdev_get_name(netdev), why);
        free(flow);
        return EOPNOTSUPP;
    }
    flow->mark = mark;
    flow->can_full = afxdp_offload_translate_actions(netdev, actions,
                                                     actions_len,
                                                     &flow->full);
    if (flow->can_full && flow->full.out_ifindex) {
        /* Asks the kernel now, if it must, rather than with the mutex. */
        afxdp_offload_egress_ask(flow->full.out_ifindex);
    }

    o = afxdp_offload_get(netdev);
    if (!o) {
        free(flow);
        return ENODEV;
    }
    ovs_mutex_lock(&o->mutex);
    afxdp_offload_choose(o, flow);
    if (flow->egress_off) {
        COVERAGE_INC(afxdp_offload_egress_no_xmit);
        VLOG_DBG_RL(&rl, "%s: flow not fully offloaded: its egress, device "
                    "%"PRIu32", takes no frames redirected by XDP (a veth "
                    "needs an XDP program or GRO on its peer)",
                    netdev_get_name(netdev), flow->full.out_ifindex);
    }
    /* A modification replaces the flow with the same ufid; its counts
     * carry over.  The old flow moves to 'o->replacing' before anything can
     * release 'o->mutex' (afxdp_offload_install_wait()): there a flush or
     * afxdp_offload_rechoose() neither frees nor reinstalls it, and a
     * revalidator's flow_get still finds its counts (OVS 3.7+ would see
     * them go back).  Ours until put back or freed below. */
    old = afxdp_offload_find(&o->flows, ufid);
    if (old) {
        afxdp_offload_uninstall(o, old);
        flow->base = old->base;
        hmap_remove(&o->flows, &old->node);
        hmap_insert(&o->replacing, &old->node, afxdp_ufid_hash(ufid));
    }
    flush_seq = o->flush_seq;
    if (flow->partial && !o->marks) {
        COVERAGE_INC(afxdp_offload_refused_action);
        VLOG_DBG_RL(&rl, "%s: flow not offloaded: %s and the port's XDP "
                    "hints cannot carry a flow mark (options:xdp-hints="
                    "ts-hash can)", netdev_get_name(netdev),
                    flow->egress_off ? "its egress takes no redirected "
                    "frames" : "its actions need the PMD");
        error = EOPNOTSUPP;
    } else {
        error = afxdp_offload_install_wait(o, flow);
        if (error) {
            VLOG_DBG_RL(&rl, "%s: flow not offloaded: %s", o->name,
                        ovs_strerror(error));
        }
    }
    if (old) {
        hmap_remove(&o->replacing, &old->node);
    }
    if (o->flush_seq != flush_seq) {
        /* OVS flushed the port's flows while we waited: the old flow goes
         * as a flush would have taken it. */
        free(old);
        old = NULL;
    }
    if (error) {
        if (old) {
            /* The old actions leave the program, but not the counts XDP
             * made with them: OVS adds ours to the PMD's, and would see
             * the flow's counts go back.  The record stays, in no program,
             * until OVS puts or deletes the flow again (or the port
             * goes). */
            old->stale = true;
            afxdp_offload_insert(o, old);
        }
        free(flow);
    } else {
        free(old);
        afxdp_offload_insert(o, flow);
    }
    ovs_mutex_unlock(&o->mutex);
    return error;
}

int
afxdp_offload_flow_get(struct netdev *netdev, const ovs_u128 *ufid,
                       struct dpif_flow_stats *stats,
                       struct dpif_flow_attrs *attrs)
{
    struct afxdp_offload_flow *flow;
    struct afxdp_offload *o = afxdp_offload_get(netdev);
    int broken = 0;
    int error = 0;

    if (!o) {
        return ENODEV;
    }
    ovs_mutex_lock(&o->mutex);
    flow = afxdp_offload_find(&o->flows, ufid);
    if (!flow) {
        flow = afxdp_offload_find(&o->replacing, ufid);
    }
    if (!flow) {
        error = ENOENT;
    } else if (flow->slot < 0) {
        /* Out of the program for now (a new program, or its egress left
         * OVS): the counts XDP made stay, so that OVS never sees a flow's
         * counts go back. */
        attrs->offloaded = false;
        attrs->dp_layer = "ovs";
        attrs->dp_extra_info = NULL;
        *stats = flow->base;
    } else {
        attrs->offloaded = true;
        attrs->dp_extra_info = NULL;
        if (flow->partial) {
            /* The PMD counts these frames itself; 'base' holds those XDP
             * forwarded while the flow was fully offloaded, if it was. */
            attrs->dp_layer = "ovs";
            *stats = flow->base;
        } else {
            uint64_t packets;

            attrs->dp_layer = "xdp";
            afxdp_offload_read_stats(o, flow, stats);
            packets = stats->n_packets;
            afxdp_stats_add(stats, &flow->base);
            if (flow->entry.out_ifindex) {
                int ifindex = flow->entry.out_ifindex;

                /* Last: it may replace or free 'flow'. */
                if (afxdp_offload_check_egress(o, flow, packets)) {
                    broken = ifindex;
                }
            }
        }
    }
    afxdp_offload_rank(o);
    afxdp_offload_egress_reap(&o->egress, afxdp_offload_devmap(o));
    ovs_mutex_unlock(&o->mutex);
    if (broken) {
        afxdp_offload_egress_changed(broken);
    }
    return error;
}

int
afxdp_offload_flow_del(struct netdev *netdev, const ovs_u128 *ufid,
                       struct dpif_flow_stats *stats)
{
    struct afxdp_offload_flow *flow;
    struct afxdp_offload *o = afxdp_offload_get(netdev);
    int error = 0;

    if (!o) {
        return ENODEV;
    }
    ovs_mutex_lock(&o->mutex);
    flow = afxdp_offload_find(&o->flows, ufid);
    if (!flow) {
        error = ENOENT;
    } else {
        afxdp_offload_uninstall(o, flow);
        if (stats) {
            *stats = flow->base;
        }
        afxdp_offload_remove(o, flow);
    }
    afxdp_offload_egress_reap(&o->egress, afxdp_offload_devmap(o));
    ovs_mutex_unlock(&o->mutex);
    return error;
}

int
afxdp_offload_flow_flush(struct netdev *netdev)
{
    struct afxdp_offload_flow *flow;
    struct afxdp_offload *o = afxdp_offload_get(netdev);

    if (!o) {
        return ENODEV;
    }
    ovs_mutex_lock(&o->mutex);
    o->flush_seq++;
    HMAP_FOR_EACH_SAFE (flow, node, &o->flows) {
        afxdp_offload_remove(o, flow);
    }
    ovs_mutex_unlock(&o->mutex);
    return 0;
}

int
afxdp_offload_flow_get_n_flows(struct netdev *netdev, uint64_t *n_flows)
{
    struct afxdp_offload *o = afxdp_offload_get(netdev);

    if (!o) {
        return ENODEV;
    }
    ovs_mutex_lock(&o->mutex);
    n_flows[0] = hmap_count(&o->flows);
    ovs_mutex_unlock(&o->mutex);
    return 0;
}

/* Port life cycle. */

struct afxdp_offload *
afxdp_offload_create(const char *name)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    struct afxdp_offload *o = xzalloc(sizeof *o);

    if (ovsthread_once_start(&once)) {
        /* In the main thread (a port's construct), as it must be. */
        afxdp_offload_egress_init(afxdp_offload_rechoose_all);
        ovsthread_once_done(&once);
    }

    o->name = xstrdup(name);
    ovs_mutex_init(&o->mutex);
    hmap_init(&o->flows);
    hmap_init(&o->replacing);
    afxdp_offload_egress_set_init(&o->egress);
    ovs_mutex_lock(&o->mutex);
    o->flow_table = afxdp_flow_table_create();
    ovs_mutex_unlock(&o->mutex);
    o->serials = afxdp_offload_marks_create();
    ovs_mutex_lock(&all_offloads_mutex);
    ovs_list_push_back(&all_offloads, &o->list_node);
    ovs_mutex_unlock(&all_offloads_mutex);
    return o;
}

void
afxdp_offload_destroy(struct afxdp_offload *o)
{
    struct afxdp_offload_flow *flow;

    if (!o) {
        return;
    }
    ovs_mutex_lock(&all_offloads_mutex);
    ovs_list_remove(&o->list_node);
    ovs_mutex_unlock(&all_offloads_mutex);

    ovs_mutex_lock(&o->mutex);
    HMAP_FOR_EACH_SAFE (flow, node, &o->flows) {
        afxdp_offload_remove(o, flow);
    }
    afxdp_flow_table_destroy(o->flow_table);
    afxdp_offload_egress_set_destroy(&o->egress);
    ovs_mutex_unlock(&o->mutex);
    afxdp_offload_marks_destroy(o->serials);
    hmap_destroy(&o->flows);
    hmap_destroy(&o->replacing);
    ovs_mutex_destroy(&o->mutex);
    free(o->name);
    free(o);
}

/* The marks that 'o''s program writes for partially offloaded flows, for
 * the receive path to translate (afxdp-offload-marks.h). */
struct afxdp_offload_marks *
afxdp_offload_serials(struct afxdp_offload *o)
{
    return o->serials;
}

void
afxdp_offload_attach(struct afxdp_offload *o, struct afxdp_xdp *xdp,
                     bool marks)
{
    struct afxdp_offload_flow *flow;
    int n = 0, error;

    ovs_mutex_lock(&o->mutex);
    afxdp_xdp_flow_maps(xdp, &o->maps);
    o->attached = true;
    o->marks = marks;
    o->generic = afxdp_xdp_get_mode(xdp) == AFXDP_XDP_GENERIC;
    memset(&o->table, 0, sizeof o->table);
    memset(o->table.order, AFXDP_FLOW_ORDER_END, sizeof o->table.order);
    o->table.seed = random_uint64();
    error = afxdp_flow_table_reset(o->flow_table, o->maps.flows_fd,
                                   o->maps.flow_stats_fd, o->maps.buckets_fd,
                                   o->table.seed);
    if (error) {
        VLOG_WARN("%s: cannot map the XDP program's flow table (%s); no "
                  "flow is offloaded", o->name, ovs_strerror(error));
    }
    memset(o->slot_refs, 0, sizeof o->slot_refs);
    memset(o->slot_freed, 0, sizeof o->slot_freed);
    memset(o->ranker.slot_hits, 0, sizeof o->ranker.slot_hits);
    HMAP_FOR_EACH (flow, node, &o->flows) {
        if (flow->stale) {
            continue;
        }
        /* The mode, and so what its egress takes, may have changed. */
        afxdp_offload_choose(o, flow);
        error = afxdp_offload_install(o, flow);
        if (error) {
            VLOG_WARN_RL(&rl, "%s: an offloaded flow could not be put back "
                         "into the new XDP program (%s); the PMD handles "
                         "it", o->name, ovs_strerror(error));
        } else {
            n++;
        }
    }
    if (n) {
        VLOG_INFO("%s: %d offloaded flow(s) put back into the XDP program",
                  o->name, n);
    }
    ovs_mutex_unlock(&o->mutex);
}

void
afxdp_offload_detach(struct afxdp_offload *o)
{
    struct afxdp_offload_flow *flow;

    ovs_mutex_lock(&o->mutex);
    if (o->attached) {
        HMAP_FOR_EACH (flow, node, &o->flows) {
            if (flow->slot >= 0) {
                struct dpif_flow_stats stats;

                if (!flow->partial) {
                    afxdp_offload_read_stats(o, flow, &stats);
                    afxdp_stats_add(&flow->base, &stats);
                }
                flow->slot = -1;
            }
            afxdp_offload_forget_serial(o, flow);
        }
        afxdp_offload_egress_set_clear(&o->egress);
        /* Lets the program's maps go with it. */
        afxdp_flow_table_reset(o->flow_table, -1, -1, -1, 0);
        o->attached = false;
    }
    ovs_mutex_unlock(&o->mutex);
}

static afxdp_offload_port_left_cb *port_left_cb;

void
afxdp_offload_set_port_left_cb(afxdp_offload_port_left_cb *cb)
{
    port_left_cb = cb;
}

void
afxdp_offload_port_left(struct netdev *netdev)
{
    if (port_left_cb) {
        port_left_cb(netdev);
    }
}

void
afxdp_offload_device_gone(int ifindex)
{
    struct afxdp_offload *o;

    if (ifindex <= 0) {
        return;
    }
    /* Back in OVS, it will be tried again. */
    afxdp_offload_egress_forget(ifindex);
    ovs_mutex_lock(&all_offloads_mutex);
    LIST_FOR_EACH (o, list_node, &all_offloads) {
        struct afxdp_offload_flow *flow;

        ovs_mutex_lock(&o->mutex);
        o->gone_seq++;
        HMAP_FOR_EACH_SAFE (flow, node, &o->flows) {
            if (flow->entry.out_ifindex == ifindex) {
                COVERAGE_INC(afxdp_offload_egress_removed);
                afxdp_offload_uninstall(o, flow);
                flow->stale = true;
            }
        }
        ovs_mutex_unlock(&o->mutex);
    }
    ovs_mutex_unlock(&all_offloads_mutex);
}

void
afxdp_offload_status(struct afxdp_offload *o, int ifindex, struct smap *smap)
{
    const struct afxdp_offload_flow *flow;
    int full = 0, partial = 0, egress_off = 0;
    struct ds s = DS_EMPTY_INITIALIZER;

    if (!o || !afxdp_offload_ovs_enabled()) {
        return;
    }
    afxdp_offload_egress_status(ifindex, smap);
    ovs_mutex_lock(&o->mutex);
    HMAP_FOR_EACH (flow, node, &o->flows) {
        full += flow->slot >= 0 && !flow->partial;
        partial += flow->slot >= 0 && flow->partial;
        egress_off += flow->egress_off;
    }
    ds_put_format(&s, "full=%d partial=%d masks=%"PRIu32"/%d", full,
                  partial, o->table.n_masks, AFXDP_FLOW_MAX_MASKS);
    if (egress_off) {
        /* Flows that XDP could run, kept for the PMD by their egress. */
        ds_put_format(&s, " egress-off=%d", egress_off);
    }
    if (!o->marks) {
        ds_put_cstr(&s, " (no partial offload: xdp-hints is not ts-hash)");
    }
    smap_add_nocopy(smap, xstrdup("xdp-offload"), ds_steal_cstr(&s));
    ovs_mutex_unlock(&o->mutex);
}
