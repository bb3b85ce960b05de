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

/* What an afxdp port reports: netdev statistics, custom statistics (frame
 * accounting, drops, kernel XDP_STATISTICS, XDP program counters), the
 * Interface status, and "ovs-appctl netdev-afxdp/show".  Control path
 * only: everything here runs in the main thread and reads the fast path's
 * counters with relaxed atomics. */

#include <config.h>

#include "afxdp-stats.h"

#include <errno.h>
#include <linux/if_xdp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "afxdp-compat.h"
#include "afxdp-offload.h"
#include "afxdp-port-private.h"
#include "afxdp-qos.h"
#include "netdev.h"
#include "netdev-afxdp.h"
#include "netdev-provider.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "unixctl.h"

VLOG_DEFINE_THIS_MODULE(afxdp_stats);

/* Flows latency-show lists per rx queue and order. */
#define AFXDP_SHOW_FLOWS 5

/* Reads integer 'file' of device 'name' in sysfs, -1 if it cannot. */
static long long int
afxdp_device_sysfs_int(const char *name, const char *file)
{
    static const char sysfs_net[] = "/sys/class/net";
    char *path = xasprintf("%s/%s/%s", sysfs_net, name, file);
    long long int value = -1;
    FILE *f = fopen(path, "r");

    if (f) {
        if (fscanf(f, "%lld", &value) != 1) {
            value = -1;
        }
        fclose(f);
    }
    free(path);
    return value;
}

static uint64_t
afxdp_counter_read(const atomic_uint64_t *c)
{
    uint64_t v;

    atomic_read_relaxed(CONST_CAST(atomic_uint64_t *, c), &v);
    return v;
}

/* What this file passes to the lists of afxdp-counters.h.  For a queue
 * counter, with a queue 'q' in scope: add it to struct netdev_stats '*st'
 * (AFXDP_QUEUE_TO_NETDEV) or to 'sums[k++]' (AFXDP_QUEUE_SUM); its custom
 * statistics name (AFXDP_QUEUE_NAME).  For a kernel socket counter, with
 * the struct xdp_statistics 'ks' of rx queue 'i' in scope: add it to
 * '*st' (AFXDP_XSK_TO_NETDEV), or to custom statistics builder 'b'
 * (AFXDP_XSK_STAT). */
#define AFXDP_QUEUE_TO_NETDEV(HALF, KIND, MEMBER)                            \
    AFXDP_NETDEV_STATS_ADD(st, HALF, KIND, afxdp_counter_read(&q->MEMBER));
#define AFXDP_QUEUE_SUM(HALF, KIND, MEMBER)                                  \
    sums[k++] += afxdp_counter_read(&q->MEMBER);
#define AFXDP_QUEUE_NAME(HALF, KIND, MEMBER) "afxdp_" #MEMBER,
#define AFXDP_XSK_TO_NETDEV(HALF, KIND, FIELD, NAME)                         \
    AFXDP_NETDEV_STATS_ADD(st, HALF, KIND, ks.FIELD);
