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

#include <config.h>

#include "afxdp-xsk.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "afxdp-compat.h"
#include "afxdp-xdp-features.h"
#include "afxdp-xsk-umem.h"
#include "bitmap.h"
#include "coverage.h"
#include "openvswitch/util.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_xsk);

/* Frames that came back through a completion ring although they were not
 * in flight: an accounting bug, ours or the kernel's. */
COVERAGE_DEFINE(afxdp_tx_overcompleted);
COVERAGE_DEFINE(afxdp_tx_comp_bad_addr);

/* A queue that was bound a moment ago may still be busy in the kernel
 * (EBUSY for tens of milliseconds after close): retry this long. */
#define AFXDP_XSK_BIND_RETRY_MS 500

/* How long tear-down waits for frames sent earlier to complete. */
#define AFXDP_XSK_DRAIN_MS 50

/* Returns true if this process has CAP_IPC_LOCK in its effective set, which
 * makes the kernel skip RLIMIT_MEMLOCK when pinning the UMEM. */
static bool
afxdp_xsk_have_ipc_lock(void)
{
    struct __user_cap_header_struct hdr = {
        .version = _LINUX_CAPABILITY_VERSION_3,
        .pid = 0,
    };
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

    memset(data, 0, sizeof data);
    if (syscall(SYS_capget, &hdr, data)) {
        return false;
    }
    return (data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective
            & CAP_TO_MASK(CAP_IPC_LOCK)) != 0;
}

/* Makes sure the kernel will let us pin 'bytes' of UMEM: either we have
 * CAP_IPC_LOCK, or RLIMIT_MEMLOCK is large enough, or can be raised to be
 * (and, if 'raise', is raised).  Returns 0 or ENOBUFS with a message for
 * the user, starting with 'devname', in '*errp'. */
int
afxdp_xsk_check_memlock(const char *devname, uint64_t bytes, bool raise,
                        char **errp)
{
    struct rlimit rl;

    if (afxdp_xsk_have_ipc_lock()) {
        return 0;
    }
    if (getrlimit(RLIMIT_MEMLOCK, &rl)) {
        return 0;   /* Let the kernel decide. */
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= bytes) {
        return 0;
    }
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= bytes) {
        if (!raise) {
            return 0;
        }
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? RLIM_INFINITY : bytes;
        if (!setrlimit(RLIMIT_MEMLOCK, &rl)) {
            VLOG_INFO("%s: raised RLIMIT_MEMLOCK to pin %"PRIu64" bytes of "
                      "UMEM", devname, bytes);
            return 0;
        }
    }
    *errp = xasprintf("%s: cannot pin %"PRIu64" bytes of UMEM: "
                      "RLIMIT_MEMLOCK is %llu bytes and cannot be raised; "
                      "raise it (ulimit -l, LimitMEMLOCK=) or run "
                      "ovs-vswitchd with CAP_IPC_LOCK, or use fewer frames "
                      "(options:umem-frames, options:xsk-ring-size)",
                      devname, bytes, (unsigned long long) rl.rlim_cur);
    return ENOBUFS;
}

/* Returns true if the kernel takes XDP_USE_SG (AF_XDP multi-buffer, Linux
 * 6.6).  The kernel checks a bind's flags before anything else, so a bind
 * to no device tells: EINVAL for an unknown flag, ENODEV otherwise.  Asked
 * once per process. */
bool
afxdp_xsk_sg_supported(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    static bool supported;

    if (ovsthread_once_start(&once)) {
        struct sockaddr_xdp sxdp;
        int fd = socket(AF_XDP, SOCK_RAW, 0);

        if (fd >= 0) {
            memset(&sxdp, 0, sizeof sxdp);
            sxdp.sxdp_family = AF_XDP;
            sxdp.sxdp_flags = XDP_COPY | XDP_USE_SG;
            sxdp.sxdp_ifindex = 0;
            supported = (bind(fd, (struct sockaddr *) &sxdp, sizeof sxdp)
                         && errno != EINVAL);
            close(fd);
        }
        VLOG_INFO("AF_XDP multi-buffer (XDP_USE_SG): %s",
                  supported ? "supported" : "not supported by the kernel");
        ovsthread_once_done(&once);
    }
    return supported;
}

