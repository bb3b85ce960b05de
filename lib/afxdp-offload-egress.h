/* SPDX-License-Identifier: Apache-2.0 */

#ifndef AFXDP_OFFLOAD_EGRESS_H
#define AFXDP_OFFLOAD_EGRESS_H 1

/* Flow offload: the egress devices of the flows that a port's XDP program
 * redirects, and whether each takes the frames redirected to it.
 *
 * The devmap.  A port's program redirects the frames of a fully offloaded
 * flow through its devmap, which holds each egress device that some flow
 * of the port uses.  'struct afxdp_offload_egress_set' keeps those
 * devices, counts the flows of each, and takes a device out of the devmap
 * only a grace period after its last flow left (afxdp-flow-table.h), as
 * mask slots and flow ids are.
 *
 * Which devices take redirected frames.  A native program hands a frame to
 * the egress device's ndo_xdp_xmit; a veth's drops it unless the veth's
 * peer runs NAPI (has an XDP program or GRO on), and Linux counts those
 * drops nowhere a switch can see.  The kernel says so in the device's XDP
 * features (no ndo_xmit; afxdp-xdp-features.h), which decide first
 * (afxdp_offload_egress_takes()), and announces their changes, which this
 * module hands to the offload core (afxdp_offload_egress_init()).  As a
 * second line of defence (the only one before Linux 6.3, whose kernels do
 * not say), offloaded flows that output to a veth are watched: when one of
 * them redirected AFXDP_OFFLOAD_EGRESS_PROBE frames and the veth took none
 * (its tx_queue_N_xdp_xmit statistics did not move), the device is found
 * dropping them (afxdp_offload_egress_drops()) and remembered as such
 * (afxdp_offload_egress_mark_broken()) until the kernel says it takes them
 * or it leaves OVS (afxdp_offload_egress_forget()).  Only the flows of
 * ports whose program runs in the driver are watched: generic XDP
 * redirects skbs, which the veth transmits as any other (not counted as
 * XDP transmits), whatever its peer runs.
 *
 * Threads and locks.  An egress set and the probes are the caller's, under
 * the lock that guards the port's offload state.  The devices found
 * dropping are global, under a leaf lock of this module (nothing else is
 * taken while it is held); every function but afxdp_offload_egress_set_*,
 * _ref, _unref, _reap, _probe_start and _drops may be called from any
 * thread without locks. */

#include <stdbool.h>
#include <stdint.h>

#include "openvswitch/hmap.h"

struct smap;

/* The egress devices of one port's program. */
struct afxdp_offload_egress_set {
    struct hmap devices;        /* Of this module, by ifindex. */
};

/* What a flow to a veth had done at the last check of its egress. */
struct afxdp_offload_egress_probe {
    uint64_t packets;           /* The flow's packets... */
    uint64_t xmit;              /* ...and its egress' frames taken. */
};

void afxdp_offload_egress_set_init(struct afxdp_offload_egress_set *);
void afxdp_offload_egress_set_destroy(struct afxdp_offload_egress_set *);

/* Forgets every device of 'set' without touching a devmap: the program
 * whose devmap it was is going. */
void afxdp_offload_egress_set_clear(struct afxdp_offload_egress_set *);

/* Takes a reference to device 'ifindex' for a flow, putting it in the
 * devmap 'devmap_fd' if it had none.  Returns 0, EAGAIN if the devmap is
 * full but entries without flows leave it after a grace period, or another
 * errno. */
int afxdp_offload_egress_ref(struct afxdp_offload_egress_set *,
                             int devmap_fd, int ifindex);

/* Drops a flow's reference to 'ifindex'.  The last one does not take the
 * entry out of the devmap at once: the program may be running with the
 * flow entry that was just removed, about to redirect a frame to it, and
 * a flow modified (removed, then added with the same egress) must not
 * drop the frames in flight.  The entry goes after a grace period
 * (afxdp_offload_egress_reap()). */
void afxdp_offload_egress_unref(struct afxdp_offload_egress_set *,
                                int ifindex);

/* Takes out of the devmap 'devmap_fd' (-1 for none: the program is gone)
 * the devices that no flow used during a whole grace period. */
void afxdp_offload_egress_reap(struct afxdp_offload_egress_set *,
                               int devmap_fd);

/* Starts the watch of a flow just installed with egress 'ifindex' (0 for
 * none) in 'set'. */
void afxdp_offload_egress_probe_start(const struct afxdp_offload_egress_set *,
                                      int ifindex,
                                      struct afxdp_offload_egress_probe *);

/* For an installed flow of a native program that outputs to 'ifindex' and
 * has redirected 'packets' frames so far: returns true if 'ifindex' is a
 * veth that took none of the last AFXDP_OFFLOAD_EGRESS_PROBE or more.  The
 * caller then calls afxdp_offload_egress_mark_broken(). */
bool afxdp_offload_egress_drops(struct afxdp_offload_egress_set *,
                                int ifindex,
                                struct afxdp_offload_egress_probe *,
                                uint64_t packets);

/* Remembers that device 'ifindex', named 'name', drops redirected frames;
 * returns false if it already was. */
bool afxdp_offload_egress_mark_broken(int ifindex, const char *name);

/* Forgets what afxdp_offload_egress_mark_broken() found about 'ifindex'. */
void afxdp_offload_egress_forget(int ifindex);

/* True if device 'ifindex' takes the frames that a native program
 * redirects to it, as far as we know: the kernel says its ndo_xdp_xmit
 * works now or cannot say, and our counters did not find it dropping
 * them. */
bool afxdp_offload_egress_takes(int ifindex);

/* True if the kernel says that the ndo_xdp_xmit of device 'ifindex' takes
 * no multi-buffer frames (jumbo frames would be dropped there). */
bool afxdp_offload_egress_single_buffer(int ifindex);

/* Asks the kernel now, if it must, about device 'ifindex', so that the
 * functions above need not ask it later, under the caller's locks. */
void afxdp_offload_egress_ask(int ifindex);

/* Adds "xdp-offload-egress" to 'smap' when the port on device 'ifindex'
 * drops the frames other ports' flows redirect to it: as the kernel's XDP
 * features of the device say, or as our counters found. */
void afxdp_offload_egress_status(int ifindex, struct smap *);

/* Device 'ifindex' has a new status: tells OVS, so that the database
 * shows it.  Takes OVS's netdev registry lock: call it without any lock
 * of the offload (a netdev's destruction takes them under that lock). */
void afxdp_offload_egress_changed(int ifindex);

/* Called when the kernel says that device 'ifindex' started ('takes') or
 * stopped taking redirected frames, or multi-buffer ones, from
 * afxdp-xdp-features' thread, without locks; the device's status changes
 * (afxdp_offload_egress_changed()) once it returns. */
typedef void afxdp_offload_egress_moved_cb(int ifindex, bool takes);

/* Starts following the devices' XDP features (afxdp-xdp-features.h) and
 * calls 'cb' on each change.  Once, in the main thread. */
void afxdp_offload_egress_init(afxdp_offload_egress_moved_cb *cb);

#endif /* afxdp-offload-egress.h */
