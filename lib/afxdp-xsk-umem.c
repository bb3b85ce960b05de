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

/* Our own UMEM registration and AF_XDP sockets, for TX metadata: see
 * afxdp-xsk-umem.h. */

#include <config.h>

#include "afxdp-xsk-umem.h"

#include <errno.h>
#include <linux/if_xdp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "afxdp-compat.h"
#include "openvswitch/util.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_xsk_umem);

/* A queue that was bound a moment ago may still be busy in the kernel:
 * retry a bind this long (as afxdp-xsk does for libxdp's sockets). */
#define AFXDP_XSK_UMEM_BIND_RETRY_MS 500

/* The four mappings of one socket's rings, by XDP_PGOFF_* order. */
enum { RING_RX, RING_TX, RING_FILL, RING_COMP, N_RINGS };

/* One socket made here. */
struct afxdp_xsk_umem_sock {
    int fd;                     /* The socket, -1 if the slot is free. */
    void *map[N_RINGS];         /* Its rings' mappings, NULL if none. */
    size_t len[N_RINGS];        /* Their lengths. */
};

/* A registration. */
struct afxdp_xsk_umem {
    int fd;                     /* Socket the UMEM is registered on. */
    bool fd_bound;              /* 'fd' became the first socket (then its
                                 * close closes it). */
    bool fd_closed;             /* ...and was closed. */
    uint32_t ring_size;         /* Entries of every ring. */
    size_t n_socks;             /* Slots in 'socks'. */
    struct afxdp_xsk_umem_sock *socks;
};

/* Registration flags that make the kernel keep TX metadata, found by
 * afxdp_xsk_umem_txmd_supported(). */
static uint32_t txmd_reg_flags;

/* Registers 'area' ('size' bytes of 'frame_size' frames) on socket 'fd'
 * with TX metadata, asking it with registration flags 'flags' and
 * 'txmd_len' bytes.  Returns 0 or a positive errno. */
static int
afxdp_xsk_umem_register(int fd, void *area, size_t size, uint32_t frame_size,
                        uint32_t flags, uint32_t txmd_len)
{
    struct afxdp_umem_reg reg;

    memset(&reg, 0, sizeof reg);
    reg.addr = (uintptr_t) area;
    reg.len = size;
    reg.chunk_size = frame_size;
    reg.flags = flags;
    reg.tx_metadata_len = txmd_len;
    return setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof reg) ? errno : 0;
}

/* Tries to register a page with TX metadata asked as 'flags' and
 * 'txmd_len'.  Returns 0 or a positive errno. */