/* Socket buffer for the skbs that copy mode builds from sent descriptors:
 * a jumbo frame costs its size in the socket's send buffer until the
 * device frees it, so the default (net.core.wmem_default, about 200 kB)
 * would hold only a few dozen. */
#define AFXDP_XSK_SNDBUF (4 * 1024 * 1024)

/* Makes copy-mode transmit of multi-buffer packets on 'xsk' go at the
 * pace of single-frame ones: a send buffer for jumbo skbs and, where the
 * kernel has it (6.17), a per-sendto() budget of descriptors as large as
 * a burst of the largest packets.  Best effort: a kernel that refuses
 * leaves the defaults, which only means more kicks. */
static void
afxdp_xsk_tune_sg_tx(struct afxdp_xsk *xsk, uint32_t ring_size)
{
    int sndbuf = AFXDP_XSK_SNDBUF;
    int budget = MIN(ring_size, 32 * AFXDP_XSK_TX_MAX_FRAGS);

    if (setsockopt(xsk->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf,
                   sizeof sndbuf)
        && setsockopt(xsk->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
                      sizeof sndbuf)) {
        VLOG_DBG("queue %"PRIu32": cannot raise SO_SNDBUF: %s",
                 xsk->queue_id, ovs_strerror(errno));
    }
    if (setsockopt(xsk->fd, SOL_XDP, XDP_MAX_TX_SKB_BUDGET, &budget,
                   sizeof budget)) {
        VLOG_DBG("queue %"PRIu32": no XDP_MAX_TX_SKB_BUDGET: %s",
                 xsk->queue_id, ovs_strerror(errno));
    }
}

/* Posts up to a full ring of free frames to 'xsk''s fill ring. */
static void
afxdp_xsk_prime_fill(struct afxdp_xsk *xsk, struct afxdp_pool *pool,
                     uint32_t ring_size)
{
    uint64_t *addrs = xmalloc(ring_size * sizeof *addrs);
    uint32_t n = afxdp_pool_get(pool, addrs, ring_size);
    uint32_t idx;

    if (n && xsk_ring_prod__reserve(&xsk->fill, n, &idx) == n) {
        for (uint32_t i = 0; i < n; i++) {
            *xsk_ring_prod__fill_addr(&xsk->fill, idx + i) = addrs[i];
        }
        xsk_ring_prod__submit(&xsk->fill, n);
    } else if (n) {
        afxdp_pool_put(pool, addrs, n);
    }
    free(addrs);
}

/* Returns the message, owned by the caller, for the user that the driver of
 * 'devname' refused to bind 'queue' in zero-copy mode with positive errno
 * 'error'. */
static char *
afxdp_xsk_zc_refused_msg(const char *devname, uint32_t queue, int error)
{
    return xasprintf("%s: queue %"PRIu32": zero-copy refused by the driver "
                     "(%s)", devname, queue, ovs_strerror(error));
}

/* Applies the busy-poll options of 'bp' to 'xsk''s socket.  Returns 0 or a
 * positive errno with a message in '*errp'. */
static int
afxdp_xsk_set_busy_poll(struct afxdp_xsk *xsk, const char *devname,
                        const struct afxdp_busy_poll *bp, char **errp)
{
    int prefer = bp->prefer, usecs = bp->usecs, budget = bp->budget;

    if (!usecs) {
        return 0;
    }
    if (setsockopt(xsk->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &prefer,
                   sizeof prefer)
        || setsockopt(xsk->fd, SOL_SOCKET, SO_BUSY_POLL, &usecs,
                      sizeof usecs)
        || setsockopt(xsk->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget,
                      sizeof budget)) {
        int error = errno;

        *errp = xasprintf("%s: queue %"PRIu32": cannot set busy polling "
                          "(usecs %d, budget %d, prefer %s): %s%s", devname,
                          xsk->queue_id, usecs, budget,
                          prefer ? "true" : "false", ovs_strerror(error),
                          error == EPERM ? "; raising the budget needs "
                          "CAP_NET_ADMIN" : "");
        return error;
    }
    xsk->busy_poll = true;
    xsk->busy_poll_budget = budget;
    return 0;
}

