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

#ifndef AFXDP_XDP_H
#define AFXDP_XDP_H 1

/* Our XDP program on one network device.
 *
 * The program (bpf/afxdp.bpf.c, built by clang and embedded through a
 * bpftool-generated skeleton) redirects each frame to the AF_XDP socket
 * bound to the frame's rx queue through an XSKMAP, and passes the frame to
 * the kernel stack when no socket is bound there.  It is loaded and attached
 * through libxdp.  When libxdp cannot build its multi-program dispatcher
 * (freplace is refused on some kernels), libxdp attaches our program alone;
 * that is not an error, and afxdp_xdp_attach_desc() says which way it went.
 * When libxdp cannot attach it at all, for whatever reason (e.g. libxdp's
 * own BPF objects, xdp-dispatcher.o, are not installed where it looks:
 * its library directory's bpf/ or $LIBXDP_OBJECT_PATH), we load it with
 * libbpf and attach it through a BPF link, which the kernel removes when
 * the process exits, however it exits.  Nothing here needs libxdp's BPF
 * objects then.
 *
 * Threading: every function here is control path.  They may allocate, log
 * and make syscalls, and must not be called from a PMD's receive or send
 * path.  An 'struct afxdp_xdp' is owned by one port; the caller serializes
 * calls on it (the port's mutex).
 *
 * Order of calls for one port: afxdp_xdp_attach(), then for each rx queue
 * create and bind the AF_XDP socket and afxdp_xdp_set_xsk(); on the way
 * down afxdp_xdp_clear_xsk() before closing each socket, then
 * afxdp_xdp_detach().  Sockets made with libxdp's xsk_socket__create() must
 * use XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD, or libxdp attaches a program of
 * its own that collides with ours (and needs its xsk_def_xdp_prog.o).
 *
 * bpffs: libxdp keeps its dispatcher state under /sys/fs/bpf/xdp.  Without
 * a bpffs there it cannot use the dispatcher and attaches our program alone,
 * as when the kernel refuses the dispatcher.
 *
 * XDP hints (afxdp_xdp_attach_ex()): the program can write a receive
 * timestamp, the device's rx hash and VLAN tag in front of each frame it
 * redirects, in a layout described by the program's BTF (bpf/afxdp-hints.h;
 * lib/xdp-hints.h decodes it, from afxdp_xdp_btf()).  Only a device-bound
 * program (loaded for this one device) may ask the driver for that
 * metadata, and it attaches only in native mode and not through libxdp, so
 * in native mode with 'dev_bound' we load and attach it with libbpf alone;
 * when the kernel or the driver refuses, we fall back to the ordinary
 * program, which takes the timestamp from the kernel's clock and has no
 * hash, and afxdp_xdp_hints_desc() says why.
 *
 * Logging: errors are returned, not logged above DBG, so that the caller can
 * fall back (e.g. from native to generic) without a warning in the log.
 * libbpf and libxdp messages go to this module's log, their warnings at INFO:
 * expect a few such INFO lines when libxdp probes for its dispatcher and
 * falls back. */

#include <stdbool.h>
#include <stdint.h>

#include "bpf/afxdp-flow.h"
#include "bpf/afxdp-hints.h"
#include "bpf/afxdp-shared.h"

struct afxdp_xdp;
struct btf;

/* Where the program runs. */
enum afxdp_xdp_mode {
    AFXDP_XDP_NATIVE,           /* In the driver (XDP_FLAGS_DRV_MODE). */
    AFXDP_XDP_GENERIC,          /* On skbs (XDP_FLAGS_SKB_MODE). */
};

/* Sums over all CPUs of the program's counters (see afxdp-shared.h). */
struct afxdp_xdp_stats {
    uint64_t counters[AFXDP_PROG_N_COUNTERS];
};

/* One-time set-up: routes libbpf and libxdp messages to this module's vlog
 * (their warnings at INFO, the rest at DBG, so that expected fallbacks do
 * not read as OVS warnings).  Safe to call more than once. */
void afxdp_xdp_init(void);

