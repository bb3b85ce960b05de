/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The ovs-afxdp authors.
 *
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

/* afxdp-bench-xdp: the XDP programs of utilities/ovs-afxdp-bench, and what
 * drives them.  Three commands:
 *
 *   gen DEV [OPTIONS]    sends UDP frames out of DEV for a while, as fast
 *                        as it can or at a given rate, with the program of
 *                        bpf/afxdp-pktgen.bpf.c run in BPF_PROG_TEST_RUN's
 *                        live-frames mode; prints what it sent.
 *   sink DEV             attaches bpf/afxdp-sink.bpf.c to DEV, prints
 *                        "ready", then for each line read on stdin prints
 *                        the packets and bytes counted so far; detaches
 *                        at end of input.
 *   redirect DEV1 DEV2   attaches bpf/afxdp-redirect.bpf.c to both, so
 *                        that each forwards to the other in XDP; prints
 *                        "ready"; detaches at end of input.
 *
 * The programs are loaded through their generated skeletons and attached
 * through BPF links, so they go away with this process whatever happens to
 * it.  This program is not part of Open vSwitch and uses only libbpf.
 *
 * Exit status: 0 on success, 1 on a runtime error, 2 on a usage error. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/time.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/afxdp-bench.h"
#include "bpf/afxdp-pktgen.skel.h"
#include "bpf/afxdp-redirect.skel.h"
#include "bpf/afxdp-sink.skel.h"

#define PROG "afxdp-bench-xdp"

/* Smallest frame the generator builds: 64 bytes with the FCS. */
#define BENCH_MIN_FRAME 60

/* Program runs per test run.  Starting and ending a test run in
 * live-frames mode takes tens of milliseconds, so there are as few as
 * possible: the generator ends a run with a signal, not by its count. */
#define BENCH_REPEAT (1u << 31)

/* Source ports of the flows start here. */
#define BENCH_FIRST_PORT 1024

/* Most CPUs whose counters the sink can sum. */
#define BENCH_MAX_CPUS 4096

static volatile sig_atomic_t stop_requested;

/* What "gen" was asked to do. */
struct bench_gen_options {
    const char *dev;            /* Device to send out of. */
    unsigned int size;          /* Frame size with FCS, 64 to 1518. */
    unsigned int flows;         /* Distinct UDP source ports. */
    double duration;            /* Seconds. */
    double rate;                /* Frames per second; 0: no limit. */
    double window_from;         /* Measurement window, in seconds from */
    double window_to;           /* the start; both 0: none. */
    unsigned int batch;         /* Frames per kernel batch, 1 to 256. */
    uint8_t src_mac[ETH_ALEN];
    uint8_t dst_mac[ETH_ALEN];
    struct in_addr src_ip;
    struct in_addr dst_ip;
};

static void
usage(void)
{
    printf("%s: the XDP programs of ovs-afxdp-bench\n"
           "usage: %s gen DEV [OPTIONS]\n"
           "       %s sink DEV\n"
           "       %s redirect DEV1 DEV2\n"
           "\n"
           "gen sends UDP frames (destination port %d) out of DEV:\n"
           "  --size N        frame size with FCS, %d to %d (default 64)\n"
           "  --flows N       UDP source ports %d and up (default 1)\n"
           "  --duration S    seconds to send (default 5)\n"
           "  --rate PPS      frames per second (default 0: no limit)\n"
           "  --batch N       frames per kernel batch, 1 to 256 "
           "(default 64)\n"
           "  --window A,B    also count the frames sent from A to B "
           "seconds\n"
           "                  after the start (window_frames=N "
           "window_seconds=S)\n"
           "  --src-mac MAC, --dst-mac MAC, --src-ip IP, --dst-ip IP\n"
           "                  addresses (defaults 02:00:00:00:00:01,\n"
           "                  02:00:00:00:00:02, 10.250.0.1, 10.250.0.2)\n"
           "and prints \"frames=N seconds=S mpps=M\" at the end.\n"
           "\n"
           "sink counts and drops those frames on DEV: it prints \"ready\",\n"
           "then \"packets=P bytes=B\" for each line read on stdin.\n"
           "redirect forwards between DEV1 and DEV2 in XDP; it prints\n"
           "\"ready\".  Both detach their programs at end of input.\n",
           PROG, PROG, PROG, PROG, AFXDP_BENCH_UDP_PORT,
           BENCH_MIN_FRAME + 4, AFXDP_BENCH_MAX_FRAME + 4,
           BENCH_FIRST_PORT);
}