/* Completes the set-up of 'xsk', a socket just bound in zero-copy mode if
 * 'zero_copy', with multi-buffer if 'sg', and stores it in '*xskp'.
 * Returns 0 or a positive errno with a message in '*errp' (the socket is
 * in '*xskp' all the same). */
/* The message for the UMEM of 'set' that the kernel refused to register
 * with positive errno 'error'.  ENOBUFS: the pages would go over
 * RLIMIT_MEMLOCK, which the kernel counts for all the UMEMs of the user,
 * not only this one (afxdp_xsk_check_memlock() could only check this
 * one). */
static char *
afxdp_xsk_umem_error(const char *devname, const struct afxdp_xsk_set *set,
                     int error)
{
    return xasprintf("%s: cannot register the UMEM (%"PRIuSIZE" bytes): "
                     "%s%s", devname, afxdp_pool_area_size(set->pool),
                     ovs_strerror(error),
                     error == ENOBUFS
                     ? "; the UMEMs of all ports together exceed "
                       "RLIMIT_MEMLOCK: raise it (ulimit -l, "
                       "LimitMEMLOCK=) or run ovs-vswitchd with "
                       "CAP_IPC_LOCK, or use fewer frames" : "");
}

static int
afxdp_xsk_finish(struct afxdp_xsk_set *set, const char *devname,
                 const struct afxdp_xsk_queue_params *qp, bool zero_copy,
                 bool sg, struct afxdp_xsk *xsk, struct afxdp_xsk **xskp,
                 char **errp)
{
    const struct afxdp_xsk_params *p = &set->params;

    xsk->zero_copy = zero_copy;
    xsk->need_wakeup = p->need_wakeup;
    xsk->sg = sg;
    if (sg && !zero_copy) {
        afxdp_xsk_tune_sg_tx(xsk, p->ring_size);
    }
    afxdp_xsk_prime_fill(xsk, set->pool, p->ring_size);
    *xskp = xsk;
    return afxdp_xsk_set_busy_poll(xsk, devname, &qp->busy_poll, errp);
}

/* Creates the copy-mode socket for the queue described by 'qp' through the
 * set's own registration with TX metadata (making it on first use).
 * Returns 0 or a positive errno with a message in '*errp'. */
static int
afxdp_xsk_create_txmd(struct afxdp_xsk_set *set, const char *devname,
                      const struct afxdp_xsk_queue_params *qp,
                      struct afxdp_xsk **xskp, char **errp)
{
    const struct afxdp_xsk_params *p = &set->params;
    struct afxdp_xsk_umem_rings rings;
    bool new_umem = false;
    struct afxdp_xsk *xsk;
    int ifindex, error;

    ifindex = if_nametoindex(devname);
    if (!ifindex) {
        error = errno;
        *errp = xasprintf("%s: cannot find the device: %s", devname,
                          ovs_strerror(error));
        return error;
    }
    if (!set->own) {
        error = afxdp_xsk_umem_create(afxdp_pool_area(set->pool),
                                      afxdp_pool_area_size(set->pool),
                                      afxdp_pool_frame_size(set->pool),
                                      p->ring_size, &set->own);
        if (error) {
            *errp = afxdp_xsk_umem_error(devname, set, error);
            return error;
        }
        new_umem = true;
    }

    xsk = xzalloc_cacheline(sizeof *xsk);
    xsk->queue_id = qp->device_queue;
    xsk->mode_requested = qp->mode;
    rings.rx = &xsk->rx;
    rings.tx = &xsk->tx;
    rings.fill = &xsk->fill;
    rings.comp = &xsk->comp;
    error = afxdp_xsk_umem_socket(set->own, ifindex, qp->device_queue,
                                  (XDP_COPY
                                   | (p->need_wakeup ? XDP_USE_NEED_WAKEUP : 0)
                                   | (p->sg ? XDP_USE_SG : 0)),
                                  &rings, &xsk->fd);
    if (error) {
        if (new_umem) {
            afxdp_xsk_umem_destroy(set->own);
            set->own = NULL;
        }
        *errp = xasprintf("%s: queue %"PRIu32": cannot create the AF_XDP "
                          "socket: %s", devname, qp->device_queue,
                          ovs_strerror(error));
        free_cacheline(xsk);
        return error;
    }
    xsk->tx_metadata_len = AFXDP_XSK_UMEM_TXMD_LEN;
    return afxdp_xsk_finish(set, devname, qp, false, p->sg, xsk, xskp, errp);
}

