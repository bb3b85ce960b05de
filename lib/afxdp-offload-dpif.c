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

/* Flow offload glue for OVS 3.7+: the dpif-offload provider "afxdp".
 *
 * OVS 3.7 replaced the netdev flow APIs with offload providers, one
 * instance per datapath, opened from a list compiled into
 * lib/dpif-offload.c (ours is added by patches/ovs-4.0).  For the
 * userspace datapath ("netdev"), such a provider:
 *
 *   - takes the ports it can offload (can_offload, port_add): ours takes
 *     afxdp ports only, so that any other port stays with the providers
 *     that want it;
 *   - is handed each megaflow of those ports by the PMD thread that made
 *     it (netdev_flow_put, netdev_flow_del), with a reference to the PMD's
 *     copy of the flow (its "flow reference"), which the provider keeps
 *     while the flow is offloaded and gives back when it is gone;
 *   - owns the flow marks: it chooses a flow's mark, and when a frame comes
 *     in with one (dp_packet_set_flow_mark() in our receive path, from the
 *     XDP hints), the PMD asks it which flow that is
 *     (netdev_hw_post_process): it answers the flow reference that PMD
 *     gave for the flow, and the PMD runs that flow's actions without a
 *     lookup;
 *   - reports the counts of offloaded flows (netdev_flow_stats), which OVS
 *     adds to the PMD's, so that revalidators keep busy flows alive.
 *
 * Puts and deletes come from PMD threads, which must not wait: they are
 * queued and done, in order, by one offload thread per datapath, which
 * then tells OVS (EINPROGRESS and the operation's callback), as OVS's DPDK
 * provider does.  The flows go into the ports' XDP programs through the
 * core (afxdp-offload-private.h).
 *
 * Locks: 'mutex' of a datapath's provider guards its flows, its marks and
 * the writers of its 'refs', and is taken before a port's offload mutex
 * (the core's); 'queue_mutex' is a leaf.  PMDs read 'refs' under RCU, with
 * no lock. */

#include <config.h>

#include "afxdp-ovs-probes.h"

#if AFXDP_OVS_DPIF_OFFLOAD

#include "afxdp-offload.h"

#include <errno.h>
#include <string.h>

#include "afxdp-offload-private.h"
#include "afxdp-port-private.h"
#include "cmap.h"
#include "coverage.h"
#include "dp-packet.h"
#include "dpif-offload-provider.h"
#include "hash.h"
#include "id-pool.h"
#include "latch.h"
#include "netdev-provider.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/json.h"
#include "openvswitch/list.h"
#include "openvswitch/match.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "seq.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(afxdp_offload_dpif);