/* Reports failure ERROR (a positive errno) while doing WHAT.  libbpf's
 * strerror knows libbpf's own codes as well as the system's. */
static void
report_error(const char *what, int error)
{
    char buf[128];

    libbpf_strerror(-error, buf, sizeof buf);
    fprintf(stderr, "%s: %s: %s%s\n", PROG, what, buf,
            error == EPERM ? " (run as root)" : "");
}

static void
handle_stop_signal(int signo)
{
    (void) signo;
    stop_requested = 1;
}

/* SIGINT and SIGTERM end a generator's run early (its current test run
 * returns EINTR) instead of killing it before it reports. */
static void
catch_stop_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handle_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Has SIGALRM set 'stop_requested' in SECONDS.  Returns true on success,
 * false after saying why not. */
static bool
start_alarm(double seconds)
{
    struct itimerval it;
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handle_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);

    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = seconds;
    it.it_value.tv_usec = (seconds - it.it_value.tv_sec) * 1e6;
    if (setitimer(ITIMER_REAL, &it, NULL)) {
        report_error("setitimer", errno);
        return false;
    }
    return true;
}

static double
now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Parses a decimal unsigned integer from MIN to MAX into '*value'.
 * Returns true on success. */
static bool
parse_uint(const char *s, unsigned long min, unsigned long max,
           unsigned int *value)
{
    unsigned long v;
    char *end;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        return false;
    }
    *value = v;
    return true;
}

static bool
parse_double(const char *s, double min, double max, double *value)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < min || v > max) {
        return false;
    }
    *value = v;
    return true;
}

static bool
parse_mac(const char *s, uint8_t mac[ETH_ALEN])
{
    unsigned int b[ETH_ALEN];
    char extra;
    int i;

    if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
               &b[4], &b[5], &extra) != ETH_ALEN) {
        return false;
    }
    for (i = 0; i < ETH_ALEN; i++) {
        if (b[i] > 0xff) {
            return false;
        }
        mac[i] = b[i];
    }
    return true;
}

/* Parses "FROM,TO" (seconds, FROM < TO) into opts->window_*. */
static bool
parse_window(const char *s, struct bench_gen_options *opts)
{
    double from, to;
    char extra;

    if (sscanf(s, "%lf,%lf%c", &from, &to, &extra) != 2
        || !isfinite(from) || !isfinite(to) || from < 0 || to <= from) {
        return false;
    }
    opts->window_from = from;
    opts->window_to = to;
    return true;
}

/* Returns DEV's ifindex, or 0 after saying that there is no such device. */
static unsigned int
dev_ifindex(const char *dev)
{
    unsigned int ifindex = if_nametoindex(dev);

    if (!ifindex) {
        fprintf(stderr, "%s: %s: no such network device in this "
                "namespace\n", PROG, dev);
    }
    return ifindex;
}