/* Creates the socket for the queue described by 'qp', bound in zero-copy
 * mode if 'zero_copy', through the set's UMEM registration for that mode
 * (registering it on first use).  If the driver refuses zero-copy, 'set'
 * remembers it, and later zero-copy requests fail at once with the same
 * error.  Returns 0 or a positive errno with a message in '*errp'. */
static int
afxdp_xsk_create(struct afxdp_xsk_set *set, const char *devname,
                 const struct afxdp_xsk_queue_params *qp, bool zero_copy,
                 struct afxdp_xsk **xskp, char **errp)
{
    const struct afxdp_xsk_params *p = &set->params;
    struct xsk_umem **umemp = &set->umem[zero_copy];
    struct xsk_socket_config scfg;
    struct afxdp_xsk *xsk;
    bool new_umem = false;
    long long int deadline;
    bool sg;
    int ret;

    if (!zero_copy && p->tx_metadata) {
        return afxdp_xsk_create_txmd(set, devname, qp, xskp, errp);
    }
    if (zero_copy && set->zc_refused) {
        /* Refused for an earlier queue: the driver would refuse again, and
         * registering the memory once more for that costs time. */
        *errp = afxdp_xsk_zc_refused_msg(devname, qp->device_queue,
                                         set->zc_refused);
        return set->zc_refused;
    }

    xsk = xzalloc_cacheline(sizeof *xsk);
    xsk->queue_id = qp->device_queue;
    xsk->mode_requested = qp->mode;
    xsk->fd = -1;

    if (!*umemp) {
        struct xsk_umem_config ucfg = {
            .fill_size = p->ring_size,
            .comp_size = p->ring_size,
            .frame_size = afxdp_pool_frame_size(set->pool),
            .frame_headroom = 0,
            .flags = 0,
        };

        ret = xsk_umem__create(umemp, afxdp_pool_area(set->pool),
                               afxdp_pool_area_size(set->pool),
                               &xsk->fill, &xsk->comp, &ucfg);
        if (ret) {
            *umemp = NULL;
            *errp = afxdp_xsk_umem_error(devname, set, -ret);
            free_cacheline(xsk);
            return -ret;
        }
        new_umem = true;
    }

    memset(&scfg, 0, sizeof scfg);
    scfg.rx_size = p->ring_size;
    scfg.tx_size = p->ring_size;
    scfg.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
    /* On a registration that has a socket, libxdp binds with
     * XDP_SHARED_UMEM alone and the kernel gives the new socket the first
     * one's flags: 'sg' below is what the first one got. */
    sg = p->sg && !(zero_copy && set->sg_refused);
    scfg.bind_flags = ((zero_copy ? XDP_ZEROCOPY : XDP_COPY)
                       | (p->need_wakeup ? XDP_USE_NEED_WAKEUP : 0)
                       | (sg ? XDP_USE_SG : 0));

