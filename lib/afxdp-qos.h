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

#ifndef AFXDP_QOS_H
#define AFXDP_QOS_H 1

/* The limits of an afxdp port.  Ingress policing is the XDP program's
 * (lib/afxdp-police.h); this module gives the afxdp classes their
 * set_policing, which hands the limits to it, and their egress QoS.
 *
 * Egress QoS of an afxdp port: the Port's QoS record, through our class's
 * set_qos (patches/common/netdev-linux-afxdp-qos.patch).  One type, as
 * OVS's DPDK ports have it: "egress-policer", a limit on what the port
 * sends, other_config:cir (Committed Information Rate, bytes a second of
 * the packets less their Ethernet header) and other_config:cbs (Committed
 * Burst Size, bytes).  It is enforced in the send path, one meter for the
 * whole port whatever the tx queue (bpf/afxdp-police.h's GCRA, under a
 * spin lock), dropped packets counted as tx_qos_drops.  A packet passes
 * while the meter holds no more than the burst, and then adds its length:
 * a TCP packet sent whole (64 kB, more than a small burst) passes an empty
 * meter, and the packets after it wait for its debt to drain.
 *
 * Frames that offloaded flows redirect in XDP never reach the send path:
 * while a port polices its egress, flows of other ports to it stay on the
 * PMD (lib/afxdp-offload.c asks afxdp_port_egress_policed()).
 *
 * Other QoS types (OVS's Linux ones install a tc qdisc, which AF_XDP's
 * transmit bypasses; trtcm-policer) and bad settings are refused: an error
 * in the log once and in the Interface's status key "qos", never a limit
 * silently ignored. */

#include <stdbool.h>
#include <stdint.h>

#include "bpf/afxdp-police.h"
#include "openvswitch/thread.h"
#include "ovs-atomic.h"
#include "smap.h"

struct afxdp_clock;
struct dp_packet_batch;
struct sset;

#define AFXDP_QOS_EGRESS_POLICER "egress-policer"

/* The largest settings: a rate of 80 Gbit/s, a burst of 4 GB (the meter's
 * arithmetic stays within 64 bits, see afxdp_police_meter()). */
#define AFXDP_QOS_CIR_MAX 10000000000ULL
#define AFXDP_QOS_CBS_MAX 4294967295ULL

struct afxdp_qos_config {
    uint64_t cir;       /* Bytes a second; 0: no limit. */
    uint64_t cbs;       /* Bytes. */
};

/* Parses QoS 'type' and its 'details' (the QoS record's other_config)
 * into '*c' (pure logic).  "" is no QoS.  Returns 0, or a positive errno
 * with '*errp' set to a message (free it) that names the setting and what
 * is accepted. */
int afxdp_qos_parse(const char *type, const struct smap *details,
                    struct afxdp_qos_config *c, char **errp);

/* The meter of 'c' (cir > 0), empty. */
void afxdp_qos_compile(const struct afxdp_qos_config *c,
                       struct afxdp_police_meter *m);

/* A port's egress QoS.  The send path reads 'on' and, when it is set,
 * takes 'lock' for 'meter'; the rest is the control path's, under the
 * port's mutex. */
struct afxdp_qos {
    struct ovs_spin lock;               /* Guards 'meter'. */
    struct afxdp_police_meter meter;
    atomic_bool on;                     /* An egress-policer is in effect. */

    char *type;                         /* As set, "" for none. */
    struct smap details;                /* As set. */
    struct afxdp_qos_config config;     /* In effect ('on'). */
    char *error;                        /* Why 'type' was refused, or
                                         * NULL. */
    int refused;                        /* The errno of that, or 0. */
};

struct afxdp_qos *afxdp_qos_create(void);
void afxdp_qos_destroy(struct afxdp_qos *);

/* Applies QoS 'type' with 'details' to the port named 'name' (set_qos).
 * Does nothing if they are what is already set.  Returns 0 or a positive
 * errno (the setting was refused: no limit then, and 'error' says why).
 * Sets '*changed' if the setting was not the one already set. */
int afxdp_qos_set(struct afxdp_qos *, const char *name, const char *type,
                  const struct smap *details, bool *changed);

/* Adds "qos" to 'smap' if a QoS type is set. */
void afxdp_qos_status(const struct afxdp_qos *, struct smap *);

/* The send path: drops the packets of 'batch' over the limit (freed, out
 * of the batch) and returns how many.  'clock' is the caller's. */
uint32_t afxdp_qos_police(struct afxdp_qos *, struct afxdp_clock *clock,
                          struct dp_packet_batch *batch);

static inline bool
afxdp_qos_on(struct afxdp_qos *qos)
{
    bool on;

    atomic_read_relaxed(&qos->on, &on);
    return on;
}

/* Ingress policing (set_policing, lib/afxdp-police.h): writes the limits
 * of 'port' into its XDP program, if it has one, and records why it could
 * not ('police_error').  The caller holds the port's mutex. */
struct afxdp_port;
void afxdp_qos_ingress_apply(struct afxdp_port *);

#endif /* afxdp-qos.h */
