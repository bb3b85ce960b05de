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

/* Checks of lib/afxdp-xdp.c against the running kernel.
 *
 * Needs root.  Works in the current network namespace on an existing veth
 * device and creates no devices itself, so run it inside a namespace of its
 * own with bpffs mounted (libxdp keeps its dispatcher state there):
 *
 *   unshare --net --mount sh -c '
 *       mount -t sysfs sysfs /sys && mount -t bpf bpf /sys/fs/bpf &&
 *       ip link add p0 type veth peer name p1 &&
 *       ip link set p0 up && ip link set p1 up &&
 *       ovstest test-afxdp-xdp run p0 p1'
 *
 * Commands:
 *
 *   run DEV [PEER]
 *       Attaches our program to DEV in native and then in generic mode and
 *       checks that the kernel and 'ip link' show it with the right id, that
 *       XSKMAP updates accept a real AF_XDP socket and refuse bad queues and
 *       file descriptors, and that detaching leaves nothing behind.  Then
 *       checks that a program left behind by a process that exited without
 *       detaching is removed, and that a foreign program is left alone and
 *       makes attaching fail with a clear message.  With PEER, DEV's veth
 *       peer in the same namespace, also sends frames from PEER and checks
 *       the program's counters for both redirected and passed frames, and
 *       runs the checks of 'hints'.
 *
 *   hints DEV PEER
 *       XDP hints: attaches our program with hints in each mode (native
 *       device-bound and not, generic, and off), binds an AF_XDP socket in
 *       copy mode with libxdp's xsk API, sends an IPv4/UDP frame from PEER,
 *       receives it and decodes the metadata in front of it through the
 *       program's BTF (lib/xdp-hints.h): layout, kernel-clock timestamp
 *       within a second of now, the rx hash exactly when the program is
 *       device-bound, no hints when off.  Prints one line per mode with
 *       what veth gave.
 *
 *   attach DEV native|generic
 *       Attaches our program and exits without detaching it, as a crashed
 *       ovs-vswitchd would.  Prints the program id.
 *
 *   remove DEV
 *       Runs afxdp_xdp_remove_ours() and prints how many programs it removed.
 *
 * Exits 0 on success, 1 on failure (after removing what it attached), and
 * 77 when not run as root. */

#include <config.h>

#include "afxdp-xdp.h"

#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include "bpf/afxdp.skel.h"
#include "command-line.h"
#include "csum.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovstest.h"
#include "packets.h"
#include "timeval.h"
#include "util.h"
#include "xdp-hints.h"

/* Frames and sizes for the AF_XDP socket built by make_xsk(). */
#define TEST_N_FRAMES 64
#define TEST_FRAME_SIZE 4096

/* How long to wait for the kernel to account a frame sent from the peer. */
#define TEST_STATS_WAIT_MS 2000

/* Device under test, so that fail() can clean up. */
static int test_ifindex;

static void fail(const char *format, ...) OVS_PRINTF_FORMAT(1, 2)
    OVS_NO_RETURN;

/* Prints the failure, removes any program of ours from the device under
 * test and exits with status 1. */