    deadline = time_msec() + AFXDP_XSK_BIND_RETRY_MS;
    for (;;) {
        ret = xsk_socket__create_shared(&xsk->socket, devname,
                                        qp->device_queue, *umemp, &xsk->rx,
                                        &xsk->tx, &xsk->fill, &xsk->comp,
                                        &scfg);
        if (ret == -EOPNOTSUPP && zero_copy && sg && new_umem) {
            /* A driver without zero-copy multi-buffer: zero-copy without
             * it, frames up to one UMEM frame. */
            set->sg_refused = true;
            sg = false;
            scfg.bind_flags &= ~XDP_USE_SG;
            continue;
        }
        if (ret != -EBUSY || time_msec() >= deadline) {
            break;
        }
        xnanosleep(10 * 1000 * 1000);
    }
    if (ret) {
        if (new_umem) {
            /* Nothing is bound to the registration: unregister it.  Until
             * a socket is bound on a new UMEM, libxdp keeps pointers to the
             * ring structs that xsk_umem__create() filled ('xsk->fill' and
             * 'xsk->comp'), and xsk_umem__delete() unmaps the fill and
             * completion rings through them: delete before freeing 'xsk',
             * and unmap nothing ourselves. */
            xsk_umem__delete(*umemp);
            *umemp = NULL;
        }
        if (zero_copy && (ret == -EOPNOTSUPP || ret == -EPROTONOSUPPORT
                          || ret == -EINVAL)) {
            set->zc_refused = -ret;
            *errp = afxdp_xsk_zc_refused_msg(devname, qp->device_queue,
                                             set->zc_refused);
        } else {
            *errp = xasprintf("%s: queue %"PRIu32": cannot create the "
                              "AF_XDP socket: %s", devname, qp->device_queue,
                              ovs_strerror(-ret));
        }
        free_cacheline(xsk);
        return -ret;
    }

    xsk->fd = xsk_socket__fd(xsk->socket);
    return afxdp_xsk_finish(set, devname, qp, zero_copy, sg, xsk, xskp,
                            errp);
}

/* Creates the socket of one queue as 'qp' asks: for "auto", zero-copy and,
 * if the driver refuses it, copy, remembering why. */
static int
afxdp_xsk_create_queue(struct afxdp_xsk_set *set, const char *devname,
                       const struct afxdp_xsk_queue_params *qp,
                       struct afxdp_xsk **xskp, char **errp)
{
    char *zc_err = NULL;
    int error;

    if (qp->mode != AFXDP_XSK_AUTO) {
        return afxdp_xsk_create(set, devname, qp,
                                qp->mode == AFXDP_XSK_ZERO_COPY, xskp, errp);
    }
    error = afxdp_xsk_create(set, devname, qp, true, xskp, &zc_err);
    if (error && !*xskp) {
        error = afxdp_xsk_create(set, devname, qp, false, xskp, errp);
        if (!error) {
            /* Keep only the reason, without "DEV: queue N: ". */
            const char *why = strstr(zc_err, "zero-copy");

            (*xskp)->mode_reason = xasprintf("%s, using copy",
                                             why ? why : zc_err);
        }
    } else if (error) {
        *errp = zc_err;
        zc_err = NULL;
    }
    free(zc_err);
    return error;
}

/* Creates 'n_queues' sockets on 'devname', one per rx queue from 0, all
 * sharing one UMEM over 'pool', and posts free frames to their fill rings.
 * The sockets receive nothing until the XDP program's XSKMAP points at
 * them.
 *
 * On success returns 0 and stores the set in '*setp' (owned by the caller,
 * close it with afxdp_xsk_set_close()).  On failure returns a positive errno
 * and a malloc'd message starting with 'devname' in '*errp'; every frame
 * taken from 'pool' has been returned to it. */
int
afxdp_xsk_set_open(const char *devname, struct afxdp_pool *pool,
                   int n_queues, const struct afxdp_xsk_params *params,
                   const struct afxdp_xsk_queue_params *qparams,
                   struct afxdp_xsk_set **setp, char **errp)
{
    struct afxdp_xsk_set *set;
    int error;

    *setp = NULL;
    *errp = NULL;
    error = afxdp_xsk_check_memlock(devname, afxdp_pool_area_size(pool),
                                    true, errp);
    if (error) {
        return error;
    }

    set = xzalloc(sizeof *set);
    set->pool = pool;
    set->params = *params;
    set->xsks = xcalloc(n_queues, sizeof *set->xsks);
    for (int i = 0; i < n_queues; i++) {
        error = afxdp_xsk_create_queue(set, devname, &qparams[i],
                                       &set->xsks[i], errp);
        if (set->xsks[i]) {
            set->n++;
        }
        if (error) {
            afxdp_xsk_set_close(set);
            return error;
        }
    }

