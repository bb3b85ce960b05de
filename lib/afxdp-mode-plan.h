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

#ifndef AFXDP_MODE_PLAN_H
#define AFXDP_MODE_PLAN_H 1

#include <stdbool.h>
#include <stddef.h>

#include "afxdp-mode.h"
#include "afxdp-xdp.h"

/* Where a port tries to run our XDP program, in order, for the mode it was
 * asked for, and why (pure logic).
 *
 * An explicit mode is tried alone.  best-effort, the default, picks per
 * device:
 *
 *   - a veth: generic XDP first, then native.  Native XDP on a veth makes
 *     the kernel take TSO and GSO away from the veth's peer (the
 *     container's end), so every TCP segment of the container crosses the
 *     PMD as its own frame; generic XDP leaves the peer its offloads, and
 *     a 64 kB GSO packet reaches the port whole (multi-buffer).  No veth
 *     has zero-copy, so native would only ever be native copy mode.
 *   - any other device (a NIC): native first, zero-copy where the driver
 *     has it, then generic where the driver has no native XDP.
 *
 * The choice is made at each open (a reconfiguration after a device came
 * back included), from what the device is then. */

struct afxdp_mode_plan {
    enum afxdp_mode requested;      /* options:xdp-mode. */
    bool veth;                      /* The device is a veth. */
    enum afxdp_xdp_mode modes[2];   /* Where to attach, in order. */
    size_t n_modes;                 /* Entries used in 'modes'. */
};

/* Fills '*plan' for a port asking for 'requested' on a device that is a
 * veth if 'veth'. */
void afxdp_mode_plan_make(enum afxdp_mode requested, bool veth,
                          struct afxdp_mode_plan *plan);

/* Returns why the port of 'plan' runs its program in 'in_use' (for status
 * key "xdp-mode-reason"): a static string. */
const char *afxdp_mode_plan_reason(const struct afxdp_mode_plan *plan,
                                   enum afxdp_xdp_mode in_use);

#endif /* afxdp-mode-plan.h */
