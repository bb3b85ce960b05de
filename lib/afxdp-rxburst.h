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

#ifndef AFXDP_RXBURST_H
#define AFXDP_RXBURST_H 1

/* What a burst just taken from an rx ring gets before OVS sees it, in this
 * order:
 *   1. trains merged (afxdp-rxgro.h, "Trains"): a frame longer than the
 *      device's MTU, Ethernet and two VLAN tags may be one, whatever
 *      options:rx-gro says (its bytes are no packet for OVS as they are);
 *   2. pseudo-header-only checksums marked partial or finished, if
 *      options:rx-checksum-partial says so (afxdp-rxcsum.h);
 *   3. runs of TCP segments merged, if options:rx-gro says so
 *      (afxdp-rxgro.h), when at least two packets may take part.
 * Each counted in the queue's counters.  Called by the queue's owner. */

#include <stddef.h>
#include <stdint.h>

struct afxdp_queue;
struct dp_packet_batch;

/* Finishes the packets of 'batch' from its 'first'th on, of which 'n_big'
 * are at least AFXDP_RXGRO_MIN_LEN bytes long, just received on 'q'. */
void afxdp_rxburst_finish(struct afxdp_queue *, struct dp_packet_batch *,
                          size_t first, uint32_t n_big);

#endif /* afxdp-rxburst.h */
