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

#ifndef AFXDP_OFFLOAD_MARKS_H
#define AFXDP_OFFLOAD_MARKS_H 1

/* The marks that a port's XDP program writes into the hints of the frames
 * of partially offloaded flows, and the OVS flow marks they stand for.
 *
 * A frame can wait in an AF_XDP rx ring for as long as the PMD does not
 * poll it, while OVS deletes its megaflow and hands the same flow mark to
 * another megaflow; OVS takes a frame's mark for its flow without a second
 * look at the frame, so a stale mark would run another flow's actions.  So
 * the program never writes OVS's mark: it writes a serial number that
 * this module gives the flow each time it goes into the program, never
 * given twice (until 2^32 installs wrap it), and the receive path
 * translates it back.  A frame whose serial is gone (its flow left the
 * program) gets no mark, and OVS classifies it as any other frame.
 *
 * Threads: the offload's writers (add, remove) hold the port's offload
 * mutex; the receive path looks serials up without a lock (RCU). */

#include <stdbool.h>
#include <stdint.h>

struct afxdp_offload_marks;

struct afxdp_offload_marks *afxdp_offload_marks_create(void);
void afxdp_offload_marks_destroy(struct afxdp_offload_marks *);

uint32_t afxdp_offload_marks_add(struct afxdp_offload_marks *,
                                 uint32_t ovs_mark);
void afxdp_offload_marks_remove(struct afxdp_offload_marks *,
                                uint32_t serial);
void afxdp_offload_marks_set_next(struct afxdp_offload_marks *,
                                  uint32_t serial);
bool afxdp_offload_marks_any(const struct afxdp_offload_marks *);
bool afxdp_offload_marks_lookup(const struct afxdp_offload_marks *,
                                uint32_t serial, uint32_t *ovs_mark);

#endif /* afxdp-offload-marks.h */