COVERAGE_DEFINE(afxdp_offload_dpif_put_failed);
COVERAGE_DEFINE(afxdp_offload_dpif_no_mark);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Name of our provider (other_config:hw-offload-priority, dpif/offload/show,
 * ovs-vswitchd's log). */
#define AFXDP_OFFLOAD_PROVIDER "afxdp"

/* A megaflow offloaded into its input port's program. */
struct afxdp_dpif_flow {
    struct hmap_node node;          /* In 'flows', by 'ufid'. */
    ovs_u128 ufid;                  /* OVS's megaflow ufid. */
    odp_port_t in_port;             /* Its input port, one of ours. */
    uint32_t mark;                  /* Ours, from 'marks'; never 0. */
    struct ovs_list refs;           /* struct afxdp_dpif_ref, one per PMD
                                     * that has the flow. */
};

/* A PMD's copy of a flow ('flow_reference', a struct dp_netdev_flow to
 * OVS), of which we hold a reference. */
struct afxdp_dpif_ref {
    struct cmap_node cmap_node;     /* In 'refs', by 'mark' and 'pmd_id'. */
    struct ovs_list list_node;      /* In its flow's 'refs'. */
    uint32_t mark;                  /* Its flow's. */
    unsigned int pmd_id;            /* The PMD's core id. */
    OVSRCU_TYPE(void *) flow_reference;     /* Replaced when that PMD puts
                                             * the flow again. */
};

/* A put or a delete for the offload thread. */
enum afxdp_dpif_op_type {
    AFXDP_DPIF_PUT,
    AFXDP_DPIF_DEL,
};

struct afxdp_dpif_op {
    struct ovs_list node;           /* In 'queue'. */
    enum afxdp_dpif_op_type type;
    odp_port_t in_port;             /* The flow's input port... */
    unsigned int pmd_id;            /* ...the PMD that asks... */
    ovs_u128 ufid;                  /* ...and the flow. */
    void *flow_reference;           /* The PMD's copy of the flow. */
    bool want_stats;                /* OVS asked for the flow's counts. */
    struct dpif_offload_flow_cb_data cb;    /* How to tell OVS. */
    struct match match;             /* AFXDP_DPIF_PUT only. */
    struct nlattr *actions;         /* AFXDP_DPIF_PUT only, owned. */
    size_t actions_len;
};

/* Our provider for one datapath. */
struct afxdp_dpif {
    struct dpif_offload up;         /* OVS's part. */
    dpif_offload_flow_unreference_cb *unreference_cb;   /* Set by the
                                                         * datapath before
                                                         * any flow. */
    struct ovsthread_once enable_once;      /* hw-offload seen on. */

    struct ovs_mutex mutex;         /* Guards what follows, and the writes
                                     * to 'refs'. */
    struct hmap flows OVS_GUARDED;  /* struct afxdp_dpif_flow. */
    struct id_pool *marks OVS_GUARDED;      /* Flow marks free to use. */
    struct cmap refs;               /* struct afxdp_dpif_ref, read by PMDs. */

    /* The offload thread, started with the first operation. */
    struct ovsthread_once start_once;       /* Starts 'thread'. */
    pthread_t thread;               /* "afxdp_offload". */
    bool started;                   /* 'thread' runs; set by 'start_once'. */
    struct latch exit_latch;        /* Tells it to exit. */
    struct ovs_mutex queue_mutex;   /* Guards 'queue'. */
    struct ovs_list queue OVS_GUARDED;  /* struct afxdp_dpif_op. */
    struct seq *queue_seq;          /* Changes when one is queued. */
    atomic_count n_queued;          /* Queued or being done. */
};

static struct afxdp_dpif *
afxdp_dpif_cast(const struct dpif_offload *offload)
{
    dpif_offload_assert_class(offload, &dpif_offload_afxdp_class);
    return CONTAINER_OF(offload, struct afxdp_dpif, up);
}

/* Returns the netdev of our port 'port_no', or NULL.  Owned by the port
 * manager; valid until the next RCU grace period. */
static struct netdev *
afxdp_dpif_get_netdev(const struct dpif_offload *offload, odp_port_t port_no)
{
    struct dpif_offload_port *port;

    port = dpif_offload_port_mgr_find_by_odp_port(offload, port_no);
    return port ? port->netdev : NULL;
}

/* Flows, marks and flow references.  All with 'd->mutex' held. */

static uint32_t
afxdp_dpif_ref_hash(uint32_t mark, unsigned int pmd_id)
{
    return hash_2words(mark, pmd_id);
}

static struct afxdp_dpif_flow *
afxdp_dpif_flow_find(struct afxdp_dpif *d, const ovs_u128 *ufid)
    OVS_REQUIRES(d->mutex)
{
    struct afxdp_dpif_flow *flow;

    HMAP_FOR_EACH_WITH_HASH (flow, node, ufid->u32[0], &d->flows) {
        if (ovs_u128_equals(flow->ufid, *ufid)) {
            return flow;
        }
    }
    return NULL;
}

static struct afxdp_dpif_ref *
afxdp_dpif_ref_find(struct afxdp_dpif_flow *flow, unsigned int pmd_id)
{
    struct afxdp_dpif_ref *ref;

    LIST_FOR_EACH (ref, list_node, &flow->refs) {
        if (ref->pmd_id == pmd_id) {
            return ref;
        }
    }
    return NULL;
}

/* Creates the record of flow 'ufid' of 'in_port', with a mark of its own.
 * Returns NULL if no mark is left. */
static struct afxdp_dpif_flow *
afxdp_dpif_flow_create(struct afxdp_dpif *d, const ovs_u128 *ufid,
                       odp_port_t in_port)
    OVS_REQUIRES(d->mutex)
{
    struct afxdp_dpif_flow *flow;
    uint32_t mark;

    if (!id_pool_alloc_id(d->marks, &mark)) {
        COVERAGE_INC(afxdp_offload_dpif_no_mark);
        return NULL;
    }
    flow = xzalloc(sizeof *flow);
    flow->ufid = *ufid;
    flow->in_port = in_port;
    flow->mark = mark;
    ovs_list_init(&flow->refs);
    hmap_insert(&d->flows, &flow->node, ufid->u32[0]);
    return flow;
}

/* Removes 'ref' from its flow and from 'refs'; it is freed after the PMDs
 * that may still read it are done. */
static void
afxdp_dpif_ref_remove(struct afxdp_dpif *d, struct afxdp_dpif_ref *ref)
    OVS_REQUIRES(d->mutex)
{
    cmap_remove(&d->refs, &ref->cmap_node,
                afxdp_dpif_ref_hash(ref->mark, ref->pmd_id));
    ovs_list_remove(&ref->list_node);
    ovsrcu_postpone(free, ref);
}

/* Forgets 'flow' (not its entry in the program: the caller removed it),
 * and gives each flow reference it holds back to the datapath. */
static void
afxdp_dpif_flow_destroy(struct afxdp_dpif *d, struct afxdp_dpif_flow *flow)
    OVS_REQUIRES(d->mutex)
{
    struct afxdp_dpif_ref *ref;

    LIST_FOR_EACH_SAFE (ref, list_node, &flow->refs) {
        void *flow_reference = ovsrcu_get(void *, &ref->flow_reference);
        unsigned int pmd_id = ref->pmd_id;

        afxdp_dpif_ref_remove(d, ref);
        if (d->unreference_cb) {
            d->unreference_cb(pmd_id, flow_reference);
        }
    }
    id_pool_free_id(d->marks, flow->mark);
    hmap_remove(&d->flows, &flow->node);
    free(flow);
}

/* Removes every flow of port 'port_no', whose netdev is 'netdev', from the
 * port's program and from 'd'. */
static void
afxdp_dpif_flush_port(struct afxdp_dpif *d, odp_port_t port_no,
                      struct netdev *netdev)
    OVS_REQUIRES(d->mutex)
{
    struct afxdp_dpif_flow *flow;

    HMAP_FOR_EACH_SAFE (flow, node, &d->flows) {
        if (flow->in_port == port_no) {
            afxdp_dpif_flow_destroy(d, flow);
        }
    }
    afxdp_offload_flow_flush(netdev);
}

/* The offload thread's operations. */

/* Puts the flow of 'op' into its port's program, and records the PMD's
 * flow reference.  Stores in '*previous' the reference that PMD gave for
 * the flow before, which OVS then releases.  Returns 0 or an errno; on
 * error, the flow is in no program and 'd' holds no reference to it. */
static int
afxdp_dpif_put(struct afxdp_dpif *d, const struct afxdp_dpif_op *op,
               void **previous)
    OVS_REQUIRES(d->mutex)
{
    struct netdev *netdev = afxdp_dpif_get_netdev(&d->up, op->in_port);
    struct afxdp_dpif_flow *flow;
    struct afxdp_dpif_ref *ref;
    int error;

    *previous = NULL;
    if (!netdev) {
        return ENODEV;          /* The port left the datapath meanwhile. */
    }
    flow = afxdp_dpif_flow_find(d, &op->ufid);
    if (!flow) {
        flow = afxdp_dpif_flow_create(d, &op->ufid, op->in_port);
        if (!flow) {
            return ENOSPC;
        }
    }
    error = afxdp_offload_flow_put(netdev, &op->match, op->actions,
                                   op->actions_len, &op->ufid, flow->mark);
    if (error) {
        /* A modified flow whose new actions cannot be offloaded keeps its
         * old ones in no program (afxdp_offload_flow_put() took them out,
         * keeping their counts), in no PMD: OVS asks nobody to remove it,
         * as it cannot tell the other PMDs. */
        COVERAGE_INC(afxdp_offload_dpif_put_failed);
        afxdp_dpif_flow_destroy(d, flow);
        return error;
    }

    ref = afxdp_dpif_ref_find(flow, op->pmd_id);
    if (ref) {
        *previous = ovsrcu_get(void *, &ref->flow_reference);
        ovsrcu_set(&ref->flow_reference, op->flow_reference);
    } else {
        ref = xzalloc(sizeof *ref);
        ref->mark = flow->mark;
        ref->pmd_id = op->pmd_id;
        ovsrcu_set_hidden(&ref->flow_reference, op->flow_reference);
        ovs_list_push_back(&flow->refs, &ref->list_node);
        cmap_insert(&d->refs, &ref->cmap_node,
                    afxdp_dpif_ref_hash(ref->mark, ref->pmd_id));
    }
    return 0;
}

/* Gives back the flow reference of 'op' and, when no PMD has the flow any
 * more, removes it from its port's program.  Returns 0, or ENOENT if 'd'
 * holds no such reference (then OVS keeps it). */
static int
afxdp_dpif_del(struct afxdp_dpif *d, const struct afxdp_dpif_op *op,
               struct dpif_flow_stats *stats)
    OVS_REQUIRES(d->mutex)
{
    struct afxdp_dpif_flow *flow = afxdp_dpif_flow_find(d, &op->ufid);
    struct afxdp_dpif_ref *ref = flow ? afxdp_dpif_ref_find(flow, op->pmd_id)
                                      : NULL;
    struct netdev *netdev;

    if (!ref
        || ovsrcu_get(void *, &ref->flow_reference) != op->flow_reference) {
        return ENOENT;
    }
    afxdp_dpif_ref_remove(d, ref);
    if (ovs_list_is_empty(&flow->refs)) {
        netdev = afxdp_dpif_get_netdev(&d->up, flow->in_port);
        if (netdev) {
            afxdp_offload_flow_del(netdev, &flow->ufid, stats);
        }
        afxdp_dpif_flow_destroy(d, flow);
    }
    return 0;
}

/* Does 'op' and tells OVS how it went. */
static void
afxdp_dpif_run_op(struct afxdp_dpif *d, struct afxdp_dpif_op *op)
{
    struct dpif_flow_stats stats;
    void *previous = NULL;
    int error;

    memset(&stats, 0, sizeof stats);
    ovs_mutex_lock(&d->mutex);
    if (op->type == AFXDP_DPIF_PUT) {
        error = afxdp_dpif_put(d, op, &previous);
    } else {
        error = afxdp_dpif_del(d, op, &stats);
    }
    ovs_mutex_unlock(&d->mutex);

    if (error) {
        VLOG_DBG_RL(&rl, "%s: flow "UUID_FMT" of port %"PRIu32" not %s: %s",
                    dpif_offload_name(&d->up),
                    UUID_ARGS((struct uuid *) &op->ufid),
                    odp_to_u32(op->in_port),
                    op->type == AFXDP_DPIF_PUT ? "offloaded" : "deleted",
                    ovs_strerror(error));
    }
    /* Without any lock of ours: OVS may queue a delete from here. */
    dpif_offload_datapath_flow_op_continue(&op->cb,
                                           op->want_stats ? &stats : NULL,
                                           op->pmd_id, op->flow_reference,
                                           previous, error);
}

static void
afxdp_dpif_op_free(struct afxdp_dpif_op *op)
{
    free(op->actions);
    free(op);
}

static void *
afxdp_dpif_thread_main(void *d_)
{
    struct afxdp_dpif *d = d_;

    while (!latch_is_set(&d->exit_latch)) {
        uint64_t seq = seq_read(d->queue_seq);
        struct afxdp_dpif_op *op;
        struct ovs_list ops;

        ovs_list_init(&ops);
        ovs_mutex_lock(&d->queue_mutex);
        ovs_list_push_back_all(&ops, &d->queue);
        ovs_mutex_unlock(&d->queue_mutex);

        if (ovs_list_is_empty(&ops)) {
            /* Quiescent while it waits (poll_block()). */
            seq_wait(d->queue_seq, seq);
            latch_wait(&d->exit_latch);
            poll_block();
            continue;
        }
        LIST_FOR_EACH_POP (op, node, &ops) {
            afxdp_dpif_run_op(d, op);
            afxdp_dpif_op_free(op);
            atomic_count_dec(&d->n_queued);
            ovsrcu_quiesce();
        }
    }
    return NULL;
}

/* Queues 'op' for the offload thread, which it starts the first time. */
static void
afxdp_dpif_enqueue(struct afxdp_dpif *d, struct afxdp_dpif_op *op)
{
    if (ovsthread_once_start(&d->start_once)) {
        d->thread = ovs_thread_create("afxdp_offload",
                                      afxdp_dpif_thread_main, d);
        d->started = true;
        ovsthread_once_done(&d->start_once);
    }
    atomic_count_inc(&d->n_queued);
    ovs_mutex_lock(&d->queue_mutex);
    ovs_list_push_back(&d->queue, &op->node);
    ovs_mutex_unlock(&d->queue_mutex);
    seq_change(d->queue_seq);
}

/* The provider's class. */

static int
afxdp_dpif_open(const struct dpif_offload_class *class, struct dpif *dpif,
                struct dpif_offload **offloadp)
{
    struct afxdp_dpif *d = xzalloc(sizeof *d);

    dpif_offload_init(&d->up, class, dpif);
    d->enable_once = (struct ovsthread_once) OVSTHREAD_ONCE_INITIALIZER;
    ovs_mutex_init(&d->mutex);
    ovs_mutex_lock(&d->mutex);
    hmap_init(&d->flows);
    d->marks = id_pool_create(1, UINT32_MAX - 1);
    ovs_mutex_unlock(&d->mutex);
    cmap_init(&d->refs);
    d->start_once = (struct ovsthread_once) OVSTHREAD_ONCE_INITIALIZER;
    latch_init(&d->exit_latch);
    ovs_mutex_init(&d->queue_mutex);
    ovs_mutex_lock(&d->queue_mutex);
    ovs_list_init(&d->queue);
    ovs_mutex_unlock(&d->queue_mutex);
    d->queue_seq = seq_create();
    atomic_count_init(&d->n_queued, 0);

    *offloadp = &d->up;
    return 0;
}

/* Lets OVS hand 'port' to us: marks, flows, its own dpif_offload. */
static void
afxdp_dpif_enable(struct afxdp_dpif *d, struct dpif_offload_port *port)
{
    atomic_store_relaxed(&port->netdev->hw_info.post_process_api_supported,
                         true);
    dpif_offload_set_netdev_offload(port->netdev, &d->up);
    VLOG_INFO("%s: flow offload into XDP by dpif-offload provider '%s'",
              netdev_get_name(port->netdev), AFXDP_OFFLOAD_PROVIDER);
    afxdp_port_offload_turned_on(port->netdev);
}

static bool
afxdp_dpif_can_offload(struct dpif_offload *offload OVS_UNUSED,
                       struct netdev *netdev)
{
    /* Declining the rest leaves them to the other providers. */
    return afxdp_port_lookup(netdev) != NULL;
}

static int
afxdp_dpif_port_add(struct dpif_offload *offload, struct netdev *netdev,
                    odp_port_t port_no)
{
    struct afxdp_dpif *d = afxdp_dpif_cast(offload);
    struct dpif_offload_port *port = xmalloc(sizeof *port);
    bool added;

    ovs_mutex_lock(&d->mutex);
    added = dpif_offload_port_mgr_add(offload, port, netdev, port_no, false);
    ovs_mutex_unlock(&d->mutex);
    if (!added) {
        free(port);
        return EEXIST;
    }
    if (dpif_offload_enabled()) {
        afxdp_dpif_enable(d, port);
    }
    return 0;
}

static void
afxdp_dpif_port_free(struct dpif_offload_port *port)
{
    netdev_close(port->netdev);
    free(port);
}

static int
afxdp_dpif_port_del(struct dpif_offload *offload, odp_port_t port_no)
{
    struct afxdp_dpif *d = afxdp_dpif_cast(offload);
    struct dpif_offload_port *port;

    /* Under 'd->mutex', so that the offload thread, which finds ports under
     * it too, puts no flow of this port after its flows went. */
    ovs_mutex_lock(&d->mutex);
    port = dpif_offload_port_mgr_remove(offload, port_no);
    if (port) {
        afxdp_dpif_flush_port(d, port_no, port->netdev);
    }
    ovs_mutex_unlock(&d->mutex);
    if (port) {
        dpif_offload_set_netdev_offload(port->netdev, NULL);
        /* Our reference goes only after a grace period: the port's
         * teardown must not wait for it. */
        afxdp_offload_port_left(port->netdev);
        ovsrcu_postpone(afxdp_dpif_port_free, port);
    }
    return 0;
}

static void
afxdp_dpif_close(struct dpif_offload *offload)
{
    struct afxdp_dpif *d = afxdp_dpif_cast(offload);
    struct dpif_offload_port *port;
    struct afxdp_dpif_op *op;

    if (d->started) {
        latch_set(&d->exit_latch);
        xpthread_join(d->thread, NULL);
    }
    /* The datapath is going: what was still queued is dropped without a
     * word to it. */
    ovs_mutex_lock(&d->queue_mutex);
    LIST_FOR_EACH_POP (op, node, &d->queue) {
        afxdp_dpif_op_free(op);
    }
    ovs_mutex_unlock(&d->queue_mutex);

    DPIF_OFFLOAD_PORT_FOR_EACH (port, offload) {
        afxdp_dpif_port_del(offload, port->port_no);
    }
    ovs_mutex_lock(&d->mutex);
    ovs_assert(hmap_is_empty(&d->flows));
    hmap_destroy(&d->flows);
    id_pool_destroy(d->marks);
    ovs_mutex_unlock(&d->mutex);
    cmap_destroy(&d->refs);
    seq_destroy(d->queue_seq);
    latch_destroy(&d->exit_latch);
    ovs_mutex_destroy(&d->queue_mutex);
    ovs_mutex_destroy(&d->mutex);
    ovsthread_once_destroy(&d->start_once);
    ovsthread_once_destroy(&d->enable_once);
    dpif_offload_destroy(offload);
    free(d);
}

static void
afxdp_dpif_set_config(struct dpif_offload *offload,
                      const struct smap *other_config)
{
    struct afxdp_dpif *d = afxdp_dpif_cast(offload);

    if (smap_get_bool(other_config, "hw-offload", false)
        && ovsthread_once_start(&d->enable_once)) {
        struct dpif_offload_port *port;

        DPIF_OFFLOAD_PORT_FOR_EACH (port, offload) {
            afxdp_dpif_enable(d, port);
        }
        ovsthread_once_done(&d->enable_once);
    }
}

/* Each port's flows, as its status "xdp-offload" says them. */
static void
afxdp_dpif_get_debug(const struct dpif_offload *offload, struct ds *ds,
                     struct json *json)
{
    struct json *json_ports = json ? json_object_create() : NULL;
    struct dpif_offload_port *port;

    DPIF_OFFLOAD_PORT_FOR_EACH (port, offload) {
        struct afxdp_port *p = afxdp_port_lookup(port->netdev);
        struct smap status = SMAP_INITIALIZER(&status);
        const char *flows;

        if (p) {
            afxdp_offload_status(p->offload, -1, &status);
        }
        flows = smap_get_def(&status, "xdp-offload", "none");
        if (json) {
            struct json *json_port = json_object_create();

            json_object_put(json_port, "port_no",
                            json_integer_create(odp_to_u32(port->port_no)));
            json_object_put_string(json_port, "xdp-offload", flows);
            json_object_put(json_ports, netdev_get_name(port->netdev),
                            json_port);
        } else if (ds) {
            ds_put_format(ds, "  - %s: port_no: %"PRIu32", xdp-offload: "
                          "%s\n", netdev_get_name(port->netdev),
                          odp_to_u32(port->port_no), flows);
        }
        smap_destroy(&status);
    }
    if (json) {
        if (json_object_is_empty(json_ports)) {
            json_destroy(json_ports);
        } else {
            json_object_put(json, "ports", json_ports);
        }
    }
}

static uint64_t
afxdp_dpif_flow_count(const struct dpif_offload *offload)
{
    struct afxdp_dpif *d = afxdp_dpif_cast(offload);
    uint64_t n;

    ovs_mutex_lock(&d->mutex);
    n = hmap_count(&d->flows);
    ovs_mutex_unlock(&d->mutex);
    return n;
}

/* For dpctl/offload-stats-show: the operations not done yet (as OVS's
 * offload thread counted them up to 3.6), and the flows offloaded. */
static int
afxdp_dpif_get_global_stats(const struct dpif_offload *offload,
                            struct netdev_custom_stats *stats)
{
    struct afxdp_dpif *d = afxdp_dpif_cast(offload);

    stats->label = xstrdup(dpif_offload_name(offload));
    stats->size = 2;
    stats->counters = xcalloc(stats->size, sizeof *stats->counters);
    ovs_strlcpy(stats->counters[0].name, "Enqueued offloads",
                sizeof stats->counters[0].name);
    stats->counters[0].value = atomic_count_get(&d->n_queued);
    ovs_strlcpy(stats->counters[1].name, "Inserted offloads",
                sizeof stats->counters[1].name);
    stats->counters[1].value = afxdp_dpif_flow_count(offload);
    return 0;
}

static int
afxdp_dpif_flow_flush(const struct dpif_offload *offload)
{
    struct afxdp_dpif *d = afxdp_dpif_cast(offload);
    struct dpif_offload_port *port;

    ovs_mutex_lock(&d->mutex);
    DPIF_OFFLOAD_PORT_FOR_EACH (port, offload) {
        afxdp_dpif_flush_port(d, port->port_no, port->netdev);
    }
    ovs_mutex_unlock(&d->mutex);
    return 0;
}

/* PMD fast path: the flow of a frame that XDP marked. */
static int
afxdp_dpif_hw_post_process(const struct dpif_offload *offload,
                           struct netdev *netdev OVS_UNUSED,
                           unsigned int pmd_id, struct dp_packet *packet,
                           void **flow_reference)
{
    /* No class check per frame: OVS calls the provider it set on the
     * port, ours (afxdp_dpif_enable()). */
    struct afxdp_dpif *d = CONTAINER_OF(offload, struct afxdp_dpif, up);
    struct afxdp_dpif_ref *ref;
    uint32_t mark;

    *flow_reference = NULL;
    if (!dp_packet_has_flow_mark(packet, &mark)) {
        return 0;
    }
    CMAP_FOR_EACH_WITH_HASH (ref, cmap_node, afxdp_dpif_ref_hash(mark, pmd_id),
                             &d->refs) {
        if (ref->mark == mark && ref->pmd_id == pmd_id) {
            /* Valid until this PMD quiesces: the datapath frees its flows
             * only after a grace period. */
            *flow_reference = ovsrcu_get(void *, &ref->flow_reference);
            break;
        }
    }
    return 0;
}

static int
afxdp_dpif_netdev_flow_put(const struct dpif_offload *offload,
                           struct netdev *netdev OVS_UNUSED,
                           struct dpif_offload_flow_put *put,
                           void **previous_flow_reference)
{
    struct afxdp_dpif_op *op = xzalloc(sizeof *op);

    op->type = AFXDP_DPIF_PUT;
    op->in_port = put->in_port;
    op->pmd_id = put->pmd_id;
    op->ufid = *put->ufid;
    op->flow_reference = put->flow_reference;
    op->want_stats = put->stats != NULL;
    op->cb = put->cb_data;
    op->match = *put->match;
    op->actions = xmemdup(put->actions, put->actions_len);
    op->actions_len = put->actions_len;
    afxdp_dpif_enqueue(afxdp_dpif_cast(offload), op);

    *previous_flow_reference = NULL;
    return EINPROGRESS;
}

static int
afxdp_dpif_netdev_flow_del(const struct dpif_offload *offload,
                           struct netdev *netdev OVS_UNUSED,
                           struct dpif_offload_flow_del *del)
{
    struct afxdp_dpif_op *op = xzalloc(sizeof *op);

    op->type = AFXDP_DPIF_DEL;
    op->in_port = del->in_port;
    op->pmd_id = del->pmd_id;
    op->ufid = *del->ufid;
    op->flow_reference = del->flow_reference;
    op->want_stats = del->stats != NULL;
    op->cb = del->cb_data;
    afxdp_dpif_enqueue(afxdp_dpif_cast(offload), op);
    return EINPROGRESS;
}

/* Revalidators: the counts of a flow that XDP handled, which OVS adds to
 * those of the PMDs. */
static bool
afxdp_dpif_netdev_flow_stats(const struct dpif_offload *offload OVS_UNUSED,
                             struct netdev *netdev, const ovs_u128 *ufid,
                             struct dpif_flow_stats *stats,
                             struct dpif_flow_attrs *attrs)
{
    return !afxdp_offload_flow_get(netdev, ufid, stats, attrs);
}

static void
afxdp_dpif_register_flow_unreference_cb(const struct dpif_offload *offload,
                                        dpif_offload_flow_unreference_cb *cb)
{
    afxdp_dpif_cast(offload)->unreference_cb = cb;
}

struct dpif_offload_class dpif_offload_afxdp_class = {
    .type = AFXDP_OFFLOAD_PROVIDER,
    .impl_type = DPIF_OFFLOAD_IMPL_FLOWS_DPIF_SYNCED,
    .supported_dpif_types = (const char *const[]) { "netdev", NULL },
    .open = afxdp_dpif_open,
    .close = afxdp_dpif_close,
    .set_config = afxdp_dpif_set_config,
    .get_debug = afxdp_dpif_get_debug,
    .get_global_stats = afxdp_dpif_get_global_stats,
    .can_offload = afxdp_dpif_can_offload,
    .port_add = afxdp_dpif_port_add,
    .port_del = afxdp_dpif_port_del,
    .flow_flush = afxdp_dpif_flow_flush,
    .flow_count = afxdp_dpif_flow_count,
    .get_netdev = afxdp_dpif_get_netdev,
    .netdev_hw_post_process = afxdp_dpif_hw_post_process,
    .netdev_flow_put = afxdp_dpif_netdev_flow_put,
    .netdev_flow_del = afxdp_dpif_netdev_flow_del,
    .netdev_flow_stats = afxdp_dpif_netdev_flow_stats,
    .register_flow_unreference_cb = afxdp_dpif_register_flow_unreference_cb,
};

/* What the core asks OVS (afxdp-offload-private.h). */

void
afxdp_offload_register(void)
{
    /* Nothing: OVS 3.7+ opens the providers of a list compiled into
     * lib/dpif-offload.c, where patches/ovs-4.0 puts ours. */
}

bool
afxdp_offload_ovs_enabled(void)
{
    return dpif_offload_enabled();
}

struct netdev *
afxdp_offload_ovs_port(struct netdev *in, odp_port_t port)
{
    const struct dpif_offload *offload;
    struct netdev *netdev;

    /* Only our own ports can be egresses of an offloaded flow. */
    offload = ovsrcu_get(const struct dpif_offload *, &in->dpif_offload);
    if (!offload || offload->class != &dpif_offload_afxdp_class) {
        return NULL;
    }
    netdev = afxdp_dpif_get_netdev(offload, port);
    return netdev ? netdev_ref(netdev) : NULL;
}

#endif /* AFXDP_OVS_DPIF_OFFLOAD */