#define AFXDP_XSK_STAT(HALF, KIND, FIELD, NAME)                              \
    afxdp_stat(b, ks.FIELD, "rxq%d_xsk_%s", i, #NAME);

#define AFXDP_QUEUE_RETIRE(HALF, KIND, MEMBER)                               \
    r->MEMBER += afxdp_counter_read(&q->MEMBER);
#define AFXDP_XSK_RETIRE(HALF, KIND, FIELD, NAME) r->FIELD += ks.FIELD;
#define AFXDP_RETIRED_TO_NETDEV(HALF, KIND, MEMBER)                          \
    AFXDP_NETDEV_STATS_ADD(st, HALF, KIND, r->MEMBER);
#define AFXDP_XSK_RETIRED_TO_NETDEV(HALF, KIND, FIELD, NAME)                 \
    AFXDP_NETDEV_STATS_ADD(st, HALF, KIND, r->FIELD);
#define AFXDP_RETIRED_SUM(HALF, KIND, MEMBER) sums[k++] += r->MEMBER;

static const char *const afxdp_queue_counter_names[] = {
    AFXDP_QUEUE_COUNTERS(AFXDP_QUEUE_NAME)
};
static const char *const afxdp_hints_counter_names[] = {
    AFXDP_HINTS_COUNTERS(AFXDP_QUEUE_NAME)
};

void
afxdp_stats_retire(struct afxdp_port *port, bool prog)
{
    const struct netdev_afxdp_tx_lock *queues = *port->queues;
    struct afxdp_retired *r = &port->retired;

    for (int i = 0; queues && port->xsks && i < port->xsks->n; i++) {
        const struct afxdp_queue *q = &queues[i].q;
        struct xdp_statistics ks;

        AFXDP_TRAFFIC_COUNTERS(AFXDP_QUEUE_RETIRE)
        AFXDP_QUEUE_COUNTERS(AFXDP_QUEUE_RETIRE)
        if (!afxdp_xsk_get_kernel_stats(q->xsk, &ks)) {
            AFXDP_XSK_KERNEL_COUNTERS(AFXDP_XSK_RETIRE)
        }
    }
    if (prog && port->xdp) {
        struct afxdp_xdp_stats ps;

        if (!afxdp_xdp_get_stats(port->xdp, &ps)) {
            for (int k = 0; k < AFXDP_PROG_N_COUNTERS; k++) {
                r->prog[k] += ps.counters[k];
            }
        }
    }
}

int
netdev_afxdp_get_stats(const struct netdev *netdev, struct netdev_stats *st)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);

    memset(st, 0, sizeof *st);
    if (!port) {
        return ENODEV;
    }
    ovs_mutex_lock(port->mutex);
    {
        const struct afxdp_retired *r = &port->retired;

        AFXDP_TRAFFIC_COUNTERS(AFXDP_RETIRED_TO_NETDEV)
        AFXDP_QUEUE_COUNTERS(AFXDP_RETIRED_TO_NETDEV)
        AFXDP_XSK_KERNEL_COUNTERS(AFXDP_XSK_RETIRED_TO_NETDEV)
    }
    for (int i = 0; *port->queues && i < netdev->n_rxq; i++) {
        const struct afxdp_queue *q = &(*port->queues)[i].q;
        struct xdp_statistics ks;

        AFXDP_ALL_QUEUE_COUNTERS(AFXDP_QUEUE_TO_NETDEV)
        if (port->xsks && !afxdp_xsk_get_kernel_stats(q->xsk, &ks)) {
            AFXDP_XSK_KERNEL_COUNTERS(AFXDP_XSK_TO_NETDEV)
        }
    }
    ovs_mutex_unlock(port->mutex);
    return 0;
}

/* Builder for custom statistics. */
struct afxdp_stats_builder {
    struct netdev_custom_counter *c;
    size_t n, allocated;
};

static void OVS_PRINTF_FORMAT(3, 4)
afxdp_stat(struct afxdp_stats_builder *b, uint64_t value,
           const char *format, ...)
{
    va_list args;

    if (b->n >= b->allocated) {
        b->c = x2nrealloc(b->c, &b->allocated, sizeof *b->c);
    }
    va_start(args, format);
    vsnprintf(b->c[b->n].name, NETDEV_CUSTOM_STATS_NAME_SIZE, format, args);
    va_end(args);
    b->c[b->n].value = value;
    b->n++;
}

