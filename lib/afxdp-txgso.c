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

/* TCP super-packets sent whole, for the kernel to segment: see
 * afxdp-txgso.h. */

#include <config.h>

#include "afxdp-txgso.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "afxdp-txseg.h"
#include "openvswitch/util.h"
#include "packets.h"
#include "socket-util.h"
#include "util.h"

/* The socket's send buffer: a few 64 kB packets in flight, where the
 * kernel holds them (a veth's peer backlog, a NIC's ring). */
#define TXGSO_SNDBUF (4 * 1024 * 1024)

/* Longest headers this path copies: Ethernet, IPv4 or IPv6 with options,
 * TCP with options (afxdp_txseg_plan() parsed them). */
#define TXGSO_MAX_HDR (ETH_HEADER_LEN + 60 + 60)

int
afxdp_txgso_open(int ifindex, char **errp)
{
    struct sockaddr_ll sll = {
        .sll_family = AF_PACKET,
        .sll_protocol = 0,          /* Receive nothing. */
        .sll_ifindex = ifindex,
    };
    int one = 1, size = TXGSO_SNDBUF;
    int fd, error;

    fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error = errno;
        *errp = xasprintf("packet socket: %s", ovs_strerror(error));
        return -error;
    }
    if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one)) {
        error = errno;
        *errp = xasprintf("PACKET_VNET_HDR: %s", ovs_strerror(error));
        goto error;
    }
    /* SO_SNDBUFFORCE goes beyond net.core.wmem_max (CAP_NET_ADMIN, which
     * a process that attaches XDP programs has); SO_SNDBUF is capped. */
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size)) {
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    }
    if (bind(fd, (struct sockaddr *) &sll, sizeof sll)) {
        error = errno;
        *errp = xasprintf("packet socket bind: %s", ovs_strerror(error));
        goto error;
    }
    return fd;

error:
    close(fd);
    return -error;
}

int
afxdp_txgso_send(int fd, const struct afxdp_txseg *seg, const uint8_t *data)
{
    const struct afxdp_l4hdrs *h = &seg->h;
    uint8_t hdr[TXGSO_MAX_HDR];
    struct virtio_net_hdr vnet;
    struct iovec iov[3];
    struct msghdr msg;

    if (h->l3_ofs != ETH_HEADER_LEN || seg->tunnel
        || seg->hdr_len > sizeof hdr) {
        return EOPNOTSUPP;
    }
    memcpy(hdr, data, seg->hdr_len);
    afxdp_txseg_csum_partial(seg, hdr, h->l4_len);

    memset(&vnet, 0, sizeof vnet);
    vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    vnet.gso_type = (h->ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6
                     : VIRTIO_NET_HDR_GSO_TCPV4);
    if (hdr[h->l4_ofs + AFXDP_TXSEG_TCP_FLAGS_OFS] & AFXDP_TXSEG_TCP_CWR) {
        vnet.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
    }
    vnet.hdr_len = seg->hdr_len;
    vnet.gso_size = seg->mss;
    vnet.csum_start = h->l4_ofs;
    vnet.csum_offset = AFXDP_TXSEG_TCP_CSUM_OFS;

    iov[0].iov_base = &vnet;
    iov[0].iov_len = sizeof vnet;
    iov[1].iov_base = hdr;
    iov[1].iov_len = seg->hdr_len;
    /* Not the trailer, if any: the IP header says where the packet ends. */
    iov[2].iov_base = CONST_CAST(uint8_t *, data + seg->hdr_len);
    iov[2].iov_len = h->l4_ofs + h->l4_len - seg->hdr_len;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = iov;
    msg.msg_iovlen = ARRAY_SIZE(iov);
    if (sendmsg(fd, &msg, MSG_DONTWAIT) < 0) {
        return errno;
    }
    return 0;
}
