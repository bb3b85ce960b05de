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

/* The devices' XDP features, from the kernel's "netdev" generic netlink
 * family and its change notifications.  See afxdp-xdp-features.h. */

#include <config.h>

#include "afxdp-xdp-features.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "afxdp-compat.h"
#include "netlink.h"
#include "netlink-socket.h"
#include "openvswitch/hmap.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "coverage.h"
#include "hash.h"
#include "ovs-thread.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_xdp_features);

COVERAGE_DEFINE(afxdp_xdp_features_change);
COVERAGE_DEFINE(afxdp_xdp_features_resync);

/* Set to "off" in ovs-vswitchd's environment, makes the module act as on a
 * kernel without the "netdev" family (the tests use it to check the
 * fallback). */
#define AFXDP_XDP_FEATURES_ENV "OVS_AFXDP_XDP_FEATURES"

/* The bits whose changes the callback hears of. */
#define AFXDP_XDP_FEATURES_XMIT (AFXDP_NETDEV_XDP_ACT_NDO_XMIT \
                                 | AFXDP_NETDEV_XDP_ACT_NDO_XMIT_SG)

/* What the kernel said of one device. */
struct afxdp_xdp_features_dev {
    struct hmap_node node;          /* In 'devs', by 'ifindex'. */
    int ifindex;
    uint64_t features;              /* NETDEV_XDP_ACT_* bits. */
};

/* Set by afxdp_xdp_features_init() in the main thread, before any other
 * thread reads them; constant afterwards. */
static int family;                  /* "netdev" family id; 0 if none. */
static unsigned int mgmt_group;     /* Its "mgmt" multicast group. */
static int init_error;              /* Why there is no family, or 0. */
static bool env_off;                /* AFXDP_XDP_FEATURES_ENV says so. */
static afxdp_xdp_features_cb *notify_cb;

static struct ovs_mutex devs_mutex = OVS_MUTEX_INITIALIZER;
static struct hmap devs OVS_GUARDED_BY(devs_mutex)
    = HMAP_INITIALIZER(&devs);

void
afxdp_xdp_features_init(void)
{
    static bool done;
    int error;

    if (done) {
        return;
    }
    done = true;
    if (!strcmp(getenv(AFXDP_XDP_FEATURES_ENV) ? : "", "off")) {
        init_error = EOPNOTSUPP;
        env_off = true;
        return;
    }
    error = nl_lookup_genl_family(AFXDP_NETDEV_GENL_NAME, &family);
    if (!error) {
        error = nl_lookup_genl_mcgroup(AFXDP_NETDEV_GENL_NAME,
                                       AFXDP_NETDEV_MCGRP_MGMT, &mgmt_group);
    }
    if (error) {
        family = 0;
        init_error = error;
    }
}

void
afxdp_xdp_features_set_notify(afxdp_xdp_features_cb *cb)
{
    notify_cb = cb;
}

bool
afxdp_xdp_features_take_redirect(uint64_t features, bool sg)
{
    uint64_t need = (sg ? AFXDP_NETDEV_XDP_ACT_NDO_XMIT_SG
                     : AFXDP_NETDEV_XDP_ACT_NDO_XMIT);

    return (features & need) == need;
}

static struct afxdp_xdp_features_dev *
afxdp_xdp_features_find(int ifindex)
    OVS_REQUIRES(devs_mutex)
{
    struct afxdp_xdp_features_dev *dev;

    HMAP_FOR_EACH_WITH_HASH (dev, node, hash_int(ifindex, 0), &devs) {
        if (dev->ifindex == ifindex) {
            return dev;
        }
    }
    return NULL;
}

/* Parses a DEV_GET reply or a notification 'msg' into '*ifindex' and
 * '*features', and '*cmd' if nonnull.  Returns 0 or EPROTO. */
static int
afxdp_xdp_features_parse(const struct ofpbuf *msg, int *ifindex,
                         uint64_t *features, uint8_t *cmd)
{
    const struct nlmsghdr *nlmsg = msg->data;
    const struct genlmsghdr *genl = nl_msg_genlmsghdr(msg);
    const struct nlattr *a_index, *a_features;

    if (!genl || nlmsg->nlmsg_type != family) {
        return EPROTO;
    }
    a_index = nl_attr_find(msg, NLMSG_HDRLEN + GENL_HDRLEN,
                           AFXDP_NETDEV_A_DEV_IFINDEX);
    a_features = nl_attr_find(msg, NLMSG_HDRLEN + GENL_HDRLEN,
                              AFXDP_NETDEV_A_DEV_XDP_FEATURES);
    if (!a_index || nl_attr_get_size(a_index) != sizeof(uint32_t)) {
        return EPROTO;
    }
    *ifindex = nl_attr_get_u32(a_index);
    /* A delete notification may come without the features. */
    *features = (a_features && nl_attr_get_size(a_features) == 8
                 ? nl_attr_get_u64(a_features) : 0);
    if (cmd) {
        *cmd = genl->cmd;
    }
    return 0;
}

