/* SPDX-License-Identifier: Apache-2.0 */

/* The egress devices of offloaded flows: their devmap entries, and whether
 * each takes redirected frames (the kernel's XDP features, our watch of
 * veths).  See afxdp-offload-egress.h. */

#include <config.h>

#include "afxdp-offload-egress.h"

#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <linux/ethtool.h>
#include <bpf/bpf.h>

#include "afxdp-device.h"
#include "afxdp-flow-table.h"
#include "afxdp-port-private.h"
#include "afxdp-xdp-features.h"
#include "connectivity.h"
#include "netdev-provider.h"
#include "openvswitch/thread.h"
#include "seq.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

/* A veth egress is found not to take redirected frames when at least this
 * many frames of one flow were redirected to it and its count of frames
 * taken did not move. */
#define AFXDP_OFFLOAD_EGRESS_PROBE 8

/* A device that flows of a port output to, in its devmap. */
struct afxdp_offload_egress {
    struct hmap_node node;          /* In 'devices', by 'ifindex'. */
    int ifindex;
    int refs;                       /* Installed flows that use it. */
    uint64_t unused_since;          /* With no flows: the grace mark
                                     * (afxdp_flow_table_grace_mark()) that
                                     * must end before its devmap entry
                                     * goes (afxdp_offload_egress_reap()). */
    bool veth;                      /* A veth: watched. */
    long long int xmit_read_ms;     /* When 'xmit' was read. */
    uint64_t xmit;                  /* Frames it took from XDP redirects
                                     * (its tx_queue_N_xdp_xmit). */
};

/* A device found dropping the frames redirected to it, in 'broken_egress'
 * (see the top of afxdp-offload-egress.h). */
struct afxdp_offload_broken {
    struct hmap_node node;          /* In 'broken_egress', by 'ifindex'. */
    int ifindex;
    char *name;                     /* Device name, for status. */
};

static struct ovs_mutex broken_mutex = OVS_MUTEX_INITIALIZER;
static struct hmap broken_egress OVS_GUARDED_BY(broken_mutex)
    = HMAP_INITIALIZER(&broken_egress);

/* The offload core's, for changes of the devices' XDP features. */
static afxdp_offload_egress_moved_cb *moved_cb;

/* Egress devices that drop redirected frames. */

static struct afxdp_offload_broken *
afxdp_offload_broken_find(int ifindex)
    OVS_REQUIRES(broken_mutex)
{
    struct afxdp_offload_broken *b;

    HMAP_FOR_EACH_WITH_HASH (b, node, hash_int(ifindex, 0), &broken_egress) {
        if (b->ifindex == ifindex) {
            return b;
        }
    }
    return NULL;
}

static bool
afxdp_offload_is_broken(int ifindex)
{
    bool broken;

    ovs_mutex_lock(&broken_mutex);
    broken = afxdp_offload_broken_find(ifindex) != NULL;
    ovs_mutex_unlock(&broken_mutex);
    return broken;
}

bool
afxdp_offload_egress_mark_broken(int ifindex, const char *name)
{
    bool added = false;

    ovs_mutex_lock(&broken_mutex);
    if (!afxdp_offload_broken_find(ifindex)) {
        struct afxdp_offload_broken *b = xzalloc(sizeof *b);

        b->ifindex = ifindex;
        b->name = xstrdup(name);
        hmap_insert(&broken_egress, &b->node, hash_int(ifindex, 0));
        added = true;
    }
    ovs_mutex_unlock(&broken_mutex);
    return added;
}

void
afxdp_offload_egress_forget(int ifindex)
{
    struct afxdp_offload_broken *b;

    ovs_mutex_lock(&broken_mutex);
    b = afxdp_offload_broken_find(ifindex);
    if (b) {
        hmap_remove(&broken_egress, &b->node);
        free(b->name);
        free(b);
    }
    ovs_mutex_unlock(&broken_mutex);
}

/* If device 'ifindex' is a veth, stores in '*xmit' the frames it took from
 * XDP redirects so far (the sum of its tx_queue_N_xdp_xmit statistics)
 * and returns true; otherwise returns false. */