static void
fail(const char *format, ...)
{
    va_list args;

    va_start(args, format);
    fputs("test-afxdp-xdp: FAILED: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);

    if (test_ifindex) {
        afxdp_xdp_remove_ours(test_ifindex);
    }
    exit(1);
}

#define CHECK(COND)                                                     \
    do {                                                                \
        if (!(COND)) {                                                  \
            fail("%s:%d: %s", __FILE__, __LINE__, #COND);               \
        }                                                               \
    } while (0)

#define CHECK_ERR(EXPR, EXPECTED)                                       \
    do {                                                                \
        int err__ = (EXPR);                                             \
        if (err__ != (EXPECTED)) {                                      \
            fail("%s:%d: %s returned %d (%s), expected %d",             \
                 __FILE__, __LINE__, #EXPR, err__,                      \
                 ovs_strerror(err__), (EXPECTED));                      \
        }                                                               \
    } while (0)

static int
get_ifindex(const char *name)
{
    int ifindex = if_nametoindex(name);

    if (!ifindex) {
        fail("%s: no such device", name);
    }
    return ifindex;
}

static enum afxdp_xdp_mode
parse_mode(const char *s)
{
    if (!strcmp(s, "native")) {
        return AFXDP_XDP_NATIVE;
    } else if (!strcmp(s, "generic")) {
        return AFXDP_XDP_GENERIC;
    }
    fail("%s: unknown mode (use native or generic)", s);
}

/* Returns the ids of the programs attached to 'ifindex' in native mode (in
 * '*drv_id') and in generic mode (in '*skb_id'), 0 for none. */
static void
query_attached(int ifindex, uint32_t *drv_id, uint32_t *skb_id)
{
    LIBBPF_OPTS(bpf_xdp_query_opts, query);
    int ret = bpf_xdp_query(ifindex, 0, &query);

    if (ret) {
        fail("bpf_xdp_query(%d): %s", ifindex, ovs_strerror(-ret));
    }
    *drv_id = query.drv_prog_id;
    *skb_id = query.skb_prog_id;
}

static void
check_nothing_attached(int ifindex)
{
    uint32_t drv_id, skb_id;

    query_attached(ifindex, &drv_id, &skb_id);
    if (drv_id || skb_id) {
        fail("XDP program(s) still attached: native %"PRIu32", generic "
             "%"PRIu32, drv_id, skb_id);
    }
}

/* Returns the kernel name of program 'id' in 'name'. */
static void
prog_name(uint32_t id, char name[BPF_OBJ_NAME_LEN])
{
    struct bpf_prog_info info;
    uint32_t len = sizeof info;
    int fd = bpf_prog_get_fd_by_id(id);

    CHECK(fd >= 0);
    memset(&info, 0, sizeof info);
    CHECK_ERR(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
    close(fd);
    ovs_strlcpy(name, info.name, BPF_OBJ_NAME_LEN);
}

/* Checks that 'ip link show dev DEVNAME' reports an XDP program with id
 * 'id' (iproute2 prints "prog/xdp id N" in native or generic mode). */
static void
check_ip_link(const char *devname, uint32_t id)
{
    char *cmd = xasprintf("ip link show dev %s 2>&1", devname);
    char *want = xasprintf("prog/xdp id %"PRIu32" ", id);
    bool found = false;
    char line[512];
    FILE *stream;

    stream = popen(cmd, "r");
    if (!stream) {
        fail("%s: %s", cmd, ovs_strerror(errno));
    }
    while (fgets(line, sizeof line, stream)) {
        if (strstr(line, want)) {
            found = true;
        }
    }
    pclose(stream);
    if (!found) {
        fail("'%s' does not show '%s'", cmd, want);
    }
    free(want);
    free(cmd);
}

/* Returns an AF_XDP socket bound in copy mode to queue 0 of 'ifindex', with
 * a small UMEM and no frames posted to its fill ring: frames redirected to
 * it are dropped by the kernel, which is enough to see the program decide.
 * The UMEM area is leaked on purpose (tests are short-lived). */
static int
make_xsk(int ifindex)
{
    struct xdp_umem_reg reg;
    struct sockaddr_xdp sxdp;
    int n = TEST_N_FRAMES;
    void *area;
    int fd;

    area = mmap(NULL, TEST_N_FRAMES * TEST_FRAME_SIZE, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(area != MAP_FAILED);

    fd = socket(AF_XDP, SOCK_RAW, 0);
    if (fd < 0) {
        fail("AF_XDP socket: %s", ovs_strerror(errno));
    }

    memset(&reg, 0, sizeof reg);
    reg.addr = (uintptr_t) area;
    reg.len = TEST_N_FRAMES * TEST_FRAME_SIZE;
    reg.chunk_size = TEST_FRAME_SIZE;
    CHECK(!setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof reg));
    CHECK(!setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof n));
    CHECK(!setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n, sizeof n));
    CHECK(!setsockopt(fd, SOL_XDP, XDP_RX_RING, &n, sizeof n));

    memset(&sxdp, 0, sizeof sxdp);
    sxdp.sxdp_family = AF_XDP;
    sxdp.sxdp_ifindex = ifindex;
    sxdp.sxdp_queue_id = 0;
    sxdp.sxdp_flags = XDP_COPY;
    if (bind(fd, (struct sockaddr *) &sxdp, sizeof sxdp)) {
        fail("binding AF_XDP socket: %s", ovs_strerror(errno));
    }
    return fd;
}

/* Sends one broadcast frame of a local experimental ethertype out of
 * 'peer_ifindex', so that it arrives on the peer of that veth. */
static void
send_frame(int peer_ifindex)
{
    uint8_t frame[ETH_ZLEN];
    struct sockaddr_ll sll;
    int fd;

    memset(frame, 0, sizeof frame);
    memset(frame, 0xff, ETH_ALEN);              /* Broadcast destination. */
    frame[ETH_ALEN] = 0x02;                     /* Local unicast source. */
    frame[2 * ETH_ALEN] = 0x88;                 /* Ethertype 0x88b5. */
    frame[2 * ETH_ALEN + 1] = 0xb5;

    fd = socket(AF_PACKET, SOCK_RAW, 0);
    CHECK(fd >= 0);
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_ifindex = peer_ifindex;
    sll.sll_halen = ETH_ALEN;
    memset(sll.sll_addr, 0xff, ETH_ALEN);
    if (sendto(fd, frame, sizeof frame, 0, (struct sockaddr *) &sll,
               sizeof sll) != sizeof frame) {
        fail("sending a frame on the peer: %s (are both ends up?)",
             ovs_strerror(errno));
    }
    close(fd);
}

/* Sends a frame from 'peer_ifindex' and waits until counter 'idx' of 'xdp'
 * has grown. */
static void
send_and_count(struct afxdp_xdp *xdp, int peer_ifindex,
               enum afxdp_prog_counter idx)
{
    struct afxdp_xdp_stats before, now;
    long long int deadline;

    CHECK_ERR(afxdp_xdp_get_stats(xdp, &before), 0);
    send_frame(peer_ifindex);

    deadline = time_msec() + TEST_STATS_WAIT_MS;
    do {
        CHECK_ERR(afxdp_xdp_get_stats(xdp, &now), 0);
        if (now.counters[idx] > before.counters[idx]) {
            return;
        }
        xnanosleep(10 * 1000 * 1000);
    } while (time_msec() < deadline);

    fail("counter %s did not grow within %d ms (still %"PRIu64")",
         afxdp_xdp_counter_name(idx), TEST_STATS_WAIT_MS,
         now.counters[idx]);
}

/* Checks XSKMAP updates on 'xdp', attached to 'ifindex', and with a peer
 * (nonzero 'peer_ifindex') also the program's decisions. */
static void
check_xskmap(struct afxdp_xdp *xdp, int ifindex, int peer_ifindex)
{
    int pipe_fds[2];
    int xsk;

    CHECK_ERR(afxdp_xdp_set_xsk(xdp, AFXDP_MAX_QUEUES, 0), EINVAL);
    CHECK_ERR(afxdp_xdp_clear_xsk(xdp, AFXDP_MAX_QUEUES), EINVAL);
    CHECK_ERR(afxdp_xdp_clear_xsk(xdp, 0), 0);

    /* Only AF_XDP sockets go into an XSKMAP. */
    CHECK(!pipe(pipe_fds));
    CHECK(afxdp_xdp_set_xsk(xdp, 0, pipe_fds[0]) != 0);
    close(pipe_fds[0]);
    close(pipe_fds[1]);

    if (peer_ifindex) {
        send_and_count(xdp, peer_ifindex, AFXDP_PROG_NO_SOCKET);
    }

    xsk = make_xsk(ifindex);
    CHECK_ERR(afxdp_xdp_set_xsk(xdp, 0, xsk), 0);
    if (peer_ifindex) {
        send_and_count(xdp, peer_ifindex, AFXDP_PROG_REDIRECTED);
    }
    CHECK_ERR(afxdp_xdp_clear_xsk(xdp, 0), 0);
    CHECK_ERR(afxdp_xdp_clear_xsk(xdp, 0), 0);
    if (peer_ifindex) {
        send_and_count(xdp, peer_ifindex, AFXDP_PROG_NO_SOCKET);
    }
    close(xsk);
}

static void
print_stats(const struct afxdp_xdp *xdp)
{
    struct afxdp_xdp_stats stats;

    CHECK_ERR(afxdp_xdp_get_stats(xdp, &stats), 0);
    for (int i = 0; i < AFXDP_PROG_N_COUNTERS; i++) {
        printf("  %s=%"PRIu64"\n", afxdp_xdp_counter_name(i),
               stats.counters[i]);
    }
}

/* Attaches in 'mode', checks, detaches. */
static void
check_mode(const char *devname, int ifindex, int peer_ifindex,
           enum afxdp_xdp_mode mode)
{
    struct afxdp_xdp *xdp;
    uint32_t drv_id, skb_id, attached;
    char name[BPF_OBJ_NAME_LEN];
    char *msg = NULL;
    int error;

    error = afxdp_xdp_attach(devname, ifindex, mode, &xdp, &msg);
    if (error) {
        fail("attach: %s", msg);
    }
    CHECK(afxdp_xdp_get_mode(xdp) == mode);
    CHECK(afxdp_xdp_prog_id(xdp) != 0);
    printf("%s: %s mode: program %"PRIu32", %s\n", devname,
           mode == AFXDP_XDP_NATIVE ? "native" : "generic",
           afxdp_xdp_prog_id(xdp), afxdp_xdp_attach_desc(xdp));

    query_attached(ifindex, &drv_id, &skb_id);
    attached = mode == AFXDP_XDP_NATIVE ? drv_id : skb_id;
    CHECK((mode == AFXDP_XDP_NATIVE ? skb_id : drv_id) == 0);
    prog_name(attached, name);
    if (!strcmp(name, "xdp_dispatcher")) {
        /* Ours runs inside libxdp's dispatcher, under another id. */
        CHECK(attached != afxdp_xdp_prog_id(xdp));
    } else {
        CHECK(attached == afxdp_xdp_prog_id(xdp));
    }
    check_ip_link(devname, attached);

    check_xskmap(xdp, ifindex, peer_ifindex);
    print_stats(xdp);

    afxdp_xdp_detach(xdp);
    check_nothing_attached(ifindex);
}

/* Attaches in 'mode' from a child process that exits without detaching. */
static void
leave_program(const char *devname, int ifindex, enum afxdp_xdp_mode mode)
{
    int status;
    pid_t pid;

    fflush(stdout);
    pid = fork();
    CHECK(pid >= 0);
    if (!pid) {
        struct afxdp_xdp *xdp;

        _exit(afxdp_xdp_attach(devname, ifindex, mode, &xdp, NULL) ? 1 : 0);
    }
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A program left behind by a dead process is removed, by
 * afxdp_xdp_remove_ours() and by the next attach. */
static void
check_stale(const char *devname, int ifindex)
{
    uint32_t drv_id, skb_id;
    char name[BPF_OBJ_NAME_LEN];
    struct afxdp_xdp *xdp;

    leave_program(devname, ifindex, AFXDP_XDP_GENERIC);
    query_attached(ifindex, &drv_id, &skb_id);
    CHECK(skb_id != 0 && drv_id == 0);
    prog_name(skb_id, name);
    printf("%s: left program %"PRIu32" (%s) behind\n", devname, skb_id, name);
    CHECK_ERR(afxdp_xdp_remove_ours(ifindex), 1);
    check_nothing_attached(ifindex);
    CHECK_ERR(afxdp_xdp_remove_ours(ifindex), 0);

    leave_program(devname, ifindex, AFXDP_XDP_NATIVE);
    query_attached(ifindex, &drv_id, &skb_id);
    CHECK(drv_id != 0 && skb_id == 0);
    CHECK_ERR(afxdp_xdp_attach(devname, ifindex, AFXDP_XDP_GENERIC, &xdp,
                               NULL), 0);
    query_attached(ifindex, &drv_id, &skb_id);
    CHECK(drv_id == 0 && skb_id == afxdp_xdp_prog_id(xdp));
    afxdp_xdp_detach(xdp);
    check_nothing_attached(ifindex);
    printf("%s: stale programs removed\n", devname);
}

/* Loads a foreign XDP program that passes every frame.  It is built from
 * two instructions here, rather than from an object file, so that the test
 * depends on nothing but the kernel. */
static int
load_foreign_prog(void)
{
    const struct bpf_insn insns[] = {
        { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
          .imm = XDP_PASS },                    /* r0 = XDP_PASS */
        { .code = BPF_JMP | BPF_EXIT },         /* return r0 */
    };
    int fd;

    fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "test_foreign", "GPL", insns,
                       ARRAY_SIZE(insns), NULL);
    if (fd < 0) {
        fail("loading a foreign XDP program: %s", ovs_strerror(-fd));
    }
    return fd;
}

/* A foreign program is neither removed nor replaced. */
static void
check_foreign(const char *devname, int ifindex)
{
    int fd = load_foreign_prog();
    uint32_t drv_id, skb_id;
    struct afxdp_xdp *xdp;
    char *msg = NULL;
    int error;

    CHECK_ERR(bpf_xdp_attach(ifindex, fd, XDP_FLAGS_SKB_MODE, NULL), 0);
    CHECK_ERR(afxdp_xdp_remove_ours(ifindex), 0);

    error = afxdp_xdp_attach(devname, ifindex, AFXDP_XDP_GENERIC, &xdp,
                             &msg);
    CHECK(error == EBUSY || error == EEXIST);
    CHECK(xdp == NULL);
    CHECK(msg && !strncmp(msg, devname, strlen(devname)));
    printf("%s: generic over a foreign program: %s\n", devname, msg);
    free(msg);

    error = afxdp_xdp_attach(devname, ifindex, AFXDP_XDP_NATIVE, &xdp, &msg);
    CHECK(error != 0);
    printf("%s: native over a foreign program: %s\n", devname, msg);
    free(msg);

    query_attached(ifindex, &drv_id, &skb_id);
    CHECK(skb_id != 0 && drv_id == 0);
    CHECK_ERR(bpf_xdp_detach(ifindex, XDP_FLAGS_SKB_MODE, NULL), 0);
    close(fd);
    check_nothing_attached(ifindex);
}

/* XDP hints. */

/* UDP ports of the frame send_udp_frame() sends, to recognise it. */
#define TEST_UDP_SRC 40000
#define TEST_UDP_DST 40001

/* How long to wait for a frame on the AF_XDP socket. */
#define TEST_RX_WAIT_MS 2000

/* An AF_XDP socket made with libxdp's xsk API, bound in copy mode to queue 0,
 * with every frame of its UMEM posted to the fill ring. */
struct test_xsk {
    void *area;                 /* UMEM, TEST_N_FRAMES * TEST_FRAME_SIZE. */
    struct xsk_umem *umem;
    struct xsk_socket *sock;
    struct xsk_ring_prod fill;
    struct xsk_ring_cons comp;
    struct xsk_ring_cons rx;
};

static void
test_xsk_open(struct test_xsk *t, const char *devname)
{
    const struct xsk_umem_config ucfg = {
        .fill_size = TEST_N_FRAMES,
        .comp_size = TEST_N_FRAMES,
        .frame_size = TEST_FRAME_SIZE,
        .frame_headroom = 0,
    };
    const struct xsk_socket_config scfg = {
        .rx_size = TEST_N_FRAMES,
        .libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
        .bind_flags = XDP_COPY,
    };
    long long int deadline;
    uint32_t idx;
    int ret;

    memset(t, 0, sizeof *t);
    t->area = mmap(NULL, TEST_N_FRAMES * TEST_FRAME_SIZE,
                   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(t->area != MAP_FAILED);
    ret = xsk_umem__create(&t->umem, t->area, TEST_N_FRAMES * TEST_FRAME_SIZE,
                           &t->fill, &t->comp, &ucfg);
    if (ret) {
        fail("xsk_umem__create: %s", ovs_strerror(-ret));
    }
    /* The kernel releases the previous check's socket from the queue in
     * a work item after close(): until then, binding says EBUSY. */
    deadline = time_msec() + TEST_RX_WAIT_MS;
    do {
        ret = xsk_socket__create(&t->sock, devname, 0, t->umem, &t->rx,
                                 NULL, &scfg);
        if (ret != -EBUSY) {
            break;
        }
        xnanosleep(10 * 1000 * 1000);
    } while (time_msec() < deadline);
    if (ret) {
        fail("xsk_socket__create on %s: %s", devname, ovs_strerror(-ret));
    }
    CHECK(xsk_ring_prod__reserve(&t->fill, TEST_N_FRAMES, &idx)
          == TEST_N_FRAMES);
    for (uint32_t i = 0; i < TEST_N_FRAMES; i++) {
        *xsk_ring_prod__fill_addr(&t->fill, idx + i) = i * TEST_FRAME_SIZE;
    }
    xsk_ring_prod__submit(&t->fill, TEST_N_FRAMES);
}

static void
test_xsk_close(struct test_xsk *t)
{
    xsk_socket__delete(t->sock);
    CHECK_ERR(-xsk_umem__delete(t->umem), 0);
    munmap(t->area, TEST_N_FRAMES * TEST_FRAME_SIZE);
}

/* Sends from 'peer_ifindex' one IPv4/UDP frame, for which veth computes a
 * flow hash.  Returns the packet socket it used, for the caller to close
 * once the frame has arrived: closing a packet socket waits for an RCU
 * grace period, which would otherwise count as the frame's latency. */
static int
send_udp_frame(int peer_ifindex)
{
    uint8_t frame[ETH_HEADER_LEN + IP_HEADER_LEN + UDP_HEADER_LEN + 18];
    struct eth_header *eth = (void *) frame;
    struct ip_header *ip = (void *) (eth + 1);
    struct udp_header *udp = (void *) (ip + 1);
    struct sockaddr_ll sll;
    int fd;

    memset(frame, 0, sizeof frame);
    eth->eth_dst = eth_addr_broadcast;
    eth->eth_src = (struct eth_addr) ETH_ADDR_C(02, 00, 00, 00, 00, 01);
    eth->eth_type = htons(ETH_TYPE_IP);
    ip->ip_ihl_ver = IP_IHL_VER(5, 4);
    ip->ip_tot_len = htons(sizeof frame - ETH_HEADER_LEN);
    ip->ip_ttl = 64;
    ip->ip_proto = IPPROTO_UDP;
    put_16aligned_be32(&ip->ip_src, htonl(0x0a000001));
    put_16aligned_be32(&ip->ip_dst, htonl(0x0a000002));
    ip->ip_csum = csum(ip, IP_HEADER_LEN);
    udp->udp_src = htons(TEST_UDP_SRC);
    udp->udp_dst = htons(TEST_UDP_DST);
    udp->udp_len = htons(sizeof frame - ETH_HEADER_LEN - IP_HEADER_LEN);

    fd = socket(AF_PACKET, SOCK_RAW, 0);
    CHECK(fd >= 0);
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_ifindex = peer_ifindex;
    sll.sll_halen = ETH_ALEN;
    memset(sll.sll_addr, 0xff, ETH_ALEN);
    if (sendto(fd, frame, sizeof frame, 0, (struct sockaddr *) &sll,
               sizeof sll) != sizeof frame) {
        fail("sending a frame on the peer: %s", ovs_strerror(errno));
    }
    return fd;
}

/* True if 'frame', of 'len' bytes, is the one send_udp_frame() sends. */
static bool
is_test_frame(const uint8_t *frame, uint32_t len)
{
    const struct eth_header *eth = (const void *) frame;
    const struct udp_header *udp;

    if (len < ETH_HEADER_LEN + IP_HEADER_LEN + UDP_HEADER_LEN
        || eth->eth_type != htons(ETH_TYPE_IP)) {
        return false;
    }
    udp = (const void *) (frame + ETH_HEADER_LEN + IP_HEADER_LEN);
    return udp->udp_dst == htons(TEST_UDP_DST);
}

/* Current CLOCK_MONOTONIC, in nanoseconds. */
static uint64_t
monotonic_ns(void)
{
    struct timespec ts;

    xclock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * UINT64_C(1000000000) + ts.tv_nsec;
}

/* Sends a frame from 'peer_ifindex' and waits for it on 't'.  Returns a
 * pointer to it in the UMEM and, in '*headroom', the bytes in front of it
 * in its frame (what an AF_XDP reader may take for metadata), and in
 * '*now' the time it was found. */
static const uint8_t *
receive_test_frame(struct test_xsk *t, int peer_ifindex, size_t *headroom,
                   uint64_t *now)
{
    long long int deadline = time_msec() + TEST_RX_WAIT_MS;
    int fd = send_udp_frame(peer_ifindex);

    do {
        uint32_t idx;

        if (xsk_ring_cons__peek(&t->rx, 1, &idx)) {
            const struct xdp_desc *desc = xsk_ring_cons__rx_desc(&t->rx,
                                                                 idx);
            const uint8_t *frame = xsk_umem__get_data(t->area, desc->addr);
            bool ours = is_test_frame(frame, desc->len);

            /* The frame stays in the UMEM; only the slot is given back. */
            xsk_ring_cons__release(&t->rx, 1);
            if (ours) {
                *now = monotonic_ns();
                *headroom = desc->addr % TEST_FRAME_SIZE;
                close(fd);
                return frame;
            }
            continue;           /* E.g. IPv6 neighbour discovery. */
        }
        xnanosleep(1000 * 1000);
    } while (time_msec() < deadline);
    fail("no frame on the AF_XDP socket within %d ms", TEST_RX_WAIT_MS);
}

static const char *
hints_mode_name(enum xdp_hints_mode hints)
{
    return (hints == XDP_HINTS_OFF ? "off"
            : hints == XDP_HINTS_TS ? "ts" : "ts+hash");
}

/* Checks the hints in front of 'frame', received 'now' on a port whose
 * program is 'xdp', and prints what they hold. */
static void
check_frame_hints(const struct afxdp_xdp *xdp,
                  const struct xdp_hints_decoder *dec, const uint8_t *frame,
                  size_t headroom, uint64_t now, struct ds *out)
{
    enum xdp_hints_mode hints = afxdp_xdp_hints_mode(xdp);
    const struct xdp_hints_layout *l;
    struct xdp_hints_values v;

    if (hints == XDP_HINTS_OFF) {
        /* Nothing written in front of the frame: the UMEM's zeroes. */
        CHECK(!xdp_hints_decode(dec, frame, headroom, &v));
        ds_put_cstr(out, "no hints");
        return;
    }

    CHECK(xdp_hints_decode(dec, frame, headroom, &v));
    l = xdp_hints_decoder_find_name(dec, hints == XDP_HINTS_TS
                                    ? "xdp_hints_ts" : "xdp_hints_ts_hash");
    CHECK(l && v.btf_id == l->btf_id);

    /* veth has no device timestamps (its kfunc gives 0): kernel clock. */
    CHECK(xdp_hints_clock(&v) == XDP_HINTS_CLOCK_MONOTONIC);
    if (v.rx_timestamp > now || now - v.rx_timestamp > 1000000000) {
        fail("timestamp %"PRIu64" is not within a second before now "
             "(%"PRIu64")", v.rx_timestamp, now);
    }
    ds_put_format(out, "%s, kernel clock %"PRIu64" us before now",
                  l->name, (now - v.rx_timestamp) / 1000);

    if (hints == XDP_HINTS_TS_HASH && afxdp_xdp_is_dev_bound(xdp)) {
        /* veth implements rx_hash: its skb's flow hash. */
        CHECK(xdp_hints_has_hash(&v) && !(v.flags & XDP_HINTS_F_HASH_XDP));
        ds_put_format(out, ", hash %#"PRIx32" type %#"PRIx32,
                      v.rx_hash, v.hash_type);
    } else if (hints == XDP_HINTS_TS_HASH) {
        /* No driver hash: the program's own, over the UDP frame's
         * addresses and ports. */
        CHECK(xdp_hints_has_hash(&v) && v.flags & XDP_HINTS_F_HASH_XDP);
        CHECK(v.hash_type == (XDP_HINTS_HASH_L3_IPV4 | XDP_HINTS_HASH_L4
                              | XDP_HINTS_HASH_L4_UDP));
        ds_put_format(out, ", hash %#"PRIx32" type %#"PRIx32" (computed "
                      "in XDP)", v.rx_hash, v.hash_type);
    } else {
        CHECK(!xdp_hints_has_hash(&v));
        ds_put_cstr(out, ", no hash");
    }
    if (xdp_hints_has_vlan(&v)) {
        ds_put_format(out, ", vlan %"PRIu16, v.vlan_tci);
    }
}

/* The hash the program computes for 'frame' (whose hints are in front of
 * it, 'headroom' bytes into its chunk) is the one it computes for the same
 * frame when it parses it for offloaded flows: installs a mask no flow
 * uses, so that the frame misses, and receives the frame again. */
static void
check_hash_with_offload(struct afxdp_xdp *xdp,
                        const struct xdp_hints_decoder *dec,
                        struct test_xsk *t, int peer_ifindex,
                        const uint8_t *frame, size_t headroom)
{
    struct afxdp_xdp_flow_maps maps;
    struct xdp_hints_values v1, v2;
    struct afxdp_flow_masks table;
    struct afxdp_xdp_stats stats;
    struct afxdp_flow_key mask;
    uint32_t zero = 0;
    uint64_t now;

    CHECK(xdp_hints_decode(dec, frame, headroom, &v1));
    memset(&table, 0, sizeof table);
    memset(&mask, 0, sizeof mask);
    mask.nw_ttl = 0xff;
    afxdp_flow_slot_set(&table, 0, &mask);
    table.n_masks = 1;
    afxdp_xdp_flow_maps(xdp, &maps);
    CHECK_ERR(bpf_map_update_elem(maps.masks_fd, &zero, &table, 0), 0);

    frame = receive_test_frame(t, peer_ifindex, &headroom, &now);
    CHECK(xdp_hints_decode(dec, frame, headroom, &v2));
    CHECK(v2.flags & XDP_HINTS_F_HASH_XDP);
    CHECK(v2.rx_hash == v1.rx_hash && v2.hash_type == v1.hash_type);
    CHECK_ERR(afxdp_xdp_get_stats(xdp, &stats), 0);
    CHECK(stats.counters[AFXDP_PROG_OFFLOAD_MISS] >= 1);

    memset(&table, 0, sizeof table);
    CHECK_ERR(bpf_map_update_elem(maps.masks_fd, &zero, &table, 0), 0);
}

/* Attaches in 'mode' with 'hints' (device-bound if 'dev_bound' and the
 * kernel agrees), receives a frame sent from the peer on a real AF_XDP
 * socket and checks the hints in front of it. */
static void
check_hints(const char *devname, int ifindex, int peer_ifindex,
            enum afxdp_xdp_mode mode, enum xdp_hints_mode hints,
            bool dev_bound)
{
    /* With the lookup in offloaded flows, which check_hash_with_offload()
     * makes parse the frame. */
    struct afxdp_xdp_opts opts = { .hints = hints, .dev_bound = dev_bound,
                                   .offload = true };
    struct ds out = DS_EMPTY_INITIALIZER;
    struct afxdp_xdp_stats stats;
    struct xdp_hints_decoder *dec;
    const uint8_t *frame;
    struct afxdp_xdp *xdp;
    struct test_xsk t;
    size_t headroom;
    char *msg = NULL;
    uint64_t now;

    if (afxdp_xdp_attach_ex(devname, ifindex, mode, &opts, &xdp, &msg)) {
        fail("attach with hints: %s", msg);
    }
    CHECK(afxdp_xdp_hints_mode(xdp) == hints);
    CHECK(!afxdp_xdp_is_dev_bound(xdp)
          || (mode == AFXDP_XDP_NATIVE && dev_bound && hints));
    CHECK_ERR(xdp_hints_decoder_create(afxdp_xdp_btf(xdp), &dec), 0);
    CHECK(dec->n_layouts == 2);

    test_xsk_open(&t, devname);
    CHECK_ERR(afxdp_xdp_set_xsk(xdp, 0, xsk_socket__fd(t.sock)), 0);
    frame = receive_test_frame(&t, peer_ifindex, &headroom, &now);
    CHECK(headroom >= dec->max_size);

    ds_put_format(&out, "%s: %s, hints %s%s: program %"PRIu32", %s; hints: "
                  "%s; frame at %"PRIuSIZE" bytes into its chunk: ", devname,
                  mode == AFXDP_XDP_NATIVE ? "native" : "generic",
                  hints_mode_name(hints),
                  dev_bound ? " (device-bound asked)" : "",
                  afxdp_xdp_prog_id(xdp), afxdp_xdp_attach_desc(xdp),
                  afxdp_xdp_hints_desc(xdp), headroom);
    check_frame_hints(xdp, dec, frame, headroom, now, &out);
    if (hints == XDP_HINTS_TS_HASH && !afxdp_xdp_is_dev_bound(xdp)) {
        check_hash_with_offload(xdp, dec, &t, peer_ifindex, frame, headroom);
        ds_put_cstr(&out, ", the same when parsed for offloaded flows");
    }
    printf("%s\n", ds_cstr(&out));
    ds_destroy(&out);

    CHECK_ERR(afxdp_xdp_get_stats(xdp, &stats), 0);
    CHECK(stats.counters[AFXDP_PROG_REDIRECTED] >= 1);
    CHECK(stats.counters[AFXDP_PROG_HINTS_FAILED] == 0);

    CHECK_ERR(afxdp_xdp_clear_xsk(xdp, 0), 0);
    test_xsk_close(&t);
    xdp_hints_decoder_destroy(dec);
    afxdp_xdp_detach(xdp);
    check_nothing_attached(ifindex);
}

/* Reports whether this kernel loads a program that calls the RX metadata
 * kfuncs without binding it to a device (6.18 does not: "metadata kfuncs
 * require device-bound program"), which is why the object has two
 * programs.  Informational: not a check. */
static void
report_unbound_kfuncs(void)
{
    struct afxdp_bpf *skel = afxdp_bpf__open();
    int ret;

    CHECK(skel);
    skel->rodata->hints_mode = XDP_HINTS_TS_HASH;
    bpf_program__set_autoload(skel->progs.afxdp_ovs_redir, false);
    ret = afxdp_bpf__load(skel);
    printf("kernel: a program calling the metadata kfuncs, not device-bound: "
           "%s\n", ret ? ovs_strerror(-ret) : "loads");
    afxdp_bpf__destroy(skel);
}

/* A device-bound program left behind by a dead process is ours too. */
static void
check_stale_dev_bound(const char *devname, int ifindex)
{
    uint32_t drv_id, skb_id;
    char name[BPF_OBJ_NAME_LEN];
    int status;
    pid_t pid;

    fflush(stdout);
    pid = fork();
    CHECK(pid >= 0);
    if (!pid) {
        struct afxdp_xdp_opts opts = { .hints = XDP_HINTS_TS_HASH,
                                       .dev_bound = true };
        struct afxdp_xdp *xdp;

        _exit(afxdp_xdp_attach_ex(devname, ifindex, AFXDP_XDP_NATIVE, &opts,
                                  &xdp, NULL)
              || !afxdp_xdp_is_dev_bound(xdp) ? 1 : 0);
    }
    CHECK(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        /* The kernel refused it: nothing of this kind to leave behind. */
        check_nothing_attached(ifindex);
        printf("%s: no device-bound program to leave behind\n", devname);
        return;
    }
    query_attached(ifindex, &drv_id, &skb_id);
    CHECK(drv_id != 0 && skb_id == 0);
    prog_name(drv_id, name);
    printf("%s: left device-bound program %"PRIu32" (%s) behind\n", devname,
           drv_id, name);
    CHECK_ERR(afxdp_xdp_remove_ours(ifindex), 1);
    check_nothing_attached(ifindex);
}

/* Every hints configuration, on 'devname' with its peer 'peer_ifindex'. */
static void
check_all_hints(const char *devname, int ifindex, int peer_ifindex)
{
    report_unbound_kfuncs();
    check_stale_dev_bound(devname, ifindex);
    check_hints(devname, ifindex, peer_ifindex, AFXDP_XDP_NATIVE,
                XDP_HINTS_TS_HASH, true);
    check_hints(devname, ifindex, peer_ifindex, AFXDP_XDP_NATIVE,
                XDP_HINTS_TS, true);
    check_hints(devname, ifindex, peer_ifindex, AFXDP_XDP_NATIVE,
                XDP_HINTS_TS_HASH, false);
    check_hints(devname, ifindex, peer_ifindex, AFXDP_XDP_GENERIC,
                XDP_HINTS_TS_HASH, true);
    check_hints(devname, ifindex, peer_ifindex, AFXDP_XDP_GENERIC,
                XDP_HINTS_TS, false);
    check_hints(devname, ifindex, peer_ifindex, AFXDP_XDP_NATIVE,
                XDP_HINTS_OFF, true);
    check_hints(devname, ifindex, peer_ifindex, AFXDP_XDP_GENERIC,
                XDP_HINTS_OFF, false);
}

static void
cmd_run(struct ovs_cmdl_context *ctx)
{
    const char *devname = ctx->argv[1];
    int ifindex = get_ifindex(devname);
    int peer_ifindex = ctx->argc > 2 ? get_ifindex(ctx->argv[2]) : 0;

    if (afxdp_xdp_remove_ours(ifindex)) {
        printf("%s: removed a program of ours left by an earlier run\n",
               devname);
    }
    check_nothing_attached(ifindex);
    test_ifindex = ifindex;

    check_mode(devname, ifindex, peer_ifindex, AFXDP_XDP_NATIVE);
    check_mode(devname, ifindex, peer_ifindex, AFXDP_XDP_GENERIC);
    check_stale(devname, ifindex);
    check_foreign(devname, ifindex);
    if (peer_ifindex) {
        check_all_hints(devname, ifindex, peer_ifindex);
    }
    printf("%s: all checks passed\n", devname);
}

static void
cmd_hints(struct ovs_cmdl_context *ctx)
{
    const char *devname = ctx->argv[1];
    int ifindex = get_ifindex(devname);

    if (afxdp_xdp_remove_ours(ifindex)) {
        printf("%s: removed a program of ours left by an earlier run\n",
               devname);
    }
    check_nothing_attached(ifindex);
    test_ifindex = ifindex;
    check_all_hints(devname, ifindex, get_ifindex(ctx->argv[2]));
    printf("%s: all hints checks passed\n", devname);
}

static void
cmd_attach(struct ovs_cmdl_context *ctx)
{
    enum afxdp_xdp_mode mode = parse_mode(ctx->argv[2]);
    struct afxdp_xdp *xdp;
    char *msg = NULL;

    if (afxdp_xdp_attach(ctx->argv[1], get_ifindex(ctx->argv[1]), mode,
                         &xdp, &msg)) {
        fail("%s", msg);
    }
    /* Deliberately not detached. */
    printf("%"PRIu32"\n", afxdp_xdp_prog_id(xdp));
}

static void
cmd_remove(struct ovs_cmdl_context *ctx)
{
    printf("%d\n", afxdp_xdp_remove_ours(get_ifindex(ctx->argv[1])));
}

static const struct ovs_cmdl_command commands[] = {
    {"run", "DEV [PEER]", 1, 2, cmd_run, OVS_RW},
    {"hints", "DEV PEER", 2, 2, cmd_hints, OVS_RW},
    {"attach", "DEV native|generic", 2, 2, cmd_attach, OVS_RW},
    {"remove", "DEV", 1, 1, cmd_remove, OVS_RW},
    {NULL, NULL, 0, 0, NULL, OVS_RO},
};

/* Accepts the usual vlog options, e.g. -vafxdp_xdp:console:dbg. */
static void
parse_options(int argc, char *argv[])
{
    enum {
        VLOG_OPTION_ENUMS
    };
    static const struct option long_options[] = {
        VLOG_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);

    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        VLOG_OPTION_HANDLERS

        case '?':
            exit(EXIT_FAILURE);

        default:
            OVS_NOT_REACHED();
        }
    }
    free(short_options);
}

static void
test_afxdp_xdp_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx;

    set_program_name(argv[0]);
    parse_options(argc, argv);
    ctx.argc = argc - optind;
    ctx.argv = argv + optind;
    if (geteuid()) {
        printf("test-afxdp-xdp: skipped: needs root\n");
        exit(77);
    }
    afxdp_xdp_init();
    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-afxdp-xdp", test_afxdp_xdp_main);