/* One's-complement sum of the 16-bit words of the IPv4 header IP. */
static uint16_t
ipv4_checksum(const struct iphdr *ip)
{
    const uint16_t *word = (const uint16_t *) ip;
    uint32_t sum = 0;
    size_t i;

    for (i = 0; i < sizeof *ip / 2; i++) {
        sum += word[i];
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum;
}

/* Builds the generator's template frame into FRAME, which must have room
 * for AFXDP_BENCH_MAX_FRAME bytes.  Returns its length (without FCS). */
static size_t
build_template(const struct bench_gen_options *opts, uint8_t *frame)
{
    size_t len = opts->size - 4;
    struct ethhdr *eth = (struct ethhdr *) frame;
    struct iphdr *ip = (struct iphdr *) (eth + 1);
    struct udphdr *udp = (struct udphdr *) (ip + 1);

    memset(frame, 0, len);
    memcpy(eth->h_dest, opts->dst_mac, ETH_ALEN);
    memcpy(eth->h_source, opts->src_mac, ETH_ALEN);
    eth->h_proto = htons(ETH_P_IP);

    ip->version = 4;
    ip->ihl = sizeof *ip / 4;
    ip->tot_len = htons(len - sizeof *eth);
    ip->frag_off = htons(0x4000);   /* Don't fragment. */
    ip->ttl = 64;
    ip->protocol = IPPROTO_UDP;
    ip->saddr = opts->src_ip.s_addr;
    ip->daddr = opts->dst_ip.s_addr;
    ip->check = ipv4_checksum(ip);

    udp->source = htons(BENCH_FIRST_PORT);
    udp->dest = htons(AFXDP_BENCH_UDP_PORT);
    udp->len = htons(len - sizeof *eth - sizeof *ip);
    udp->check = 0;                 /* None: the generator changes ports. */
    return len;
}

/* Parses the options of "gen" (ARGV[0] is "gen") into 'opts'.  Returns
 * true on success, false after reporting a usage error. */
static bool
parse_gen_options(int argc, char *argv[], struct bench_gen_options *opts)
{
    static const struct option long_options[] = {
        {"size", required_argument, NULL, 's'},
        {"flows", required_argument, NULL, 'f'},
        {"duration", required_argument, NULL, 'd'},
        {"rate", required_argument, NULL, 'r'},
        {"batch", required_argument, NULL, 'b'},
        {"window", required_argument, NULL, 'w'},
        {"src-mac", required_argument, NULL, 'M'},
        {"dst-mac", required_argument, NULL, 'm'},
        {"src-ip", required_argument, NULL, 'I'},
        {"dst-ip", required_argument, NULL, 'i'},
        {NULL, 0, NULL, 0},
    };
    int idx = 0;
    bool ok;
    int c;

    memset(opts, 0, sizeof *opts);
    opts->size = 64;
    opts->flows = 1;
    opts->duration = 5;
    opts->batch = 64;
    parse_mac("02:00:00:00:00:01", opts->src_mac);
    parse_mac("02:00:00:00:00:02", opts->dst_mac);
    inet_pton(AF_INET, "10.250.0.1", &opts->src_ip);
    inet_pton(AF_INET, "10.250.0.2", &opts->dst_ip);

    optind = 1;
    while ((c = getopt_long(argc, argv, "", long_options, &idx)) != -1) {
        switch (c) {
        case 's':
            ok = parse_uint(optarg, BENCH_MIN_FRAME + 4,
                            AFXDP_BENCH_MAX_FRAME + 4, &opts->size);
            break;
        case 'f':
            ok = parse_uint(optarg, 1, 65536 - BENCH_FIRST_PORT,
                            &opts->flows);
            break;
        case 'd':
            ok = parse_double(optarg, 0.001, 86400, &opts->duration);
            break;
        case 'r':
            ok = parse_double(optarg, 0, 1e9, &opts->rate);
            break;
        case 'b':
            ok = parse_uint(optarg, 1, 256, &opts->batch);
            break;
        case 'w':
            ok = parse_window(optarg, opts);
            break;
        case 'M':
            ok = parse_mac(optarg, opts->src_mac);
            break;
        case 'm':
            ok = parse_mac(optarg, opts->dst_mac);
            break;
        case 'I':
            ok = inet_pton(AF_INET, optarg, &opts->src_ip) == 1;
            break;
        case 'i':
            ok = inet_pton(AF_INET, optarg, &opts->dst_ip) == 1;
            break;
        default:
            return false;
        }
        if (!ok) {
            fprintf(stderr, "%s: gen: invalid value '%s' for --%s "
                    "(see --help)\n", PROG, optarg, long_options[idx].name);
            return false;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "%s: gen needs exactly one device (see --help)\n",
                PROG);
        return false;
    }
    opts->dev = argv[optind];
    if (opts->window_to > opts->duration) {
        fprintf(stderr, "%s: gen: the window ends after the run\n", PROG);
        return false;
    }
    return true;
}

/* Runs the generator program FD on the template (FRAME, LEN) in
 * live-frames mode, out of IFINDEX, in batches of BATCH frames, until a
 * signal arrives (then returns EINTR) or BENCH_REPEAT runs are done (then
 * returns 0).  Returns a positive errno on failure. */
static int
gen_run(int fd, const uint8_t *frame, size_t len, unsigned int ifindex,
        unsigned int batch)
{
    struct xdp_md ctx_in = {
        .data_end = len,
        .ingress_ifindex = ifindex,
    };
    LIBBPF_OPTS(bpf_test_run_opts, topts,
        .data_in = frame,
        .data_size_in = len,
        .ctx_in = &ctx_in,
        .ctx_size_in = sizeof ctx_in,
        .repeat = BENCH_REPEAT,
        .flags = BPF_F_TEST_XDP_LIVE_FRAMES,
        .batch_size = batch,
    );
    int ret = bpf_prog_test_run_opts(fd, &topts);

    return ret < 0 ? -ret : 0;
}

/* Sends frames with gen_run() until a signal stops it.  Returns 0, or a
 * positive errno after saying what went wrong. */
static int
gen_send(int fd, const uint8_t *frame, size_t len, unsigned int ifindex,
         unsigned int batch)
{
    while (!stop_requested) {
        int error = gen_run(fd, frame, len, ifindex, batch);

        if (error == EINTR) {
            break;
        } else if (error) {
            report_error("BPF_PROG_TEST_RUN failed", error);
            if (error == EINVAL) {
                fprintf(stderr, "%s: (live frames need Linux 5.18 or "
                        "later)\n", PROG);
            }
            return error;
        }
    }
    return 0;
}

/* A measurement window inside a generator's run.  A thread of its own
 * samples the program's count of frames sent at the window's start and
 * end, while the main thread is inside BPF_PROG_TEST_RUN. */
struct bench_window {
    double from, to;            /* Seconds after 'start'. */
    double start;               /* now_seconds() at the run's start. */
    const __u64 *frames;        /* The program's 'frames_sent' (.bss). */
    uint64_t frames_from;       /* 'frames' at 'from'... */
    uint64_t frames_to;         /* ...and at 'to'. */
    double t_from, t_to;        /* now_seconds() when they were read. */
    bool done;                  /* Both samples taken. */
};

static void
sleep_until(double t)
{
    struct timespec ts;

    ts.tv_sec = t;
    ts.tv_nsec = (t - ts.tv_sec) * 1e9;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)
           == EINTR) {
        continue;
    }
}