int
afxdp_netdev_genl_dev_get(int family_id, int ifindex, struct ofpbuf **replyp)
{
    struct ofpbuf request;
    int error;

    ofpbuf_init(&request, 0);
    nl_msg_put_genlmsghdr(&request, 0, family_id, NLM_F_REQUEST,
                          AFXDP_NETDEV_CMD_DEV_GET, AFXDP_NETDEV_GENL_VERSION);
    nl_msg_put_u32(&request, AFXDP_NETDEV_A_DEV_IFINDEX, ifindex);
    error = nl_transact(NETLINK_GENERIC, &request, replyp);
    ofpbuf_uninit(&request);
    return error;
}

int
afxdp_netdev_genl_dev_attr(int ifindex, uint16_t type, uint64_t *value)
{
    const struct nlattr *attr;
    struct ofpbuf *reply;
    int family_id = 0;          /* Looked up anew each time (no cache). */
    int error;

    error = nl_lookup_genl_family(AFXDP_NETDEV_GENL_NAME, &family_id);
    if (!error) {
        error = afxdp_netdev_genl_dev_get(family_id, ifindex, &reply);
    }
    if (error) {
        return error;
    }
    attr = nl_attr_find(reply, NLMSG_HDRLEN + GENL_HDRLEN, type);
    if (attr && nl_attr_get_size(attr) == sizeof(uint64_t)) {
        *value = nl_attr_get_u64(attr);
    } else if (attr && nl_attr_get_size(attr) == sizeof(uint32_t)) {
        *value = nl_attr_get_u32(attr);
    } else {
        error = ENOENT;
    }
    ofpbuf_delete(reply);
    return error;
}

/* Asks the kernel for the features of 'ifindex'.  Returns 0 or a positive
 * errno (ENODEV if there is no such device). */
static int
afxdp_xdp_features_query(int ifindex, uint64_t *features)
{
    struct ofpbuf *reply;
    int error, got;

    error = afxdp_netdev_genl_dev_get(family, ifindex, &reply);
    if (error) {
        return error;
    }
    error = afxdp_xdp_features_parse(reply, &got, features, NULL);
    if (!error && got != ifindex) {
        error = EPROTO;
    }
    ofpbuf_delete(reply);
    return error;
}

/* Records that 'ifindex' has 'features' now; with 'overwrite' false, only
 * if it knows nothing newer of it (a query's answer may be older than a
 * notification that the thread handled meanwhile).  Calls the callback if
 * a feature it hears of changed.  Returns the features it has now. */
static uint64_t
afxdp_xdp_features_store(int ifindex, uint64_t features, bool overwrite)
{
    struct afxdp_xdp_features_dev *dev;
    uint64_t old = 0;
    bool changed = false;

    ovs_mutex_lock(&devs_mutex);
    dev = afxdp_xdp_features_find(ifindex);
    if (!dev) {
        dev = xzalloc(sizeof *dev);
        dev->ifindex = ifindex;
        dev->features = features;
        hmap_insert(&devs, &dev->node, hash_int(ifindex, 0));
    } else if (overwrite) {
        old = dev->features;
        dev->features = features;
        changed = ((old ^ features) & AFXDP_XDP_FEATURES_XMIT) != 0;
    } else {
        features = dev->features;
    }
    ovs_mutex_unlock(&devs_mutex);

    if (changed) {
        COVERAGE_INC(afxdp_xdp_features_change);
        VLOG_DBG("device %d: XDP features %#"PRIx64" -> %#"PRIx64,
                 ifindex, old, features);
        if (notify_cb) {
            notify_cb(ifindex, old, features);
        }
    }
    return features;
}

static void
afxdp_xdp_features_forget(int ifindex)
{
    struct afxdp_xdp_features_dev *dev;

    ovs_mutex_lock(&devs_mutex);
    dev = afxdp_xdp_features_find(ifindex);
    if (dev) {
        hmap_remove(&devs, &dev->node);
        free(dev);
    }
    ovs_mutex_unlock(&devs_mutex);
}

/* Notifications were lost (the socket's buffer overflowed): asks the
 * kernel again about every device it knows. */