static void
afxdp_port_frame_stats(struct afxdp_port *port,
                       struct afxdp_stats_builder *b)
    OVS_REQUIRES(port->mutex)
{
    struct afxdp_xsk_ring_counts sum = { 0, 0, 0, 0 };
    struct afxdp_pool_counts pc;
    uint64_t accounted;

    afxdp_pool_get_counts(port->pool, &pc);
    for (int i = 0; i < port->xsks->n; i++) {
        struct afxdp_xsk_ring_counts rc;

        afxdp_xsk_get_ring_counts(port->xsks->xsks[i], &rc);
        sum.fill += rc.fill;
        sum.rx += rc.rx;
        sum.tx += rc.tx;
        sum.comp += rc.comp;
    }
    accounted = ((uint64_t) pc.n_free + pc.n_in_ovs + sum.fill + sum.rx
                 + sum.tx + sum.comp);
    afxdp_stat(b, pc.n_frames, "afxdp_frames_total");
    afxdp_stat(b, pc.n_free, "afxdp_frames_free");
    afxdp_stat(b, sum.fill, "afxdp_frames_fill");
    afxdp_stat(b, sum.rx, "afxdp_frames_rx");
    afxdp_stat(b, pc.n_in_ovs, "afxdp_frames_in_ovs");
    afxdp_stat(b, sum.tx, "afxdp_frames_tx");
    afxdp_stat(b, sum.comp, "afxdp_frames_comp");
    afxdp_stat(b, accounted <= pc.n_frames ? pc.n_frames - accounted : 0,
               "afxdp_frames_in_kernel");
}

/* Adds the XDP hints counters and a summary of the kernel to PMD latency
 * of all the port's rx queues. */
static void
afxdp_port_hints_stats(struct afxdp_port *port,
                       struct afxdp_stats_builder *b)
    OVS_REQUIRES(port->mutex)
{
    const struct netdev_afxdp_tx_lock *queues = *port->queues;
    uint64_t sums[ARRAY_SIZE(afxdp_hints_counter_names)] = { 0 };
    struct afxdp_latency_hist *all;
    struct afxdp_latency_summary sum;

    if (!port->hints_dec) {
        return;
    }
    all = xmalloc(sizeof *all);
    afxdp_latency_hist_init(all);
    for (int i = 0; i < port->netdev->n_rxq; i++) {
        const struct afxdp_queue *q = &queues[i].q;
        size_t k = 0;

        AFXDP_HINTS_COUNTERS(AFXDP_QUEUE_SUM)
        afxdp_latency_hist_merge(all, q->k2p);
    }
    afxdp_latency_hist_summary(all, &sum);
    for (size_t k = 0; k < ARRAY_SIZE(sums); k++) {
        afxdp_stat(b, sums[k], "%s", afxdp_hints_counter_names[k]);
    }
    afxdp_stat(b, sum.count, "afxdp_latency_k2p_samples");
    afxdp_stat(b, sum.n_rejected, "afxdp_latency_k2p_rejected");
    afxdp_stat(b, afxdp_latency_hist_percentile(all, 50),
               "afxdp_latency_k2p_p50_ns");
    afxdp_stat(b, afxdp_latency_hist_percentile(all, 99),
               "afxdp_latency_k2p_p99_ns");
    afxdp_stat(b, sum.max_ns, "afxdp_latency_k2p_max_ns");
    free(all);
}

static void
afxdp_port_custom_stats(struct afxdp_port *port,
                        struct afxdp_stats_builder *b)
    OVS_REQUIRES(port->mutex)
{
    uint64_t sums[ARRAY_SIZE(afxdp_queue_counter_names)] = { 0 };
    struct afxdp_xdp_stats ps;
    int n = port->netdev->n_rxq;

    const struct netdev_afxdp_tx_lock *queues = *port->queues;

    if (!port->xsks || !queues) {
        return;
    }
    afxdp_port_frame_stats(port, b);
    {
        const struct afxdp_retired *r = &port->retired;
        size_t k = 0;

        AFXDP_QUEUE_COUNTERS(AFXDP_RETIRED_SUM)
    }
    for (int i = 0; i < n; i++) {
        const struct afxdp_queue *q = &queues[i].q;

        size_t k = 0;

        AFXDP_QUEUE_COUNTERS(AFXDP_QUEUE_SUM)
    }
    for (size_t k = 0; k < ARRAY_SIZE(sums); k++) {
        afxdp_stat(b, sums[k], "%s", afxdp_queue_counter_names[k]);
    }
    afxdp_port_hints_stats(port, b);

    for (int i = 0; i < n; i++) {
        struct xdp_statistics ks;

        afxdp_xsk_get_kernel_stats(queues[i].q.xsk, &ks);
        AFXDP_XSK_KERNEL_COUNTERS(AFXDP_XSK_STAT)
    }

    if (port->xdp && !afxdp_xdp_get_stats(port->xdp, &ps)) {
        for (int k = 0; k < AFXDP_PROG_N_COUNTERS; k++) {
            afxdp_stat(b, port->retired.prog[k] + ps.counters[k], "%s",
                       afxdp_xdp_counter_name(k));
        }
    }
}