    *setp = set;
    return 0;
}

/* Sends what is still in 'xsk''s tx ring and reaps completions until
 * nothing is in flight or a short time has passed. */
static void
afxdp_xsk_drain_tx(struct afxdp_xsk *xsk, struct afxdp_pool *pool)
{
    const struct afxdp_pool_layout *l = afxdp_pool_layout(pool);
    long long int deadline = time_msec() + AFXDP_XSK_DRAIN_MS;
    uint64_t addrs[64];

    while (xsk->tx_in_flight && time_msec() < deadline) {
        if (sendto(xsk->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0
            && errno != EAGAIN && errno != EBUSY && errno != ENOBUFS) {
            break;
        }
        if (!afxdp_xsk_reap(xsk, pool, l, addrs, ARRAY_SIZE(addrs))) {
            xnanosleep(1000 * 1000);
        }
    }
}

/* Returns how many entries a ring holds between its consumer and producer
 * indexes. */
static uint32_t
afxdp_xsk_ring_span(const uint32_t *producer, const uint32_t *consumer)
{
    return __atomic_load_n(producer, __ATOMIC_ACQUIRE)
           - __atomic_load_n(consumer, __ATOMIC_ACQUIRE);
}

static void
afxdp_xsk_mark(unsigned long *seen, const struct afxdp_pool_layout *l,
               uint64_t addr, uint64_t *out, uint32_t *n_out)
{
    size_t frame = afxdp_pool_frame_addr(l, addr) >> l->frame_shift;

    /* The kernel publishes the rx producer before the fill consumer (and
     * the completion producer after it took the tx entry), so one frame can
     * be seen in two rings at once: take it only once. */
    if (!bitmap_is_set(seen, frame)) {
        bitmap_set1(seen, frame);
        out[(*n_out)++] = afxdp_pool_frame_addr(l, addr);
    }
}

/* Marks in 'seen' and appends to 'out' the frames of the entries between
 * the consumer and producer indexes of a ring of 'size' entries whose
 * memory is 'ring': struct xdp_desc entries if 'descs' (rx, tx), else
 * 64-bit addresses (fill, completion). */
static void
afxdp_xsk_reclaim_ring(const void *ring, uint32_t size,
                       const uint32_t *producer, const uint32_t *consumer,
                       bool descs, unsigned long *seen,
                       const struct afxdp_pool_layout *l,
                       uint64_t *out, uint32_t *n_out)
{
    uint32_t n = MIN(afxdp_xsk_ring_span(producer, consumer), size);
    uint32_t cons = *consumer;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = (cons + i) & (size - 1);
        uint64_t addr = (descs ? ((const struct xdp_desc *) ring)[idx].addr
                         : ((const uint64_t *) ring)[idx]);

        afxdp_xsk_mark(seen, l, addr, out, n_out);
    }
}

/* Returns to the pool every frame still in one of 'xsk''s rings.  Called
 * with the socket out of the XSKMAP and nobody polling or sending.  The
 * order (rx before fill, completion before tx) follows the way frames
 * move; 'seen' drops the ones caught in both rings of a move. */
static void
afxdp_xsk_reclaim(struct afxdp_xsk *xsk, struct afxdp_pool *pool,
                  unsigned long *seen)
{
    const struct afxdp_pool_layout *l = afxdp_pool_layout(pool);
    uint32_t size = xsk->fill.size + xsk->rx.size + xsk->tx.size
                    + xsk->comp.size;
    uint64_t *addrs = xmalloc(size * sizeof *addrs);
    uint32_t n_addrs = 0;

    afxdp_xsk_reclaim_ring(xsk->rx.ring, xsk->rx.size, xsk->rx.producer,
                           xsk->rx.consumer, true, seen, l, addrs, &n_addrs);
    afxdp_xsk_reclaim_ring(xsk->fill.ring, xsk->fill.size,
                           xsk->fill.producer, xsk->fill.consumer, false,
                           seen, l, addrs, &n_addrs);
    afxdp_xsk_reclaim_ring(xsk->comp.ring, xsk->comp.size,
                           xsk->comp.producer, xsk->comp.consumer, false,
                           seen, l, addrs, &n_addrs);
    afxdp_xsk_reclaim_ring(xsk->tx.ring, xsk->tx.size, xsk->tx.producer,
                           xsk->tx.consumer, true, seen, l, addrs, &n_addrs);
    afxdp_pool_put(pool, addrs, n_addrs);
    free(addrs);
}