static void
afxdp_xdp_features_resync(void)
{
    struct afxdp_xdp_features_dev *dev;
    size_t n = 0, i;
    int *ifindexes;

    COVERAGE_INC(afxdp_xdp_features_resync);
    ovs_mutex_lock(&devs_mutex);
    ifindexes = xmalloc((hmap_count(&devs) + 1) * sizeof *ifindexes);
    HMAP_FOR_EACH (dev, node, &devs) {
        ifindexes[n++] = dev->ifindex;
    }
    ovs_mutex_unlock(&devs_mutex);

    for (i = 0; i < n; i++) {
        uint64_t features;

        if (!afxdp_xdp_features_query(ifindexes[i], &features)) {
            afxdp_xdp_features_store(ifindexes[i], features, true);
        } else {
            afxdp_xdp_features_forget(ifindexes[i]);
        }
    }
    free(ifindexes);
}

/* Handles one message from the "mgmt" group. */
static void
afxdp_xdp_features_handle(const struct ofpbuf *msg)
{
    uint64_t features;
    int ifindex;
    uint8_t cmd;

    if (afxdp_xdp_features_parse(msg, &ifindex, &features, &cmd)) {
        return;
    }
    switch (cmd) {
    case AFXDP_NETDEV_CMD_DEV_ADD_NTF:
    case AFXDP_NETDEV_CMD_DEV_CHANGE_NTF:
        afxdp_xdp_features_store(ifindex, features, true);
        break;
    case AFXDP_NETDEV_CMD_DEV_DEL_NTF:
        afxdp_xdp_features_forget(ifindex);
        break;
    default:
        break;
    }
}

/* The thread: reads the notifications of 'sock_' for ever. */
static void *
afxdp_xdp_features_main(void *sock_)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
    struct nl_sock *sock = sock_;
    long long int last_msg = 0;     /* When a message last came. */
    uint64_t stub[4096 / 8];
    struct ofpbuf buf;

    ofpbuf_use_stub(&buf, stub, sizeof stub);
    for (;;) {
        int error = nl_sock_recv(sock, &buf, NULL, false);

        if (!error || error == ENOBUFS) {
            last_msg = time_msec();
        }
        if (!error) {
            afxdp_xdp_features_handle(&buf);
        } else if (error == ENOBUFS) {
            VLOG_INFO_RL(&rl, "XDP feature notifications were lost (socket "
                         "buffer full); asking the kernel again");
            afxdp_xdp_features_resync();
        } else {
            if (error != EAGAIN) {
                VLOG_WARN_RL(&rl, "reading XDP feature notifications "
                             "failed (%s)", ovs_strerror(error));
            }
            /* No other poll loop publishes this thread's coverage counts
             * (what it and the callback counted), and OVS publishes a
             * thread's counts at most once a second: wakes up for that
             * a while after a message. */
            coverage_try_clear();
            if (time_msec() - last_msg < 2000) {
                poll_timer_wait(500);
            }
            nl_sock_wait(sock, POLLIN);
            poll_block();
        }
    }
    OVS_NOT_REACHED();
}

/* Opens the socket and starts the thread, the first time.  Returns 0 or
 * EOPNOTSUPP if the kernel cannot say. */
static int
afxdp_xdp_features_start(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    static int error;

    if (ovsthread_once_start(&once)) {
        struct nl_sock *sock = NULL;

        error = init_error ? init_error : !family ? ENOENT : 0;
        if (!error) {
            error = nl_sock_create(NETLINK_GENERIC, &sock);
        }
        if (!error) {
            error = nl_sock_join_mcgroup(sock, mgmt_group);
        }
        if (error) {
            VLOG_INFO("the kernel does not say which devices take frames "
                      "that XDP redirects to them (its \"netdev\" generic "
                      "netlink family, Linux 6.3+: %s): flow offload finds "
                      "an egress that drops them only from its counters",
                      env_off ? "off by " AFXDP_XDP_FEATURES_ENV
                      "=off" : ovs_strerror(error));
            nl_sock_destroy(sock);
            error = EOPNOTSUPP;
        } else {
            /* Joined before any query: no change after one is missed. */
            ovs_thread_create("afxdp_xdpfeat", afxdp_xdp_features_main,
                              sock);
        }
        ovsthread_once_done(&once);
    }
    return error;
}

int
afxdp_xdp_features_get(int ifindex, uint64_t *features)
{
    struct afxdp_xdp_features_dev *dev;
    int error = afxdp_xdp_features_start();

    if (error) {
        return error;
    }
    ovs_mutex_lock(&devs_mutex);
    dev = afxdp_xdp_features_find(ifindex);
    if (dev) {
        *features = dev->features;
    }
    ovs_mutex_unlock(&devs_mutex);
    if (dev) {
        return 0;
    }

    error = afxdp_xdp_features_query(ifindex, features);
    if (!error) {
        *features = afxdp_xdp_features_store(ifindex, *features, false);
    }
    return error;
}