int
netdev_afxdp_get_custom_stats(const struct netdev *netdev,
                              struct netdev_custom_stats *custom_stats)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    struct afxdp_stats_builder b = { NULL, 0, 0 };

    if (port) {
        ovs_mutex_lock(port->mutex);
        afxdp_port_custom_stats(port, &b);
        ovs_mutex_unlock(port->mutex);
    }
    custom_stats->counters = b.c;
    custom_stats->size = b.n;
    return 0;
}

/* Adds to 'smap' the status of queue 'i' of a port, socket 'xsk'. */
static void
afxdp_queue_status(const struct afxdp_xsk *xsk, int i, struct smap *smap)
{
    struct afxdp_busy_poll bp;

    smap_add_nocopy(smap, xasprintf("rxq%d-mode", i),
                    xstrdup(xsk->zero_copy ? "zero-copy" : "copy"));
    smap_add_nocopy(smap, xasprintf("rxq%d-mode-requested", i),
                    xstrdup(afxdp_xsk_mode_to_string(xsk->mode_requested)));
    if (xsk->mode_reason) {
        smap_add_nocopy(smap, xasprintf("rxq%d-mode-reason", i),
                        xstrdup(xsk->mode_reason));
    }
    smap_add_nocopy(smap, xasprintf("rxq%d-device-queue", i),
                    xasprintf("%"PRIu32, xsk->queue_id));
    /* Read back from the socket: what the kernel has, not what we asked. */
    if (afxdp_xsk_get_busy_poll(xsk, &bp)) {
        smap_add_nocopy(smap, xasprintf("rxq%d-busy-poll", i),
                        xstrdup("unknown"));
    } else if (!bp.usecs) {
        smap_add_nocopy(smap, xasprintf("rxq%d-busy-poll", i),
                        xstrdup("off"));
    } else {
        smap_add_nocopy(smap, xasprintf("rxq%d-busy-poll", i),
                        xasprintf("usecs=%"PRIu32" budget=%"PRIu16
                                  " prefer=%s", bp.usecs, bp.budget,
                                  bp.prefer ? "true" : "false"));
    }
}

/* Adds the device rx queues that 'port' does not bind, e.g. "0-1,4-7". */
static void
afxdp_port_unbound_status(const struct afxdp_port *port, struct smap *smap)
{
    int first = port->start_queue, last = first + port->netdev->n_rxq - 1;
    struct ds s = DS_EMPTY_INITIALIZER;

    if (first > 0) {
        ds_put_format(&s, first > 1 ? "0-%d" : "0", first - 1);
    }
    if (port->n_dev_rxq > last + 1) {
        ds_put_format(&s, "%s%d", s.length ? "," : "", last + 1);
        if (port->n_dev_rxq > last + 2) {
            ds_put_format(&s, "-%d", port->n_dev_rxq - 1);
        }
    }
    if (s.length) {
        smap_add(smap, "unbound-rx-queues", ds_cstr(&s));
    }
    ds_destroy(&s);
}

/* When some queue busy-polls in preferred mode, adds the device's NAPI
 * settings that preferred busy polling depends on. */