/* Closes every socket of 'set' and unregisters its UMEM, returning the
 * frames that were in their rings to the pool (the pool itself stays with
 * the caller).  Frames the kernel still held between two rings cannot be
 * returned; their number is returned (0 in the normal case).  Safe on
 * NULL. */
uint32_t
afxdp_xsk_set_close(struct afxdp_xsk_set *set)
{
    struct afxdp_pool_counts before, after;
    unsigned long *seen;
    uint32_t n_held = 0;

    if (!set) {
        return 0;
    }

    afxdp_pool_get_counts(set->pool, &before);
    seen = bitmap_allocate(before.n_frames);
    for (int i = 0; i < set->n; i++) {
        afxdp_xsk_drain_tx(set->xsks[i], set->pool);
    }
    for (int i = 0; i < set->n; i++) {
        afxdp_xsk_reclaim(set->xsks[i], set->pool, seen);
    }
    bitmap_free(seen);
    afxdp_pool_get_counts(set->pool, &after);
    n_held = after.n_frames - after.n_free - after.n_in_ovs;

    for (int i = 0; i < set->n; i++) {
        struct afxdp_xsk *xsk = set->xsks[i];

        if (xsk->socket) {
            xsk_socket__delete(xsk->socket);
        } else {
            struct afxdp_xsk_umem_rings rings = {
                .rx = &xsk->rx, .tx = &xsk->tx,
                .fill = &xsk->fill, .comp = &xsk->comp,
            };

            afxdp_xsk_umem_socket_close(set->own, xsk->fd, &rings);
        }
        free(xsk->mode_reason);
        free_cacheline(xsk);
    }
    afxdp_xsk_umem_destroy(set->own);
    for (size_t i = 0; i < ARRAY_SIZE(set->umem); i++) {
        int ret = set->umem[i] ? xsk_umem__delete(set->umem[i]) : 0;

        if (ret) {
            VLOG_WARN("cannot unregister UMEM: %s", ovs_strerror(-ret));
        }
    }
    free(set->xsks);
    free(set);
    return n_held;
}

bool
afxdp_xsk_set_kernel_dropped(const struct afxdp_xsk_set *set)
{
    for (int i = 0; set && i < set->n; i++) {
        struct xdp_statistics ks;

        if (!afxdp_xsk_get_kernel_stats(set->xsks[i], &ks)
            && (ks.rx_ring_full || ks.rx_dropped)) {
            return true;
        }
    }
    return false;
}

/* Stores in '*c' how many frames each ring of 'xsk' holds now.  Called from
 * any thread: the result is a snapshot, exact only when 'xsk' is idle. */
void
afxdp_xsk_get_ring_counts(const struct afxdp_xsk *xsk,
                          struct afxdp_xsk_ring_counts *c)
{
    c->fill = afxdp_xsk_ring_span(xsk->fill.producer, xsk->fill.consumer);
    c->rx = afxdp_xsk_ring_span(xsk->rx.producer, xsk->rx.consumer);
    c->tx = afxdp_xsk_ring_span(xsk->tx.producer, xsk->tx.consumer);
    c->comp = afxdp_xsk_ring_span(xsk->comp.producer, xsk->comp.consumer);
}

/* Reads the kernel's XDP_STATISTICS of 'xsk' into '*stats'.  Returns 0 or a
 * positive errno (then '*stats' is zeroed). */
int
afxdp_xsk_get_kernel_stats(const struct afxdp_xsk *xsk,
                           struct xdp_statistics *stats)
{
    socklen_t len = sizeof *stats;