static int
afxdp_xsk_umem_try(uint32_t flags, uint32_t txmd_len)
{
    size_t size = 4096;
    void *area = mmap(NULL, size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int fd, error;

    if (area == MAP_FAILED) {
        return errno;
    }
    fd = socket(AF_XDP, SOCK_RAW, 0);
    if (fd < 0) {
        error = errno;
    } else {
        error = afxdp_xsk_umem_register(fd, area, size, 2048, flags,
                                        txmd_len);
        close(fd);
    }
    munmap(area, size);
    return error;
}

/* Returns 0 if the kernel keeps TX metadata for a UMEM, else a positive
 * errno: EOPNOTSUPP for a kernel without it (before Linux 6.8), or why the
 * probe could not tell.  Linux 6.11 and later want the registration flag
 * XDP_UMEM_TX_METADATA_LEN, which 6.8 to 6.10 refuse; those check
 * 'tx_metadata_len' without it (a length not a multiple of 8 is EINVAL),
 * and older kernels ignore the field (it is padding there).  Asked once
 * per process. */
int
afxdp_xsk_umem_txmd_supported(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    static int error;

    if (ovsthread_once_start(&once)) {
        error = afxdp_xsk_umem_try(XDP_UMEM_TX_METADATA_LEN,
                                   AFXDP_XSK_UMEM_TXMD_LEN);
        if (!error) {
            txmd_reg_flags = XDP_UMEM_TX_METADATA_LEN;
        } else if (error == EINVAL) {
            error = afxdp_xsk_umem_try(0, 4);
            error = (error == EINVAL ? 0 : !error ? EOPNOTSUPP : error);
            txmd_reg_flags = 0;
        }
        /* Debug level: at start-up, before the log file opens, an INFO
         * line would go to stderr, which OVS's own system tests check
         * (each port's status says "tx-csum-offload" and why). */
        VLOG_DBG("AF_XDP TX metadata: %s",
                  !error ? "supported"
                  : error == EOPNOTSUPP ? "not supported by the kernel"
                  : ovs_strerror(error));
        ovsthread_once_done(&once);
    }
    return error;
}

/* Registers the 'size' bytes at 'area', frames of 'frame_size' bytes, as a
 * UMEM whose sockets have rings of 'ring_size' entries and keep
 * AFXDP_XSK_UMEM_TXMD_LEN bytes of TX metadata in front of each sent
 * descriptor.  The memory stays the caller's and must outlive the
 * registration.  Returns 0 and the registration in '*umemp' (destroy it
 * with afxdp_xsk_umem_destroy() after closing its sockets), or a positive
 * errno. */
int
afxdp_xsk_umem_create(void *area, size_t size, uint32_t frame_size,
                      uint32_t ring_size, struct afxdp_xsk_umem **umemp)
{
    struct afxdp_xsk_umem *umem;
    int error, fd;

    *umemp = NULL;
    error = afxdp_xsk_umem_txmd_supported();
    if (error) {
        return error;
    }
    fd = socket(AF_XDP, SOCK_RAW, 0);
    if (fd < 0) {
        return errno;
    }
    error = afxdp_xsk_umem_register(fd, area, size, frame_size,
                                    txmd_reg_flags, AFXDP_XSK_UMEM_TXMD_LEN);
    if (error) {
        close(fd);
        return error;
    }
    umem = xzalloc(sizeof *umem);
    umem->fd = fd;
    umem->ring_size = ring_size;
    *umemp = umem;
    return 0;
}

/* Maps ring 'which' of socket 'fd' ('n' entries of 'entry' bytes, at page
 * offset 'pgoff', laid out as 'off' says) into 's' and returns 0, or a
 * positive errno. */
static int
afxdp_xsk_umem_map(struct afxdp_xsk_umem_sock *s, int which, int fd,
                   const struct xdp_ring_offset *off, uint64_t pgoff,
                   uint32_t n, size_t entry)
{
    size_t len = off->desc + n * entry;
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_POPULATE, fd, pgoff);

    if (map == MAP_FAILED) {
        return errno;
    }
    s->map[which] = map;
    s->len[which] = len;
    return 0;
}

/* Points ring struct 'R' (a struct xsk_ring_prod or xsk_ring_cons) at
 * the ring mapped at 'MAP', laid out as 'OFF' says, of 'N' entries. */
#define AFXDP_XSK_UMEM_RING_INIT(R, MAP, OFF, N)                        \
    do {                                                                \
        memset(R, 0, sizeof *(R));                                      \
        (R)->producer = ALIGNED_CAST(uint32_t *, (MAP) + (OFF)->producer); \
        (R)->consumer = ALIGNED_CAST(uint32_t *, (MAP) + (OFF)->consumer); \
        (R)->flags = ALIGNED_CAST(uint32_t *, (MAP) + (OFF)->flags);   \
        (R)->ring = (MAP) + (OFF)->desc;                                \
        (R)->mask = (N) - 1;                                            \
        (R)->size = (N);                                                \
        (R)->cached_prod = *(R)->producer;                              \
        (R)->cached_cons = *(R)->consumer;                              \
    } while (0)

/* Points 'prod' at the producer ring mapped at 'map' (laid out as 'off',
 * 'n' entries), as xsk.h's accessors expect: the free room runs from
 * 'cached_prod' to 'cached_cons', one ring size past the consumer. */
static void
afxdp_xsk_umem_init_prod(struct xsk_ring_prod *prod, char *map,
                         const struct xdp_ring_offset *off, uint32_t n)
{
    AFXDP_XSK_UMEM_RING_INIT(prod, map, off, n);
    prod->cached_cons += n;
}

