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

#include <config.h>

#include "afxdp-mode-plan.h"

void
afxdp_mode_plan_make(enum afxdp_mode requested, bool veth,
                     struct afxdp_mode_plan *plan)
{
    plan->requested = requested;
    plan->veth = veth;
    switch (requested) {
    case AFXDP_MODE_NATIVE_ZC:
    case AFXDP_MODE_NATIVE:
        plan->modes[0] = AFXDP_XDP_NATIVE;
        plan->n_modes = 1;
        break;
    case AFXDP_MODE_GENERIC:
        plan->modes[0] = AFXDP_XDP_GENERIC;
        plan->n_modes = 1;
        break;
    case AFXDP_MODE_BEST_EFFORT:
    case AFXDP_MODE_UNSPEC:
    case AFXDP_MODE_MAX:
    default:
        plan->modes[0] = veth ? AFXDP_XDP_GENERIC : AFXDP_XDP_NATIVE;
        plan->modes[1] = veth ? AFXDP_XDP_NATIVE : AFXDP_XDP_GENERIC;
        plan->n_modes = 2;
        break;
    }
}

const char *
afxdp_mode_plan_reason(const struct afxdp_mode_plan *plan,
                       enum afxdp_xdp_mode in_use)
{
    bool generic = in_use == AFXDP_XDP_GENERIC;

    if (plan->n_modes == 1) {
        return "requested by options:xdp-mode";
    } else if (plan->veth) {
        return (generic
                ? "veth: generic XDP keeps the peer's TSO and GSO packets "
                  "whole (native XDP on a veth turns them off)"
                : "veth: generic XDP failed; native XDP turns the peer's "
                  "TSO and GSO off");
    } else {
        return (generic
                ? "the driver has no native XDP"
                : "native XDP, zero-copy where the driver has it");
    }
}