static void *
window_main(void *w_)
{
    struct bench_window *w = w_;

    /* The program updates the counter with plain 8-byte stores, which
     * are atomic on the architectures the kernel runs BPF on. */
    sleep_until(w->start + w->from);
    w->frames_from = __atomic_load_n(w->frames, __ATOMIC_RELAXED);
    w->t_from = now_seconds();
    sleep_until(w->start + w->to);
    w->frames_to = __atomic_load_n(w->frames, __ATOMIC_RELAXED);
    w->t_to = now_seconds();
    /* Pairs with the acquire in window_finish(). */
    __atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
    return NULL;
}

/* Starts the thread of window W.  It blocks the signals that must reach
 * the main thread (SIGALRM, SIGINT, SIGTERM interrupt its test run).
 * Returns true on success, false after saying why not. */
static bool
window_start(struct bench_window *w, pthread_t *thread)
{
    sigset_t all, old;
    int error;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    error = pthread_create(thread, NULL, window_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (error) {
        report_error("pthread_create", error);
        return false;
    }
    return true;
}

/* Stops the thread of window W.  Returns true if it took both samples
 * (the run lasted long enough), false otherwise. */
static bool
window_stop(struct bench_window *w, pthread_t thread)
{
    /* Pairs with the release in window_main(). */
    bool done = __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);

    if (!done) {
        pthread_cancel(thread);
    }
    pthread_join(thread, NULL);
    return done;
}

/* "gen": sends for the time asked, paced when a rate was given, and
 * reports what the program sent.  Returns the exit status. */