static void
afxdp_port_busy_poll_status(const struct afxdp_port *port, struct smap *smap)
{
    const char *name = netdev_get_name(port->netdev);
    long long int defer, flush;
    bool prefer = false;

    for (int i = 0; i < port->xsks->n; i++) {
        struct afxdp_busy_poll bp;

        if (!afxdp_xsk_get_busy_poll(port->xsks->xsks[i], &bp)
            && bp.usecs && bp.prefer) {
            prefer = true;
        }
    }
    if (!prefer) {
        return;
    }
    defer = afxdp_device_sysfs_int(name, "napi_defer_hard_irqs");
    flush = afxdp_device_sysfs_int(name, "gro_flush_timeout");
    smap_add_format(smap, "napi-defer-hard-irqs", "%lld", defer);
    smap_add_format(smap, "gro-flush-timeout", "%lld", flush);
    if (defer <= 0 || flush <= 0) {
        smap_add_format(smap, "busy-poll-note", "preferred busy polling "
                        "needs /sys/class/net/%s/napi_defer_hard_irqs and "
                        "gro_flush_timeout above 0, or the device's "
                        "interrupts keep processing the queues", name);
    }
}

/* Adds whether 'port' uses multi-buffer, and the largest MTU it carries,
 * to 'smap'. */
static void
afxdp_port_mtu_status(const struct afxdp_port *port, struct smap *smap)
    OVS_REQUIRES(port->mutex)
{
    const char *why;
    int max = afxdp_port_max_mtu(port, &why);

    if (afxdp_port_multi_buffer(port)) {
        smap_add(smap, "multi-buffer", "true");
    } else {
        smap_add_format(smap, "multi-buffer", "false (%s)", why);
    }
    smap_add_format(smap, "max-mtu", "%d", max);
}

/* "ingress-policing": the limits in effect, or why they are not. */
static void
afxdp_port_police_status(const struct afxdp_port *port, struct smap *smap)
    OVS_REQUIRES(*port->mutex)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    if (!afxdp_police_config_on(&port->police)) {
        return;
    }
    if (port->police_error) {
        ds_put_format(&s, "error: not enforced: %s", port->police_error);
    } else {
        afxdp_police_format(&port->police, &s);
        ds_put_cstr(&s, " (XDP program)");
    }
    smap_add(smap, "ingress-policing", ds_cstr(&s));
    ds_destroy(&s);
}