/* Loads our program and attaches it to the device 'devname' (index
 * 'ifindex') in 'mode'.  A program of ours left behind on that device by a
 * previous ovs-vswitchd (same program name) is detached first and logged at
 * INFO.  A foreign program already attached in a way that prevents ours is
 * an error.
 *
 * On success returns 0 and stores the new handle in '*xdpp' (owned by the
 * caller, release with afxdp_xdp_detach()).  On failure returns a positive
 * errno, stores NULL in '*xdpp' and, if 'errp' is nonnull, stores in '*errp'
 * a malloc'd message that starts with 'devname' and says what failed (the
 * caller frees it). */
int afxdp_xdp_attach(const char *devname, int ifindex,
                     enum afxdp_xdp_mode mode, struct afxdp_xdp **xdpp,
                     char **errp);

/* Options of afxdp_xdp_attach_ex().  Zero-initialized means "as
 * afxdp_xdp_attach()". */
struct afxdp_xdp_opts {
    enum xdp_hints_mode hints;  /* Metadata to write in front of frames. */
    bool dev_bound;             /* With hints, in native mode: load the
                                 * program device-bound, so that it gets
                                 * the driver's timestamp and hash; falls
                                 * back to the ordinary program. */
    bool offload;               /* With the lookup in offloaded flows and
                                 * full-size flow maps; without, the
                                 * program loads in a fraction of the time
                                 * and its flow maps have one entry each
                                 * (afxdp_xdp_flow_maps() must not be used
                                 * then). */
};

/* Like afxdp_xdp_attach(), with options 'opts' (NULL for the defaults).
 * A refused device-bound program is not an error: the ordinary program is
 * attached instead, the reason is logged at INFO and shows in
 * afxdp_xdp_hints_desc(). */
int afxdp_xdp_attach_ex(const char *devname, int ifindex,
                        enum afxdp_xdp_mode mode,
                        const struct afxdp_xdp_opts *opts,
                        struct afxdp_xdp **xdpp, char **errp);

/* Whether 'xdp''s program looks frames up in offloaded flows
 * (afxdp_xdp_opts.offload). */
bool afxdp_xdp_has_offload(const struct afxdp_xdp *xdp);

/* Detaches the program from its device, closes it and frees 'xdp'.  Safe on
 * NULL.  Never fails loudly: a device that is already gone is fine. */
void afxdp_xdp_detach(struct afxdp_xdp *xdp);

/* Makes frames arriving on rx queue 'queue_id' go to the AF_XDP socket
 * 'xsk_fd' (updates the XSKMAP).  The socket must already be bound to that
 * queue of this device.  The map holds its own reference to the socket, so
 * clear the entry when the socket goes away.  Returns 0 or a positive errno
 * (EINVAL if 'queue_id' >= AFXDP_MAX_QUEUES; the kernel's error, e.g.
 * ENOTSOCK or EOPNOTSUPP, for a descriptor that is not a bound AF_XDP
 * socket).  Logs nothing. */
int afxdp_xdp_set_xsk(struct afxdp_xdp *xdp, uint32_t queue_id, int xsk_fd);

/* Removes any socket from rx queue 'queue_id' in the XSKMAP; frames on that
 * queue then go to the kernel stack.  Returns 0 or a positive errno (EINVAL
 * if 'queue_id' >= AFXDP_MAX_QUEUES); a queue that had no socket is not an
 * error. */
int afxdp_xdp_clear_xsk(struct afxdp_xdp *xdp, uint32_t queue_id);

/* Mode the program is attached in. */
enum afxdp_xdp_mode afxdp_xdp_get_mode(const struct afxdp_xdp *xdp);

/* Human-readable description of how the program is attached, for status:
 * "libxdp dispatcher", "single program (libxdp dispatcher unavailable)",
 * "single program, device-bound (attached by libbpf)" or "single program,
 * libbpf link (libxdp could not attach it: REASON)".  Owned by 'xdp',
 * valid until it is detached; never NULL. */
const char *afxdp_xdp_attach_desc(const struct afxdp_xdp *xdp);