static int
cmd_gen(int argc, char *argv[])
{
    struct bench_gen_options opts;
    struct afxdp_pktgen_bpf *skel;
    uint8_t frame[AFXDP_BENCH_MAX_FRAME];
    struct bench_window window;
    pthread_t window_thread;
    double start, elapsed;
    unsigned int ifindex;
    int status = 1;
    uint64_t sent;
    size_t len;
    int error;

    if (!parse_gen_options(argc, argv, &opts)) {
        return 2;
    }
    ifindex = dev_ifindex(opts.dev);
    if (!ifindex) {
        return 1;
    }
    len = build_template(&opts, frame);
    memset(&window, 0, sizeof window);

    /* libbpf says why through errno only, for a skeleton that fails to
     * open. */
    skel = afxdp_pktgen_bpf__open();
    if (!skel) {
        report_error("cannot open the generator program", errno);
        return 1;
    }
    skel->rodata->n_flows = opts.flows;
    skel->rodata->first_port = BENCH_FIRST_PORT;
    skel->rodata->ns_per_frame = opts.rate > 0 ? llround(1e9 / opts.rate) : 0;
    error = -afxdp_pktgen_bpf__load(skel);
    if (error) {
        report_error("cannot load the generator program", error);
        goto out;
    }

    /* The run ends with SIGALRM, which makes the test run in progress
     * return EINTR. */
    catch_stop_signals();
    if (!start_alarm(opts.duration)) {
        goto out;
    }
    start = now_seconds();
    window.from = opts.window_from;
    window.to = opts.window_to;
    window.start = start;
    window.frames = &skel->bss->frames_sent;
    if (window.to > 0 && !window_start(&window, &window_thread)) {
        window.to = 0;
        goto out;
    }
    if (gen_send(bpf_program__fd(skel->progs.afxdp_pktgen), frame, len,
                 ifindex, opts.batch)) {
        goto out;
    }
    elapsed = now_seconds() - start;
    sent = skel->bss->frames_sent;
    if (skel->bss->frames_bad) {
        fprintf(stderr, "%s: %"PRIu64" frames were too short (a bug)\n",
                PROG, (uint64_t) skel->bss->frames_bad);
    }
    printf("frames=%"PRIu64" seconds=%.3f mpps=%.3f", sent, elapsed,
           sent / elapsed / 1e6);
    if (window.to > 0 && window_stop(&window, window_thread)) {
        printf(" window_frames=%"PRIu64" window_seconds=%.3f",
               window.frames_to - window.frames_from,
               window.t_to - window.t_from);
    }
    window.to = 0;
    printf("\n");
    status = 0;

out:
    if (window.to > 0) {
        window_stop(&window, window_thread);
    }
    afxdp_pktgen_bpf__destroy(skel);
    return status;
}

/* Attaches PROG to IFINDEX (DEV) through a BPF link, in the driver's mode
 * where the device has one.  Returns the link, or NULL after saying why. */
static struct bpf_link *
attach_xdp(const struct bpf_program *prog, unsigned int ifindex,
           const char *dev)
{
    struct bpf_link *link = bpf_program__attach_xdp(prog, ifindex);

    if (!link) {
        char what[128];

        /* As for skeletons, only errno says why. */
        snprintf(what, sizeof what, "%s: cannot attach XDP program", dev);
        report_error(what, errno);
    }
    return link;
}

/* Sums the per-CPU values of the sink's counter MAP into '*total'.
 * Returns 0 or a positive errno. */
static int
sink_read(const struct bpf_map *map, struct afxdp_sink_count *total)
{
    /* Room for the values of every possible CPU (this program has no
     * allocator of its own; OVS style keeps malloc() out). */
    static struct afxdp_sink_count values[BENCH_MAX_CPUS];
    int n_cpus = libbpf_num_possible_cpus();
    uint32_t key = 0;
    int error;
    int i;

    if (n_cpus < 0) {
        return -n_cpus;
    } else if (n_cpus > BENCH_MAX_CPUS) {
        return E2BIG;
    }
    error = -bpf_map__lookup_elem(map, &key, sizeof key, values,
                                  n_cpus * sizeof values[0], 0);
    memset(total, 0, sizeof *total);
    for (i = 0; !error && i < n_cpus; i++) {
        total->packets += values[i].packets;
        total->bytes += values[i].bytes;
    }
    return error;
}