static void
afxdp_port_status(struct afxdp_port *port, struct smap *smap)
    OVS_REQUIRES(port->mutex)
{
    const struct afxdp_config *cfg = port->xsks ? &port->active
                                                : &port->requested;

    /* As in OVS 3.3 and later: "xdp-mode" is the mode in use, shown only
     * while the port has sockets; options:xdp-mode is repeated as
     * "xdp-mode-requested". */
    smap_add(smap, "xdp-mode-requested", afxdp_mode_to_string(cfg->xdp_mode));
    if (port->error) {
        smap_add(smap, "error", port->error);
    }
    /* A refusal is news only while the Interface still asks for an MTU:
     * OVS calls nobody when mtu_request is removed. */
    if (port->mtu_refused && port->netdev->mtu_user_config) {
        smap_add(smap, "mtu-refused", port->mtu_refused);
    }
    if (!port->xsks || port->dev_gone) {
        /* Nothing is in effect; a gone device has no program either. */
        return;
    }
    smap_add(smap, "xdp-mode", afxdp_mode_to_string(port->mode_in_use));
    if (port->mode_reason) {
        smap_add(smap, "xdp-mode-reason", port->mode_reason);
    }
    smap_add(smap, "xdp-attach", afxdp_xdp_attach_desc(port->xdp));
    afxdp_port_police_status(port, smap);
    afxdp_offload_status(port->offload, port->ifindex, smap);
    smap_add(smap, "xdp-flow-lookup",
             (afxdp_xdp_has_offload(port->xdp)
              ? "on (offloaded flows)"
              : "off (other_config:hw-offload is off: no lookup, one-entry "
                "flow maps)"));
    smap_add(smap, "xdp-hints", afxdp_xdp_hints_desc(port->xdp));
    if (port->hints_dec) {
        smap_add_format(smap, "latency-sample", "1 in %"PRIu32" packets",
                        cfg->latency_sample);
    }
    smap_add_format(smap, "xdp-prog-id", "%"PRIu32,
                    afxdp_xdp_prog_id(port->xdp));
    smap_add_format(smap, "n_rxq", "%d", port->netdev->n_rxq);
    smap_add_format(smap, "start-queue", "%d", port->start_queue);
    if (port->n_dev_rxq) {
        smap_add_format(smap, "device-rx-queues", "%d", port->n_dev_rxq);
    }
    smap_add(smap, "use-need-wakeup",
             cfg->use_need_wakeup ? "true" : "false");
    smap_add_format(smap, "xsk-ring-size", "%"PRIu32, port->ring_size);
    if (port->ring_can_grow) {
        smap_add_format(smap, "xsk-ring-growth", "grows to %d when busy",
                        AFXDP_CONFIG_VETH_RING);
    } else if (port->ring_grown) {
        smap_add(smap, "xsk-ring-growth", "grown: the port was busy");
    }
    afxdp_port_mtu_status(port, smap);
    if (port->tx_csum) {
        smap_add(smap, "tx-csum-offload", port->tx_csum);
    }
    /* Who cuts a TCP packet over the MTU (see afxdp-txgso.h). */
    if (port->tx_gso_fd >= 0) {
        smap_add(smap, "tx-segmentation", "kernel");
    } else if (port->tx_gso_why) {
        smap_add_format(smap, "tx-segmentation", "port (%s)",
                        port->tx_gso_why);
    } else {
        smap_add(smap, "tx-segmentation", "port");
    }
    /* Whether received TCP segments are merged (see afxdp-rxgro.h). */
    smap_add(smap, "rx-gro", port->active.rx_gro ? "on" : "off");
    /* What becomes of a received pseudo-header-only checksum (see
     * afxdp-rxcsum.h). */
    smap_add(smap, "rx-csum-partial",
             !port->rx_csum ? "off"
             : AFXDP_OVS_CSUM_FALLBACK ? "on (marked partial for OVS)"
             : "on (finished on receipt)");
    if (cfg->rx_csum_partial_auto) {
        smap_add(smap, "rx-csum-partial-reason",
                 afxdp_config_rx_csum_reason(port->rx_csum_src));
    }
    smap_add_format(smap, "umem-frames", "%"PRIu32, port->n_frames);
    smap_add_format(smap, "umem-numa", "%d",
                    afxdp_pool_numa_id(port->pool));
    smap_add(smap, "umem-hugepages",
             afxdp_pool_uses_hugepages(port->pool) ? "true" : "false");
    afxdp_port_unbound_status(port, smap);
    for (int i = 0; i < port->xsks->n; i++) {
        afxdp_queue_status(port->xsks->xsks[i], i, smap);
    }
    afxdp_port_busy_poll_status(port, smap);
    if (port->zc_fallback) {
        smap_add(smap, "zero-copy-fallback", port->zc_fallback);
    }
}

int
netdev_afxdp_get_status(const struct netdev *netdev, struct smap *smap)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    bool gone = false;

    if (port) {
        ovs_mutex_lock(port->mutex);
        gone = port->dev_gone;
        ovs_mutex_unlock(port->mutex);
    }
    /* Driver name and version, as for any Linux device that exists. */
    if (!gone) {
        afxdp_port_linux_status(netdev, smap);
    }
    if (port) {
        ovs_mutex_lock(port->mutex);
        afxdp_port_status(port, smap);
        afxdp_qos_status(port->qos, smap);
        ovs_mutex_unlock(port->mutex);
    }
    return 0;
}

/* Appends status and custom statistics of 'netdev' to 'ds'. */
static void
afxdp_port_show(struct netdev *netdev, struct ds *ds)
{
    /* Zeroed: OVS 3.7 and later free the 'label' member too. */
    struct netdev_custom_stats cs = { .counters = NULL };
    const struct smap_node **nodes;
    struct smap status;

    smap_init(&status);
    netdev_afxdp_get_status(netdev, &status);
    ds_put_format(ds, "%s:\n", netdev_get_name(netdev));
    nodes = smap_sort(&status);
    for (size_t i = 0; i < smap_count(&status); i++) {
        ds_put_format(ds, "  %s: %s\n", nodes[i]->key, nodes[i]->value);
    }
    free(nodes);
    smap_destroy(&status);

    netdev_afxdp_get_custom_stats(netdev, &cs);
    for (size_t i = 0; i < cs.size; i++) {
        ds_put_format(ds, "  %s: %"PRIu64"\n", cs.counters[i].name,
                      cs.counters[i].value);
    }
    netdev_free_custom_stats_counters(&cs);
}

