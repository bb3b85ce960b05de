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

#ifndef NETDEV_AFXDP_H
#define NETDEV_AFXDP_H 1

/* The afxdp netdev provider: OVS's entry points.
 *
 * lib/netdev-linux.c builds the "afxdp" and "afxdp-nonpmd" classes from the
 * functions declared here (its NETDEV_AFXDP_CLASS_COMMON), lib/netdev.c
 * registers them and lib/dp-packet.c calls free_afxdp_buf() for every
 * dp_packet whose memory is a UMEM frame.  These declarations are that
 * interface; the implementation is ours (lib/netdev-afxdp.c and the
 * lib/afxdp-*.c modules it uses).
 *
 * Calling contexts, as lib/netdev-provider.h defines them:
 *   - init, construct, destruct, set_config, get_config, reconfigure,
 *     get_stats, get_custom_stats: main thread (control path);
 *   - rxq_recv: the PMD (or main) thread that polls that rx queue;
 *   - batch_send: any thread with a tx queue id; 'concurrent_txq' says
 *     whether another thread may use the same queue id at the same time;
 *   - free_afxdp_buf: any thread that frees a dp_packet. */

#ifdef HAVE_AF_XDP

#include <stdint.h>
#include <stdbool.h>

#include "afxdp-mode.h"

struct dp_packet;
struct dp_packet_batch;
struct netdev;
struct netdev_afxdp_tx_lock;
struct netdev_custom_stats;
struct netdev_rxq;
struct netdev_stats;
struct smap;

int netdev_afxdp_init(void);
int netdev_afxdp_construct(struct netdev *);
void netdev_afxdp_destruct(struct netdev *);
int netdev_afxdp_verify_mtu_size(const struct netdev *, int mtu);

int netdev_afxdp_rxq_construct(struct netdev_rxq *);
void netdev_afxdp_rxq_destruct(struct netdev_rxq *);
int netdev_afxdp_rxq_recv(struct netdev_rxq *, struct dp_packet_batch *,
                          int *qfill);
int netdev_afxdp_batch_send(struct netdev *, int qid,
                            struct dp_packet_batch *, bool concurrent_txq);

int netdev_afxdp_set_config(struct netdev *, const struct smap *args,
                            char **errp);
int netdev_afxdp_get_config(const struct netdev *, struct smap *args);
int netdev_afxdp_reconfigure(struct netdev *);
int netdev_afxdp_get_stats(const struct netdev *, struct netdev_stats *);
int netdev_afxdp_get_custom_stats(const struct netdev *,
                                  struct netdev_custom_stats *);
int netdev_afxdp_get_status(const struct netdev *, struct smap *);
int netdev_afxdp_set_policing(struct netdev *, uint32_t kbits_rate,
                              uint32_t kbits_burst, uint32_t kpkts_rate,
                              uint32_t kpkts_burst);

/* Egress QoS (lib/afxdp-qos.c): the egress-policer type. */
struct netdev_qos_capabilities;
struct sset;
int netdev_afxdp_get_qos_types(const struct netdev *, struct sset *types);
int netdev_afxdp_get_qos_capabilities(const struct netdev *,
                                      const char *type,
                                      struct netdev_qos_capabilities *);
int netdev_afxdp_get_qos(const struct netdev *, const char **typep,
                         struct smap *details);
int netdev_afxdp_set_qos(struct netdev *, const char *type,
                         const struct smap *details);

void free_afxdp_buf(struct dp_packet *);
void signal_remove_xdp(struct netdev *);

#else /* !HAVE_AF_XDP */

#include "openvswitch/compiler.h"

struct dp_packet;

static inline void
free_afxdp_buf(struct dp_packet *p OVS_UNUSED)
{
    /* Built without AF_XDP: no dp_packet can come from a UMEM. */
}

#endif /* HAVE_AF_XDP */
#endif /* netdev-afxdp.h */