/* Points 'cons' at the consumer ring mapped at 'map' (see above). */
static void
afxdp_xsk_umem_init_cons(struct xsk_ring_cons *cons, char *map,
                         const struct xdp_ring_offset *off, uint32_t n)
{
    AFXDP_XSK_UMEM_RING_INIT(cons, map, off, n);
}

/* Returns a free slot of 'umem''s socket table, growing it if needed. */
static struct afxdp_xsk_umem_sock *
afxdp_xsk_umem_slot(struct afxdp_xsk_umem *umem)
{
    struct afxdp_xsk_umem_sock *s;

    for (size_t i = 0; i < umem->n_socks; i++) {
        if (umem->socks[i].fd < 0) {
            s = &umem->socks[i];
            memset(s, 0, sizeof *s);
            s->fd = -1;
            return s;
        }
    }
    umem->socks = xrealloc(umem->socks,
                           (umem->n_socks + 1) * sizeof *umem->socks);
    s = &umem->socks[umem->n_socks++];
    memset(s, 0, sizeof *s);
    s->fd = -1;
    return s;
}

/* Unmaps the rings of 's' and frees its slot; closes its socket unless it
 * is 'umem''s registration socket that is not bound yet. */
static void
afxdp_xsk_umem_release(struct afxdp_xsk_umem *umem,
                       struct afxdp_xsk_umem_sock *s, bool bound)
{
    for (int i = 0; i < N_RINGS; i++) {
        if (s->map[i]) {
            munmap(s->map[i], s->len[i]);
            s->map[i] = NULL;
        }
    }
    if (s->fd == umem->fd) {
        if (bound) {
            close(s->fd);
            umem->fd_closed = true;
        }
    } else if (s->fd >= 0) {
        close(s->fd);
    }
    s->fd = -1;
}

/* Sets the ring sizes of socket 'fd' and maps its rings into 's', filling
 * 'rings'.  Returns 0 or a positive errno. */
static int
afxdp_xsk_umem_setup_rings(struct afxdp_xsk_umem *umem, int fd,
                           struct afxdp_xsk_umem_sock *s,
                           const struct afxdp_xsk_umem_rings *rings)
{
    uint32_t n = umem->ring_size;
    struct xdp_mmap_offsets off;
    socklen_t optlen = sizeof off;
    int error;

    if (setsockopt(fd, SOL_XDP, XDP_RX_RING, &n, sizeof n)
        || setsockopt(fd, SOL_XDP, XDP_TX_RING, &n, sizeof n)
        || setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof n)
        || setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n, sizeof n)
        || getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen)) {
        return errno;
    }
    error = afxdp_xsk_umem_map(s, RING_RX, fd, &off.rx, XDP_PGOFF_RX_RING, n,
                               sizeof(struct xdp_desc));
    error = error ? error : afxdp_xsk_umem_map(s, RING_TX, fd, &off.tx,
                                               XDP_PGOFF_TX_RING, n,
                                               sizeof(struct xdp_desc));
    error = error ? error : afxdp_xsk_umem_map(s, RING_FILL, fd, &off.fr,
                                               XDP_UMEM_PGOFF_FILL_RING, n,
                                               sizeof(uint64_t));
    error = error ? error : afxdp_xsk_umem_map(s, RING_COMP, fd, &off.cr,
                                               XDP_UMEM_PGOFF_COMPLETION_RING,
                                               n, sizeof(uint64_t));
    if (error) {
        return error;
    }
    afxdp_xsk_umem_init_cons(rings->rx, s->map[RING_RX], &off.rx, n);
    afxdp_xsk_umem_init_prod(rings->tx, s->map[RING_TX], &off.tx, n);
    afxdp_xsk_umem_init_prod(rings->fill, s->map[RING_FILL], &off.fr, n);
    afxdp_xsk_umem_init_cons(rings->comp, s->map[RING_COMP], &off.cr, n);
    return 0;
}

/* Binds socket 'fd' to queue 'queue' of device 'ifindex': the first socket
 * of 'umem' with 'bind_flags', the others sharing its UMEM (the kernel
 * gives them its flags).  Retries while the queue is busy.  Returns 0 or a
 * positive errno. */
