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

#ifndef AFXDP_XSK_UMEM_H
#define AFXDP_XSK_UMEM_H 1

/* A UMEM registration and its AF_XDP sockets made with the kernel's socket
 * interface directly, for what libxdp 1.3 cannot ask for: TX metadata
 * (struct xdp_umem_reg's 'tx_metadata_len', Linux 6.8).  afxdp-xsk uses it
 * for the copy-mode sockets of a port with TX checksum offload on, and
 * libxdp for all others.
 *
 * The rings.  A socket made here fills the same public ring structs of
 * <xdp/xsk.h> (struct xsk_ring_prod, xsk_ring_cons) that libxdp fills, the
 * way xsk.h's inline accessors expect them ('cached_cons' of a producer
 * ring runs one ring size ahead of the consumer index), so that the one
 * fast path (lib/afxdp-rxtx.c) serves both kinds of socket through those
 * accessors.  The memory behind them is ours: this module maps it and
 * unmaps it, and never hands these rings or this registration to a libxdp
 * function; conversely it never touches a ring libxdp mapped.
 *
 * Sockets of one registration.  The first socket made on a registration is
 * the socket the UMEM was registered on; the others bind with
 * XDP_SHARED_UMEM to it, each with its own fill and completion ring (one
 * device queue each).  The kernel keeps the UMEM until its last socket is
 * closed.
 *
 * Control path only: every function here may allocate, log and make
 * syscalls.  The caller serializes them (afxdp-xsk's set). */

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <xdp/xsk.h>

struct afxdp_xsk_umem;

/* The four rings of one socket, filled by afxdp_xsk_umem_socket(). */
struct afxdp_xsk_umem_rings {
    struct xsk_ring_cons *rx;
    struct xsk_ring_prod *tx;
    struct xsk_ring_prod *fill;
    struct xsk_ring_cons *comp;
};

/* Bytes of TX metadata kept in front of every sent descriptor's data on a
 * registration made with it: one 'struct afxdp_tx_metadata'. */
#define AFXDP_XSK_UMEM_TXMD_LEN 24

int afxdp_xsk_umem_txmd_supported(void);

int afxdp_xsk_umem_create(void *area, size_t size, uint32_t frame_size,
                          uint32_t ring_size, struct afxdp_xsk_umem **);
int afxdp_xsk_umem_socket(struct afxdp_xsk_umem *, int ifindex,
                          uint32_t queue, uint16_t bind_flags,
                          const struct afxdp_xsk_umem_rings *, int *fdp);
void afxdp_xsk_umem_socket_close(struct afxdp_xsk_umem *, int fd,
                                 const struct afxdp_xsk_umem_rings *);
void afxdp_xsk_umem_destroy(struct afxdp_xsk_umem *);

#endif /* afxdp-xsk-umem.h */