/* Appends the busiest and the slowest flows of 'flows', a table of rx
 * queue 'rxq', to 'ds'. */
static void
afxdp_flows_show(const struct afxdp_latency_flows *flows, int rxq,
                 struct ds *ds)
{
    static const struct {
        enum afxdp_latency_flow_order order;
        const char *title;
    } lists[] = {
        { AFXDP_LATENCY_BY_PACKETS, "busiest" },
        { AFXDP_LATENCY_BY_MAX, "slowest" },
    };
    struct afxdp_latency_flow_stats top[AFXDP_SHOW_FLOWS];

    if (!flows) {
        return;
    }
    for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
        size_t n = afxdp_latency_flows_top(flows, lists[l].order, top,
                                           ARRAY_SIZE(top));

        for (size_t i = 0; i < n; i++) {
            ds_put_format(ds, "  rxq %d %s flow %"PRIuSIZE": ", rxq,
                          lists[l].title, i + 1);
            afxdp_latency_flow_format(&top[i], ds);
            ds_put_char(ds, '\n');
        }
    }
}

/* Appends the latency statistics of 'netdev' to 'ds'. */
static void
afxdp_port_latency_show(struct netdev *netdev, struct ds *ds)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    const struct netdev_afxdp_tx_lock *queues;

    ds_put_format(ds, "%s:\n", netdev_get_name(netdev));
    if (!port) {
        return;
    }
    ovs_mutex_lock(port->mutex);
    queues = *port->queues;
    if (!queues) {
        ds_put_cstr(ds, "  not configured\n");
    } else if (!port->hints_dec) {
        ds_put_cstr(ds, "  kernel to PMD: XDP hints are off\n");
    } else {
        /* Every count below is of timed packets: say how many that is. */
        ds_put_format(ds, "  sampling: 1 in %"PRIu32" packets\n",
                      port->active.latency_sample);
    }
    for (int i = 0; queues && port->hints_dec && i < netdev->n_rxq; i++) {
        ds_put_format(ds, "  rxq %d kernel to PMD: ", i);
        afxdp_latency_hist_format(queues[i].q.k2p, ds);
        ds_put_char(ds, '\n');
        afxdp_flows_show(queues[i].q.flows, i, ds);
    }
    for (int k = 0; queues && k < AFXDP_MAX_PAIRS; k++) {
        struct afxdp_latency_hist *h = xmalloc(sizeof *h);
        uint32_t ingress = 0;
        char *name;

        afxdp_latency_hist_init(h);
        for (int i = 0; i < netdev->n_txq; i++) {
            uint32_t id;

            atomic_read_explicit(&queues[i].q.pairs[k].ingress, &id,
                                 memory_order_acquire);
            if (id) {
                ingress = id;
                afxdp_latency_hist_merge(h, &queues[i].q.pairs[k].hist);
            }
        }
        if (ingress) {
            name = afxdp_port_name_by_id(ingress);
            ds_put_format(ds, "  from %s to %s: ", name ? name : "(deleted)",
                          netdev_get_name(netdev));
            afxdp_latency_hist_format(h, ds);
            ds_put_char(ds, '\n');
            free(name);
        }
        free(h);
    }
    ovs_mutex_unlock(port->mutex);
}