/* Hints the program writes (XDP_HINTS_OFF if none). */
enum xdp_hints_mode afxdp_xdp_hints_mode(const struct afxdp_xdp *xdp);

/* True if the program in effect is device-bound, i.e. asks the driver for
 * timestamps and hashes. */
bool afxdp_xdp_is_dev_bound(const struct afxdp_xdp *xdp);

/* Human-readable description of the hints in effect and where their values
 * come from, for status, e.g. "off", "kernel clock, flow hash computed in
 * XDP (generic XDP)", "kernel clock only (device-bound program refused:
 * Invalid argument)" (xdp-hints=ts) or
 * "driver metadata where given, else kernel clock (device-bound; driver
 * implements timestamp, hash, vlan-tag)".  Owned by 'xdp', valid until it
 * is detached; never NULL.  Which fields a frame really carries is in the
 * flags of its hints. */
const char *afxdp_xdp_hints_desc(const struct afxdp_xdp *xdp);

/* The loaded program's BTF, in which the hints' btf_id is a type id: give
 * it to xdp_hints_decoder_create().  Owned by 'xdp' (the BPF object),
 * valid until it is detached; never NULL after a successful attach. */
const struct btf *afxdp_xdp_btf(const struct afxdp_xdp *xdp);

/* The program's flow offload maps (bpf/afxdp-flow.h): file descriptors
 * owned by 'xdp', valid until it is detached.  lib/afxdp-offload.c is the
 * only writer. */
struct afxdp_xdp_flow_maps {
    int masks_fd;               /* 'afxdp_flow_masks': struct
                                 * afxdp_flow_masks at key 0. */
    int flows_fd;               /* 'afxdp_flows': struct
                                 * afxdp_flow_entry by flow id. */
    int flow_stats_fd;          /* 'afxdp_flow_stats': per-CPU struct
                                 * afxdp_flow_counts by flow id. */
    int buckets_fd;             /* 'afxdp_flow_buckets': struct
                                 * afxdp_flow_bucket. */
    int egress_fd;              /* 'afxdp_egress': devmap by ifindex. */
    int mask_hits_fd;           /* 'afxdp_mask_hits': per-CPU hits per
                                 * mask slot. */
};
void afxdp_xdp_flow_maps(const struct afxdp_xdp *,
                         struct afxdp_xdp_flow_maps *);

/* Kernel id of the loaded program (for status and tests).  When it is
 * attached alone (by libxdp or by libbpf), this is the id 'ip link' shows
 * on the device; inside the dispatcher, 'ip link' shows the dispatcher's id
 * instead. */
/* The program's ingress policing map (bpf/afxdp-police.h), owned by it. */
int afxdp_xdp_police_fd(const struct afxdp_xdp *);

uint32_t afxdp_xdp_prog_id(const struct afxdp_xdp *xdp);

/* Reads the program's per-CPU counters summed over CPUs into '*stats'.
 * Returns 0 or a positive errno (then '*stats' is zeroed). */
int afxdp_xdp_get_stats(const struct afxdp_xdp *xdp,
                        struct afxdp_xdp_stats *stats);

/* Name of counter 'idx' for custom statistics, e.g. "xdp_redirected". */
const char *afxdp_xdp_counter_name(enum afxdp_prog_counter idx);

/* Detaches every XDP program of ours from 'ifindex' without a handle: used
 * from the fatal-signal hook and when a dead daemon left one behind.  Looks
 * at both the native and the generic slot, and inside a libxdp dispatcher;
 * a program is ours if its kernel name is our program's, and anything else
 * is left alone.  Returns the number of programs removed (0 also when the
 * device does not exist).  Both of our programs count (afxdp_ovs_redir and
 * the device-bound afxdp_ovs_dev).  A program attached through a BPF link
 * cannot be detached this way and is left (its link goes when the process
 * that holds it exits).  Logs only at DBG.  Must be async-safe enough for
 * OVS's fatal_signal hooks (no locks of ours). */
int afxdp_xdp_remove_ours(int ifindex);

#endif /* afxdp-xdp.h */