static int
afxdp_xsk_umem_bind(struct afxdp_xsk_umem *umem, int fd, int ifindex,
                    uint32_t queue, uint16_t bind_flags)
{
    long long int deadline = time_msec() + AFXDP_XSK_UMEM_BIND_RETRY_MS;
    struct sockaddr_xdp sxdp;

    memset(&sxdp, 0, sizeof sxdp);
    sxdp.sxdp_family = AF_XDP;
    sxdp.sxdp_ifindex = ifindex;
    sxdp.sxdp_queue_id = queue;
    if (fd == umem->fd) {
        sxdp.sxdp_flags = bind_flags;
    } else {
        sxdp.sxdp_flags = XDP_SHARED_UMEM;
        sxdp.sxdp_shared_umem_fd = umem->fd;
    }
    for (;;) {
        if (!bind(fd, (struct sockaddr *) &sxdp, sizeof sxdp)) {
            return 0;
        }
        if (errno != EBUSY || time_msec() >= deadline) {
            return errno;
        }
        xnanosleep(10 * 1000 * 1000);
    }
}

/* Creates a socket on 'umem' bound to queue 'queue' of device 'ifindex'
 * and maps its rings into 'rings'.  'bind_flags' (XDP_COPY, ...) apply to
 * the first socket of 'umem'; the others get the same (see the top).
 * Returns 0 and the socket in '*fdp', or a positive errno (then nothing is
 * left open or mapped). */
int
afxdp_xsk_umem_socket(struct afxdp_xsk_umem *umem, int ifindex,
                      uint32_t queue, uint16_t bind_flags,
                      const struct afxdp_xsk_umem_rings *rings, int *fdp)
{
    struct afxdp_xsk_umem_sock *s;
    int error;

    *fdp = -1;
    if (umem->fd_closed) {
        return EBADF;
    }
    s = afxdp_xsk_umem_slot(umem);
    s->fd = umem->fd_bound ? socket(AF_XDP, SOCK_RAW, 0) : umem->fd;
    if (s->fd < 0) {
        return errno;
    }
    error = afxdp_xsk_umem_setup_rings(umem, s->fd, s, rings);
    if (!error) {
        error = afxdp_xsk_umem_bind(umem, s->fd, ifindex, queue, bind_flags);
    }
    if (error) {
        afxdp_xsk_umem_release(umem, s, false);
        return error;
    }
    if (s->fd == umem->fd) {
        umem->fd_bound = true;
    }
    *fdp = s->fd;
    return 0;
}

/* Closes socket 'fd' of 'umem' and unmaps the rings that 'rings' pointed
 * at (which must not be used afterwards). */
void
afxdp_xsk_umem_socket_close(struct afxdp_xsk_umem *umem, int fd,
                            const struct afxdp_xsk_umem_rings *rings)
{
    for (size_t i = 0; i < umem->n_socks; i++) {
        if (umem->socks[i].fd == fd) {
            afxdp_xsk_umem_release(umem, &umem->socks[i], true);
            memset(rings->rx, 0, sizeof *rings->rx);
            memset(rings->tx, 0, sizeof *rings->tx);
            memset(rings->fill, 0, sizeof *rings->fill);
            memset(rings->comp, 0, sizeof *rings->comp);
            return;
        }
    }
    VLOG_WARN("socket %d is not one of this UMEM's", fd);
}

/* Closes what remains of 'umem': its sockets should be closed already (the
 * kernel keeps the UMEM until the last one is).  Safe on NULL. */
void
afxdp_xsk_umem_destroy(struct afxdp_xsk_umem *umem)
{
    if (!umem) {
        return;
    }
    for (size_t i = 0; i < umem->n_socks; i++) {
        if (umem->socks[i].fd >= 0) {
            afxdp_xsk_umem_release(umem, &umem->socks[i], true);
        }
    }
    if (!umem->fd_bound) {
        close(umem->fd);
    }
    free(umem->socks);
    free(umem);
}