/* "sink": see the top of the file.  Returns the exit status. */
static int
cmd_sink(int argc, char *argv[])
{
    struct afxdp_sink_bpf *skel;
    struct bpf_link *link = NULL;
    unsigned int ifindex;
    char line[64];
    int status = 1;
    int error;

    if (argc != 2) {
        fprintf(stderr, "%s: sink needs exactly one device\n", PROG);
        return 2;
    }
    ifindex = dev_ifindex(argv[1]);
    if (!ifindex) {
        return 1;
    }
    skel = afxdp_sink_bpf__open();
    if (!skel) {
        report_error("cannot open the sink program", errno);
        return 1;
    }
    error = -afxdp_sink_bpf__load(skel);
    if (error) {
        report_error("cannot load the sink program", error);
        goto out;
    }
    link = attach_xdp(skel->progs.afxdp_sink, ifindex, argv[1]);
    if (!link) {
        goto out;
    }
    printf("ready\n");
    fflush(stdout);

    while (fgets(line, sizeof line, stdin)) {
        struct afxdp_sink_count total;

        error = sink_read(skel->maps.sink_counts, &total);
        if (error) {
            report_error("cannot read the sink's counters", error);
            goto out;
        }
        printf("packets=%"PRIu64" bytes=%"PRIu64"\n",
               (uint64_t) total.packets, (uint64_t) total.bytes);
        fflush(stdout);
    }
    status = 0;

out:
    bpf_link__destroy(link);
    afxdp_sink_bpf__destroy(skel);
    return status;
}

/* "redirect": see the top of the file.  Returns the exit status. */
static int
cmd_redirect(int argc, char *argv[])
{
    struct bpf_link *links[2] = { NULL, NULL };
    struct afxdp_redirect_bpf *skel;
    unsigned int ifindex[2];
    char line[64];
    int status = 1;
    int error;
    int i;

    if (argc != 3) {
        fprintf(stderr, "%s: redirect needs exactly two devices\n", PROG);
        return 2;
    }
    for (i = 0; i < 2; i++) {
        ifindex[i] = dev_ifindex(argv[i + 1]);
        if (!ifindex[i]) {
            return 1;
        }
    }
    skel = afxdp_redirect_bpf__open();
    if (!skel) {
        report_error("cannot open the redirect program", errno);
        return 1;
    }
    error = -afxdp_redirect_bpf__load(skel);
    if (error) {
        report_error("cannot load the redirect program", error);
        goto out;
    }
    for (i = 0; i < 2; i++) {
        uint32_t in = ifindex[i], out = ifindex[1 - i];

        error = -bpf_map__update_elem(skel->maps.redirect_ports, &in,
                                      sizeof in, &out, sizeof out, BPF_ANY);
        if (error) {
            report_error("cannot fill the redirect map", error);
            goto out;
        }
    }
    for (i = 0; i < 2; i++) {
        links[i] = attach_xdp(skel->progs.afxdp_redirect, ifindex[i],
                              argv[i + 1]);
        if (!links[i]) {
            goto out;
        }
    }
    printf("ready\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        continue;
    }
    status = 0;

out:
    for (i = 0; i < 2; i++) {
        bpf_link__destroy(links[i]);
    }
    afxdp_redirect_bpf__destroy(skel);
    return status;
}

int
main(int argc, char *argv[])
{
    if (argc < 2) {
        usage();
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage();
        return 0;
    }
    if (!strcmp(argv[1], "gen")) {
        return cmd_gen(argc - 1, argv + 1);
    } else if (!strcmp(argv[1], "sink")) {
        return cmd_sink(argc - 1, argv + 1);
    } else if (!strcmp(argv[1], "redirect")) {
        return cmd_redirect(argc - 1, argv + 1);
    }
    fprintf(stderr, "%s: unknown command '%s' (see --help)\n", PROG,
            argv[1]);
    return 2;
}