    memset(stats, 0, sizeof *stats);
    if (getsockopt(xsk->fd, SOL_XDP, XDP_STATISTICS, stats, &len)) {
        int error = errno;

        memset(stats, 0, sizeof *stats);
        return error;
    }
    return 0;
}

/* Reads back from the kernel the busy-poll options of 'xsk''s socket into
 * '*bp'.  The kernel lets us read SO_BUSY_POLL and SO_PREFER_BUSY_POLL but
 * not SO_BUSY_POLL_BUDGET: the budget is the one we set.  Returns 0 or a
 * positive errno. */
int
afxdp_xsk_get_busy_poll(const struct afxdp_xsk *xsk,
                        struct afxdp_busy_poll *bp)
{
    int usecs = 0, prefer = 0;
    socklen_t len = sizeof usecs;

    memset(bp, 0, sizeof *bp);
    if (getsockopt(xsk->fd, SOL_SOCKET, SO_BUSY_POLL, &usecs, &len)) {
        return errno;
    }
    len = sizeof prefer;
    if (getsockopt(xsk->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &prefer,
                   &len)) {
        return errno;
    }
    bp->usecs = usecs;
    bp->prefer = prefer;
    bp->budget = xsk->busy_poll_budget;
    return 0;
}

/* Called by afxdp_xsk_tx_completed() when 'n' frames came back through the
 * completion ring of 'xsk' while fewer were in flight, which cannot happen
 * unless frames are accounted wrongly: counts the excess in the coverage
 * counter 'afxdp_tx_overcompleted' and says so in the log.  The frames are
 * back in the pool all the same: nothing is left in flight. */
void
afxdp_xsk_tx_overcompleted(struct afxdp_xsk *xsk, uint32_t n)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

    COVERAGE_ADD(afxdp_tx_overcompleted, n - xsk->tx_in_flight);
    VLOG_WARN_RL(&rl, "queue %"PRIu32": %"PRIu32" frames came back through "
                 "the completion ring but only %"PRIu32" were in flight",
                 xsk->queue_id, n, xsk->tx_in_flight);
    xsk->tx_in_flight = 0;
}

/* Of the 'n' completed frames 'addrs' of 'xsk', some lie outside the UMEM
 * whose layout is 'l' (afxdp_xsk_reap()): counts and logs those, moves the
 * others to the front of 'addrs' and returns how many they are. */
uint32_t
afxdp_xsk_comp_bad(struct afxdp_xsk *xsk, uint64_t addrs[], uint32_t n,
                   const struct afxdp_pool_layout *l)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
    uint32_t good = 0;

    for (uint32_t i = 0; i < n; i++) {
        if (addrs[i] < l->area_size) {
            addrs[good++] = addrs[i];
        } else {
            VLOG_WARN_RL(&rl, "queue %"PRIu32": the completion ring "
                         "returned address %#"PRIx64", outside the UMEM "
                         "(%#"PRIx64" bytes); the frame is not reused",
                         xsk->queue_id, addrs[i], l->area_size);
        }
    }
    COVERAGE_ADD(afxdp_tx_comp_bad_addr, n - good);
    return good;
}

/* Returns how many descriptors a packet sent on the sockets of 'set', on
 * device 'ifindex', may span in zero-copy mode: what the driver says (its
 * xdp_zc_max_segs, Linux 6.6), at most AFXDP_XSK_TX_MAX_FRAGS; 1 if it does
 * not say, so that no packet is sent in more descriptors than the driver
 * takes.  The kernel is asked only if some socket of 'set' is zero-copy:
 * the query keeps a netlink socket open.  Main thread only. */
uint32_t
afxdp_xsk_set_zc_max_segs(const struct afxdp_xsk_set *set, int ifindex)
{
    uint64_t segs;

    for (int i = 0; i < set->n; i++) {
        if (set->xsks[i]->zero_copy) {
            if (afxdp_netdev_genl_dev_attr(ifindex,
                                           AFXDP_NETDEV_A_DEV_XDP_ZC_MAX_SEGS,
                                           &segs) || !segs) {
                return 1;
            }
            return MIN(segs, AFXDP_XSK_TX_MAX_FRAGS);
        }
    }
    return 1;
}
