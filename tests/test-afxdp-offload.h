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

#ifndef TEST_AFXDP_OFFLOAD_H
#define TEST_AFXDP_OFFLOAD_H 1

/* Shared by the parts of 'ovstest test-afxdp-offload':
 * test-afxdp-offload.c (the commands, and the checks that load our XDP
 * program), test-afxdp-offload-translate.c (the match translation),
 * test-afxdp-offload-frames.c (the crafted frames) and
 * test-afxdp-offload-grace.c (the egress devmap's grace period). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/compiler.h"
#include "packets.h"

struct afxdp_flow_key;
struct dp_packet;
struct ds;
struct ofpbuf;

/* Prints the failure and exits with status 1. */
void test_afxdp_offload_fail(const char *format, ...)
    OVS_PRINTF_FORMAT(1, 2) OVS_NO_RETURN;

#define CHECK(COND)                                                     \
    do {                                                                \
        if (!(COND)) {                                                  \
            test_afxdp_offload_fail("%s:%d: %s", __FILE__, __LINE__,    \
                                    #COND);                             \
        }                                                               \
    } while (0)

/* Appends 'k' to 's', only the fields that are not zero. */
void test_afxdp_offload_format_key(struct ds *s,
                                   const struct afxdp_flow_key *k);

/* The 'translate' command: prints one line per group of checks and
 * "PASS", or fails. */
void test_afxdp_offload_translate(void);

/* A masked set of OVS's IPv4 or IPv6 key, described: each value is
 * written under its mask, and a zero mask leaves its field alone. */
struct test_set_ip {
    int version;                    /* 4 or 6. */
    ovs_be32 src[4], src_mask[4];   /* IPv4 address in [0], or IPv6. */
    ovs_be32 dst[4], dst_mask[4];
    uint8_t tos, tos_mask;          /* TOS or traffic class. */
    uint8_t ttl, ttl_mask;          /* TTL or hop limit. */
    ovs_be32 label, label_mask;     /* IPv6 flow label (low 20 bits). */
};

/* Appends to 'odp' OVS's masked set of 'ip', with the values masked as
 * OVS's are. */
void test_afxdp_offload_put_set_ip(struct ofpbuf *odp,
                                   const struct test_set_ip *ip);

/* Appends to 'odp' OVS's masked set of the ports of 'proto' (IPPROTO_TCP
 * or IPPROTO_UDP), as test_afxdp_offload_put_set_ip() does for IP. */
void test_afxdp_offload_put_set_l4(struct ofpbuf *odp, uint8_t proto,
                                   ovs_be16 src, ovs_be16 src_mask,
                                   ovs_be16 dst, ovs_be16 dst_mask);

/* The 'egress-grace' command (test-afxdp-offload-grace.c), on devices
 * 'a' and 'b' (their indexes): prints a line per check and "PASS", or
 * fails. */
void test_afxdp_offload_egress_grace(int a, int b);

/* Crafted frames: Ethernet, VLAN, IPv4, IPv6, ARP, MPLS, LLC...,
 * well-formed and damaged, each with what our XDP program is expected to
 * do with it. */

/* What a frame is expected to do in the program. */
enum frame_expect {
    FRAME_HIT,                      /* Parsed as OVS does: hits its flow. */
    FRAME_PMD,                      /* Not parsed: left to the PMD. */
};

/* Extra wildcards for frames whose exact OVS flow the program cannot
 * match, but whose megaflow without those fields it can. */
#define FRAME_WILD_TP 1               /* OVS parses ports the key does not. */

/* A frame, described.  Zero means "the usual" for every member. */
struct frame_spec {
    const char *name;
    enum frame_expect expect;
    uint16_t tags[2][2];        /* {TPID, TCI} of up to two VLAN tags. */
    uint16_t eth_type;          /* After the tags (or in the SNAP header). */
    int llc;                    /* 1: 802.3 length + LLC; 2: LLC/SNAP. */
    uint8_t proto;              /* IPv4 protocol, IPv6 next header. */
    uint8_t type, code;         /* ICMP, ICMPv6, IGMP type and code; ARP
                                 * operation. */
    uint8_t tos;                /* IPv4 TOS or IPv6 traffic class. */
    uint8_t ttl;                /* 0 means 64. */
    uint16_t frag;              /* IPv4 flags and fragment offset. */
    int ip_opts;                /* Bytes of IPv4 options. */
    uint32_t label;             /* IPv6 flow label. */
    bool has_ext;               /* One 8-byte IPv6 extension header... */
    uint8_t ext;                /* ...of this type. */
    uint16_t tcp_flags;         /* 0 means SYN|ACK. */
    int tcp_opts;               /* Bytes of TCP options. */
    int doff;                   /* TCP data offset, if not the real one. */
    int payload;                /* L4 payload bytes (or after the
                                 * EtherType for other types). */
    bool trunc;                 /* Keep only 'keep' bytes of L4. */
    int keep;
    int pad;                    /* Ethernet padding after L3. */
    int len_delta;              /* Added to IPv4 total length or IPv6
                                 * payload length. */
    int tot_len;                /* IPv4 total length, if not the real one. */
    int ihl;                    /* IPv4 IHL, if not the real one. */
    int version;                /* IP version, if not the real one. */
    int cut;                    /* Cut the frame to this many bytes. */
    int wild;                   /* FRAME_WILD_*. */
    bool no_l4_csum;            /* Leave the L4 checksum 0 (for UDP:
                                 * none), where it is otherwise right. */
};

/* The frames. */
extern const struct frame_spec afxdp_offload_frames[];
extern const size_t afxdp_offload_n_frames;

/* Offset of the checksum in an L4 header of IP protocol 'proto' (TCP,
 * UDP, ICMP or ICMPv6), or -1 for another protocol. */
int afxdp_offload_l4_csum_ofs(uint8_t proto);

/* Ethernet source for frame 'index' ('other' for the frame that must
 * miss): one of its own, so that no frame can hit another's flow. */
struct eth_addr afxdp_offload_frame_src(int index, bool other);

/* Builds frame 'index' of afxdp_offload_frames[] with Ethernet source
 * 'src'.  The caller owns the result. */
struct dp_packet *afxdp_offload_build_frame(int index, struct eth_addr src);

#endif /* test-afxdp-offload.h */
