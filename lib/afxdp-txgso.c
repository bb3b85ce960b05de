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

#include "afxdp-rxgro.h"
#include "afxdp-txseg.h"
#include "csum.h"
#include "openvswitch/util.h"
#include "packets.h"
#include "socket-util.h"
#include "util.h"

/* The socket's send buffer: a few 64 kB packets in flight, where the
 * kernel holds them (a veth's peer backlog, a NIC's ring). */
#define TXGSO_SNDBUF (4 * 1024 * 1024)

/* Linux 4.18 has it; Debian 12's kernel headers (6.1) do not. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif

/* The largest IP packet. */
#define TXGSO_MAX_IP_LEN 65535

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
    if (hdr[h->l4_ofs + AFXDP_TCP_FLAGS] & AFXDP_TCP_CWR) {
        vnet.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
    }
    vnet.hdr_len = seg->hdr_len;
    vnet.gso_size = seg->mss;
    vnet.csum_start = h->l4_ofs;
    vnet.csum_offset = AFXDP_TCP_CSUM;

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

/* A train's outer Ethernet, IP and UDP headers' length, for 'seg'. */
static uint32_t
txgso_outer_len(const struct afxdp_txseg *seg)
{
    return seg->outer.l4_ofs + UDP_HEADER_LEN;
}

/* The UDP payload of each segment of a train but the last, for 'seg'. */
static uint32_t
txgso_chunk(const struct afxdp_txseg *seg)
{
    return seg->hdr_len - txgso_outer_len(seg) + seg->mss;
}

/* The most segments one train of 'seg' takes. */
uint32_t
afxdp_txgso_train_segs(const struct afxdp_txseg *seg)
{
    uint32_t ip_hdrs = txgso_outer_len(seg) - seg->outer.l3_ofs;

    return MIN(AFXDP_RXGRO_MAX_SEGS,
               (TXGSO_MAX_IP_LEN - ip_hdrs) / txgso_chunk(seg));
}

uint32_t
afxdp_txgso_train_write(const struct afxdp_txseg *seg, const uint8_t *data,
                        uint32_t first, uint32_t n, uint8_t *buf)
{
    const struct afxdp_txseg_outer *o = &seg->outer;
    uint32_t chunk = txgso_chunk(seg);
    uint8_t *ip = buf + o->l3_ofs;
    uint8_t *udp = buf + o->l4_ofs;
    uint32_t len = 0;
    ovs_be16 sum;

    /* Segment k goes whole at k * chunk, its outer headers over the last
     * bytes of segment k - 1's place: written last to first, each segment
     * but the first loses only the outer headers in front of it. */
    for (uint32_t k = n; k-- > 0;) {
        uint32_t l = afxdp_txseg_write_inner(seg, data, first + k,
                                             buf + k * chunk);

        if (k + 1 == n) {
            len = k * chunk + l;
        }
    }

    /* The first segment's outer headers, for the whole train. */
    if (o->ipv6) {
        afxdp_l4hdrs_put16(ip + AFXDP_IP6_PLEN, len - o->l4_ofs);
    } else {
        afxdp_l4hdrs_put16(ip + AFXDP_IP4_TOT_LEN, len - o->l3_ofs);
        /* The kernel numbers the train's segments from this one's. */
        afxdp_l4hdrs_put16(ip + AFXDP_IP4_ID,
                           afxdp_l4hdrs_get16(ip + AFXDP_IP4_ID) + first);
        afxdp_l4hdrs_put16(ip + AFXDP_IP4_CSUM, 0);
        sum = csum(ip, o->l4_ofs - o->l3_ofs);
        memcpy(ip + AFXDP_IP4_CSUM, &sum, sizeof sum);
    }
    afxdp_l4hdrs_put16(udp + AFXDP_UDP_LEN, len - o->l4_ofs);
    sum = ~csum_finish(csum_add16(o->pseudo, htons(len - o->l4_ofs)));
    memcpy(udp + AFXDP_UDP_CSUM, &sum, sizeof sum);
    return len;
}

/* Sends the train of 'len' bytes at 'buf' of 'seg' on 'fd'.  Returns 0 or
 * a positive errno. */
static int
txgso_send_train(int fd, const struct afxdp_txseg *seg, uint8_t *buf,
                 uint32_t len)
{
    struct virtio_net_hdr vnet;
    struct iovec iov[2];
    struct msghdr msg;

    memset(&vnet, 0, sizeof vnet);
    vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    vnet.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
    vnet.hdr_len = txgso_outer_len(seg);
    vnet.gso_size = txgso_chunk(seg);
    vnet.csum_start = seg->outer.l4_ofs;
    vnet.csum_offset = AFXDP_UDP_CSUM;

    iov[0].iov_base = &vnet;
    iov[0].iov_len = sizeof vnet;
    iov[1].iov_base = buf;
    iov[1].iov_len = len;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = iov;
    msg.msg_iovlen = ARRAY_SIZE(iov);
    return sendmsg(fd, &msg, MSG_DONTWAIT) < 0 ? errno : 0;
}

int
afxdp_txgso_send_tunnel(int fd, const struct afxdp_txseg *seg,
                        const uint8_t *data, uint8_t *buf, uint32_t *n_sent,
                        uint32_t *n_trains)
{
    uint8_t flags = data[seg->h.l4_ofs + AFXDP_TCP_FLAGS];
    uint32_t per_train;

    *n_sent = *n_trains = 0;
    if (!seg->tunnel || seg->outer.l3_ofs != ETH_HEADER_LEN
        || (flags & ~TCP_PSH) != TCP_ACK || seg->n_segs < 2) {
        return EOPNOTSUPP;
    }
    per_train = afxdp_txgso_train_segs(seg);
    while (*n_sent < seg->n_segs) {
        uint32_t n = MIN(per_train, seg->n_segs - *n_sent);
        uint32_t len = afxdp_txgso_train_write(seg, data, *n_sent, n, buf);
        int error = txgso_send_train(fd, seg, buf, len);

        if (error) {
            return error;
        }
        *n_sent += n;
        (*n_trains)++;
    }
    return 0;
}