static bool
afxdp_veth_xdp_xmit(int ifindex, uint64_t *xmit)
{
    struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };
    struct ethtool_gstrings *names = NULL;
    struct ethtool_stats *stats = NULL;
    char name[IF_NAMESIZE];
    bool veth = false;
    uint32_t n;

    if (!if_indextoname(ifindex, name)
        || afxdp_device_ethtool(name, &drv) || strcmp(drv.driver, "veth")) {
        return false;
    }
    n = drv.n_stats;
    if (!n || n > 4096) {
        goto out;
    }
    names = xzalloc(sizeof *names + n * ETH_GSTRING_LEN);
    names->cmd = ETHTOOL_GSTRINGS;
    names->string_set = ETH_SS_STATS;
    names->len = n;
    if (afxdp_device_ethtool(name, names)) {
        goto out;
    }
    stats = xzalloc(sizeof *stats + n * sizeof stats->data[0]);
    stats->cmd = ETHTOOL_GSTATS;
    stats->n_stats = n;
    if (afxdp_device_ethtool(name, stats)) {
        goto out;
    }
    veth = true;
    *xmit = 0;
    for (uint32_t i = 0; i < MIN(n, stats->n_stats); i++) {
        const char *s = (const char *) &names->data[i * ETH_GSTRING_LEN];
        unsigned int queue;
        int end = 0;

        if (sscanf(s, "tx_queue_%u_xdp_xmit%n", &queue, &end) == 1
            && end && !s[end]) {
            *xmit += stats->data[i];
        }
    }
out:
    free(names);
    free(stats);
    return veth;
}

/* A port's devmap. */

void
afxdp_offload_egress_set_init(struct afxdp_offload_egress_set *set)
{
    hmap_init(&set->devices);
}

void
afxdp_offload_egress_set_clear(struct afxdp_offload_egress_set *set)
{
    struct afxdp_offload_egress *eg;

    HMAP_FOR_EACH_POP (eg, node, &set->devices) {
        free(eg);
    }
}

void
afxdp_offload_egress_set_destroy(struct afxdp_offload_egress_set *set)
{
    afxdp_offload_egress_set_clear(set);
    hmap_destroy(&set->devices);
}

static struct afxdp_offload_egress *
afxdp_offload_egress_find(const struct afxdp_offload_egress_set *set,
                          int ifindex)
{
    struct afxdp_offload_egress *eg;

    HMAP_FOR_EACH_WITH_HASH (eg, node, hash_int(ifindex, 0),
                             &set->devices) {
        if (eg->ifindex == ifindex) {
            return eg;
        }
    }
    return NULL;
}

/* True if some devmap entry of 'set' has no flows. */
static bool
afxdp_offload_egress_any_unused(const struct afxdp_offload_egress_set *set)
{
    const struct afxdp_offload_egress *eg;

    HMAP_FOR_EACH (eg, node, &set->devices) {
        if (!eg->refs) {
            return true;
        }
    }
    return false;
}

int
afxdp_offload_egress_ref(struct afxdp_offload_egress_set *set, int devmap_fd,
                         int ifindex)
{
    struct afxdp_offload_egress *eg = afxdp_offload_egress_find(set, ifindex);
    uint32_t key = ifindex, value = ifindex;
    int ret;

    if (!eg || !eg->refs) {
        /* Written again for an entry kept after its last flow (it is
         * there, unless the kernel took it with a device deleted). */
        ret = bpf_map_update_elem(devmap_fd, &key, &value, BPF_ANY);
        if (ret == -E2BIG && afxdp_offload_egress_any_unused(set)) {
            /* Full of entries that await the end of a grace period. */
            return EAGAIN;
        }
        if (ret) {
            return -ret;
        }
    }
    if (!eg) {
        eg = xzalloc(sizeof *eg);
        eg->ifindex = ifindex;
        eg->veth = afxdp_veth_xdp_xmit(ifindex, &eg->xmit);
        eg->xmit_read_ms = time_msec();
        hmap_insert(&set->devices, &eg->node, hash_int(ifindex, 0));
    }
    eg->refs++;
    return 0;
}

void
afxdp_offload_egress_unref(struct afxdp_offload_egress_set *set, int ifindex)
{
    struct afxdp_offload_egress *eg = afxdp_offload_egress_find(set, ifindex);

    if (eg && !--eg->refs) {
        eg->unused_since = afxdp_flow_table_grace_mark();
    }
}

void
afxdp_offload_egress_reap(struct afxdp_offload_egress_set *set, int devmap_fd)
{
    struct afxdp_offload_egress *eg;

    HMAP_FOR_EACH_SAFE (eg, node, &set->devices) {
        if (!eg->refs && afxdp_flow_table_grace_done(eg->unused_since)) {
            uint32_t key = eg->ifindex;

            if (devmap_fd >= 0) {
                /* ENOENT if the kernel took it with its device. */
                bpf_map_delete_elem(devmap_fd, &key);
            }
            hmap_remove(&set->devices, &eg->node);
            free(eg);
        }
    }
}

/* The watch of veths. */