/* Clears the latency statistics of 'netdev'. */
static void
afxdp_port_latency_reset(struct netdev *netdev)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    struct netdev_afxdp_tx_lock *queues;

    if (!port) {
        return;
    }
    ovs_mutex_lock(port->mutex);
    queues = *port->queues;
    for (int i = 0; queues && i < netdev->n_rxq; i++) {
        if (queues[i].q.k2p) {
            afxdp_latency_hist_clear(queues[i].q.k2p);
        }
        if (queues[i].q.flows) {
            afxdp_latency_flows_clear(queues[i].q.flows);
        }
        for (int k = 0; k < AFXDP_MAX_PAIRS; k++) {
            afxdp_latency_hist_clear(&queues[i].q.pairs[k].hist);
        }
    }
    ovs_mutex_unlock(port->mutex);
}

/* What a netdev-afxdp/... command does to each port it names. */
enum afxdp_stats_cmd {
    AFXDP_STATS_SHOW,           /* netdev-afxdp/show */
    AFXDP_STATS_LATENCY_SHOW,   /* netdev-afxdp/latency-show */
    AFXDP_STATS_LATENCY_RESET,  /* netdev-afxdp/latency-reset */
};

/* Runs the command 'cmd_' (an enum afxdp_stats_cmd) on every afxdp port,
 * or on the one port named by the optional argument. */
static void
afxdp_stats_unixctl(struct unixctl_conn *conn, int argc, const char *argv[],
                    void *cmd_)
{
    enum afxdp_stats_cmd cmd = *(const enum afxdp_stats_cmd *) cmd_;
    struct ds ds = DS_EMPTY_INITIALIZER;
    struct netdev **netdevs;
    size_t n;

    netdevs = afxdp_port_ref_all(argc >= 2 ? argv[1] : NULL, &n);
    if (argc >= 2 && !n) {
        unixctl_command_reply_error(conn, "no such afxdp port");
        free(netdevs);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        switch (cmd) {
        case AFXDP_STATS_SHOW:
            afxdp_port_show(netdevs[i], &ds);
            break;
        case AFXDP_STATS_LATENCY_SHOW:
            afxdp_port_latency_show(netdevs[i], &ds);
            break;
        case AFXDP_STATS_LATENCY_RESET:
            afxdp_port_latency_reset(netdevs[i]);
            break;
        }
        netdev_close(netdevs[i]);
    }
    free(netdevs);
    unixctl_command_reply(conn, (cmd == AFXDP_STATS_LATENCY_RESET
                                 ? "latency statistics cleared"
                                 : ds_cstr(&ds)));
    ds_destroy(&ds);
}

/* netdev-afxdp/pools: the UMEM pools of the whole process.  Coverage
 * counters cannot say this: a deleted port's netdev may be closed by an
 * RCU callback, whose thread never publishes its coverage counts. */
static void
afxdp_stats_pools_unixctl(struct unixctl_conn *conn, int argc OVS_UNUSED,
                          const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    struct ds ds = DS_EMPTY_INITIALIZER;

    ds_put_format(&ds, "live: %u\n", afxdp_pool_count_live());
    ds_put_format(&ds, "waiting-for-packets: %u\n",
                  afxdp_pool_count_waiting());
    unixctl_command_reply(conn, ds_cstr(&ds));
    ds_destroy(&ds);
}

void
afxdp_stats_register_commands(void)
{
    static const enum afxdp_stats_cmd show = AFXDP_STATS_SHOW;
    static const enum afxdp_stats_cmd lat_show = AFXDP_STATS_LATENCY_SHOW;
    static const enum afxdp_stats_cmd lat_reset = AFXDP_STATS_LATENCY_RESET;

    unixctl_command_register("netdev-afxdp/show", "[port]", 0, 1,
                             afxdp_stats_unixctl, CONST_CAST(void *, &show));
    unixctl_command_register("netdev-afxdp/latency-show", "[port]", 0, 1,
                             afxdp_stats_unixctl,
                             CONST_CAST(void *, &lat_show));
    unixctl_command_register("netdev-afxdp/latency-reset", "[port]", 0, 1,
                             afxdp_stats_unixctl,
                             CONST_CAST(void *, &lat_reset));
    unixctl_command_register("netdev-afxdp/pools", "", 0, 0,
                             afxdp_stats_pools_unixctl, NULL);
}