void
afxdp_offload_egress_probe_start(const struct afxdp_offload_egress_set *set,
                                 int ifindex,
                                 struct afxdp_offload_egress_probe *probe)
{
    probe->packets = 0;
    probe->xmit = 0;
    if (ifindex) {
        const struct afxdp_offload_egress *eg;

        eg = afxdp_offload_egress_find(set, ifindex);
        probe->xmit = eg ? eg->xmit : 0;
    }
}

bool
afxdp_offload_egress_drops(struct afxdp_offload_egress_set *set, int ifindex,
                           struct afxdp_offload_egress_probe *probe,
                           uint64_t packets)
{
    struct afxdp_offload_egress *eg = afxdp_offload_egress_find(set, ifindex);

    if (!eg || !eg->veth
        || packets - probe->packets < AFXDP_OFFLOAD_EGRESS_PROBE) {
        return false;
    }
    if (eg->xmit == probe->xmit) {
        /* Read again now, after those frames went out. */
        afxdp_veth_xdp_xmit(ifindex, &eg->xmit);
        eg->xmit_read_ms = time_msec();
    }
    if (eg->xmit != probe->xmit) {
        probe->packets = packets;
        probe->xmit = eg->xmit;
        return false;
    }
    return true;
}

/* What a device takes. */

bool
afxdp_offload_egress_takes(int ifindex)
{
    uint64_t features;

    if (!afxdp_xdp_features_get(ifindex, &features)
        && !afxdp_xdp_features_take_redirect(features, false)) {
        return false;
    }
    return !afxdp_offload_is_broken(ifindex);
}

bool
afxdp_offload_egress_single_buffer(int ifindex)
{
    uint64_t features;

    return (!afxdp_xdp_features_get(ifindex, &features)
            && !afxdp_xdp_features_take_redirect(features, true));
}

void
afxdp_offload_egress_ask(int ifindex)
{
    uint64_t features;

    afxdp_xdp_features_get(ifindex, &features);
}

void
afxdp_offload_egress_status(int ifindex, struct smap *smap)
{
    uint64_t features;

    if (ifindex > 0 && afxdp_offload_is_broken(ifindex)) {
        smap_add(smap, "xdp-offload-egress", "off: frames redirected to "
                 "this veth by XDP are dropped (its peer has neither XDP "
                 "nor GRO on); flows to it run on the PMD");
    } else if (ifindex > 0
               && !afxdp_xdp_features_get(ifindex, &features)
               && !afxdp_xdp_features_take_redirect(features, false)) {
        smap_add(smap, "xdp-offload-egress", "off: the kernel says this "
                 "device takes no frames redirected by XDP (no ndo_xmit "
                 "in its XDP features: a veth needs an XDP program or GRO "
                 "on its peer); flows of native-XDP ports to it run on the "
                 "PMD");
    }
}

void
afxdp_offload_egress_changed(int ifindex)
{
    char name[IF_NAMESIZE];
    struct netdev *netdev;

    if (!if_indextoname(ifindex, name)) {
        return;
    }
    netdev = netdev_from_name(name);
    if (netdev) {
        if (afxdp_port_lookup(netdev)) {
            netdev_change_seq_changed(netdev);
            /* That wakes the main thread (connectivity_seq) before it bumps
             * the netdev's change_seq: from another thread, the main thread
             * may look at the netdev in between, find it unchanged, and
             * then wait for the next change of anything.  Wakes it again,
             * now that the netdev's change is there to see. */
            seq_change(connectivity_seq_get());
        }
        netdev_close(netdev);
    }
}

/* The kernel says that device 'ifindex' started or stopped taking the
 * frames that XDP redirects to it, or multi-buffer ones (its NDO_XMIT or
 * NDO_XMIT_SG feature went from 'old' to 'new'; a veth's peer turned GRO
 * or an XDP program on or off).  Called by afxdp-xdp-features' thread
 * without any of our locks. */
static void
afxdp_offload_egress_features_changed(int ifindex, uint64_t old,
                                      uint64_t new)
{
    bool takes = afxdp_xdp_features_take_redirect(new, false);

    if (takes == afxdp_xdp_features_take_redirect(old, false)
        && (afxdp_xdp_features_take_redirect(new, true)
            == afxdp_xdp_features_take_redirect(old, true))) {
        return;
    }
    if (takes) {
        /* What our counters found no longer holds. */
        afxdp_offload_egress_forget(ifindex);
    }
    moved_cb(ifindex, takes);
    afxdp_offload_egress_changed(ifindex);
}

void
afxdp_offload_egress_init(afxdp_offload_egress_moved_cb *cb)
{
    moved_cb = cb;
    afxdp_xdp_features_init();
    afxdp_xdp_features_set_notify(afxdp_offload_egress_features_changed);
}
