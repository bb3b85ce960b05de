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

/* Egress QoS of afxdp ports (see afxdp-qos.h), and the QoS and ingress
 * policing functions of the afxdp classes. */

#include <config.h>

#include "afxdp-qos.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afxdp-clock.h"
#include "afxdp-config.h"
#include "afxdp-offload.h"
#include "afxdp-police.h"
#include "afxdp-port-private.h"
#include "dp-packet.h"
#include "netdev-afxdp.h"
#include "netdev-provider.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "sset.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_qos);

/* Reads other_config:'key' of an egress-policer, an integer from 1 to
 * 'max', into '*v'. */
static int
afxdp_qos_get_u64(const struct smap *details, const char *key,
                  const char *unit, uint64_t max, uint64_t *v, char **errp)
{
    const char *s = smap_get(details, key);
    unsigned long long x;

    if (!s) {
        *errp = xasprintf("QoS type %s needs other_config:%s (%s, 1 to "
                          "%"PRIu64")", AFXDP_QOS_EGRESS_POLICER, key, unit,
                          max);
        return EINVAL;
    }
    if (!afxdp_config_parse_uint(s, 1, max, &x)) {
        *errp = xasprintf("QoS type %s: other_config:%s=%s is not valid "
                          "(%s, 1 to %"PRIu64")", AFXDP_QOS_EGRESS_POLICER,
                          key, s, unit, max);
        return EINVAL;
    }
    *v = x;
    return 0;
}

int
afxdp_qos_parse(const char *type, const struct smap *details,
                struct afxdp_qos_config *c, char **errp)
{
    int error;

    memset(c, 0, sizeof *c);
    *errp = NULL;
    if (!type[0]) {
        return 0;
    }
    if (strcmp(type, AFXDP_QOS_EGRESS_POLICER)) {
        *errp = xasprintf("QoS type %s is not supported on an afxdp port "
                          "(supported: %s)%s", type, AFXDP_QOS_EGRESS_POLICER,
                          (!strncmp(type, "linux-", 6)
                           ? ": a Linux QoS type is a tc qdisc, which frames "
                             "sent through AF_XDP bypass" : ""));
        return EOPNOTSUPP;
    }
    error = afxdp_qos_get_u64(details, "cir", "bytes a second",
                              AFXDP_QOS_CIR_MAX, &c->cir, errp);
    if (!error) {
        error = afxdp_qos_get_u64(details, "cbs", "bytes", AFXDP_QOS_CBS_MAX,
                                  &c->cbs, errp);
    }
    if (error) {
        memset(c, 0, sizeof *c);
    }
    return error;
}

void
afxdp_qos_compile(const struct afxdp_qos_config *c,
                  struct afxdp_police_meter *m)
{
    /* A byte at 1 byte/s takes 1e9 ns. */
    afxdp_police_meter(c->cir, c->cbs, 1000000000ULL, m);
}

struct afxdp_qos *
afxdp_qos_create(void)
{
    struct afxdp_qos *qos = xzalloc(sizeof *qos);

    ovs_spin_init(&qos->lock);
    atomic_init(&qos->on, false);
    qos->type = xstrdup("");
    smap_init(&qos->details);
    return qos;
}

void
afxdp_qos_destroy(struct afxdp_qos *qos)
{
    if (qos) {
        ovs_spin_destroy(&qos->lock);
        free(qos->type);
        smap_destroy(&qos->details);
        free(qos->error);
        free(qos);
    }
}

int
afxdp_qos_set(struct afxdp_qos *qos, const char *name, const char *type,
              const struct smap *details, bool *changed)
{
    struct afxdp_qos_config c;
    bool was_on = afxdp_qos_on(qos);
    char *error_msg;
    int error;

    *changed = false;
    if (!strcmp(type, qos->type) && smap_equal(details, &qos->details)) {
        return qos->refused;
    }
    free(qos->type);
    qos->type = xstrdup(type);
    smap_destroy(&qos->details);
    smap_clone(&qos->details, details);
    free(qos->error);
    qos->error = NULL;
    qos->refused = 0;

    error = afxdp_qos_parse(type, details, &c, &error_msg);
    if (error) {
        VLOG_ERR("%s: %s; the port's egress is not limited", name,
                 error_msg);
        qos->error = error_msg;
        qos->refused = error;
    } else if (c.cir) {
        VLOG_INFO("%s: QoS %s: %"PRIu64" bytes/s, burst %"PRIu64" bytes "
                  "(send path)", name, type, c.cir, c.cbs);
    } else if (was_on) {
        VLOG_INFO("%s: egress QoS off", name);
    }

    ovs_spin_lock(&qos->lock);
    afxdp_qos_compile(&c, &qos->meter);
    ovs_spin_unlock(&qos->lock);
    qos->config = c;
    atomic_store_relaxed(&qos->on, c.cir != 0);
    *changed = true;
    return error;
}

void
afxdp_qos_status(const struct afxdp_qos *qos, struct smap *smap)
{
    if (qos->error) {
        smap_add_format(smap, "qos", "error: %s; the port's egress is not "
                        "limited", qos->error);
    } else if (qos->config.cir) {
        smap_add_format(smap, "qos", "%s: %"PRIu64" bytes/s, burst %"PRIu64
                        " bytes (send path)", qos->type, qos->config.cir,
                        qos->config.cbs);
    }
}

uint32_t
afxdp_qos_police(struct afxdp_qos *qos, struct afxdp_clock *clock,
                 struct dp_packet_batch *batch)
{
    uint64_t now = afxdp_clock_now(clock);
    size_t n = dp_packet_batch_size(batch);
    struct dp_packet *packet;
    uint32_t dropped = 0;
    size_t i;

    ovs_spin_lock(&qos->lock);
    DP_PACKET_BATCH_REFILL_FOR_EACH (i, n, packet, batch) {
        uint32_t size = dp_packet_size(packet);
        /* The rate counts bytes of the packet less its Ethernet header,
         * as OVS's DPDK ports count them. */
        uint32_t len = size > ETH_HEADER_LEN ? size - ETH_HEADER_LEN : 0;

        if (afxdp_police_held(&qos->meter, now) <= qos->meter.burst) {
            afxdp_police_charge(&qos->meter, now, len);
            dp_packet_batch_add(batch, packet);
        } else {
            dp_packet_delete(packet);
            dropped++;
        }
    }
    ovs_spin_unlock(&qos->lock);
    return dropped;
}

/* The QoS and policing functions of the afxdp classes. */

void
afxdp_qos_ingress_apply(struct afxdp_port *port)
{
    int error;

    if (!port->xdp) {
        return;
    }
    error = afxdp_police_apply(afxdp_xdp_police_fd(port->xdp), &port->police);
    free(port->police_error);
    port->police_error = NULL;
    if (error) {
        port->police_error = xasprintf("cannot write the limit into the XDP "
                                       "program's map (%s)",
                                       ovs_strerror(error));
        VLOG_ERR("%s: ingress policing: %s", netdev_get_name(port->netdev),
                 port->police_error);
    }
}

/* set_policing of the afxdp classes (a hook of ours in OVS's netdev-linux
 * class, patches/common/netdev-linux-afxdp-policing.patch): OVS's Linux
 * ports police with a tc filter, which frames that XDP redirects never
 * meet, so ours police in the XDP program (bpf/afxdp-police.bpf.h). */
int
netdev_afxdp_set_policing(struct netdev *netdev_, uint32_t kbits_rate,
                          uint32_t kbits_burst, uint32_t kpkts_rate,
                          uint32_t kpkts_burst)
{
    struct afxdp_police_config c = {
        .kbits_rate = kbits_rate, .kbits_burst = kbits_burst,
        .kpkts_rate = kpkts_rate, .kpkts_burst = kpkts_burst,
    };
    struct afxdp_port *port = afxdp_port_lookup(netdev_);
    int error;

    if (!port) {
        return EOPNOTSUPP;
    }
    afxdp_police_config_normalize(&c);
    ovs_mutex_lock(port->mutex);
    if (!afxdp_police_config_equal(&c, &port->police)) {
        struct ds s = DS_EMPTY_INITIALIZER;

        port->police = c;
        afxdp_police_format(&c, &s);
        VLOG_INFO("%s: ingress policing %s", netdev_get_name(netdev_),
                  afxdp_police_config_on(&c) ? ds_cstr(&s) : "off");
        ds_destroy(&s);
        afxdp_qos_ingress_apply(port);
    }
    error = port->police_error ? EIO : 0;
    ovs_mutex_unlock(port->mutex);
    return error;
}

int
netdev_afxdp_get_qos_types(const struct netdev *netdev OVS_UNUSED,
                           struct sset *types)
{
    sset_add(types, AFXDP_QOS_EGRESS_POLICER);
    return 0;
}

int
netdev_afxdp_get_qos_capabilities(const struct netdev *netdev OVS_UNUSED,
                                  const char *type OVS_UNUSED,
                                  struct netdev_qos_capabilities *caps)
{
    /* An egress-policer has no queues, as on OVS's DPDK ports. */
    caps->n_queues = 0;
    return EOPNOTSUPP;
}

int
netdev_afxdp_get_qos(const struct netdev *netdev, const char **typep,
                     struct smap *details)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);

    *typep = "";
    if (!port) {
        return 0;
    }
    ovs_mutex_lock(port->mutex);
    if (port->qos->config.cir) {
        *typep = AFXDP_QOS_EGRESS_POLICER;
        smap_add_format(details, "cir", "%"PRIu64, port->qos->config.cir);
        smap_add_format(details, "cbs", "%"PRIu64, port->qos->config.cbs);
    }
    ovs_mutex_unlock(port->mutex);
    return 0;
}

int
netdev_afxdp_set_qos(struct netdev *netdev, const char *type,
                     const struct smap *details)
{
    struct afxdp_port *port = afxdp_port_lookup(netdev);
    bool changed, was_on, on;
    int ifindex;
    int error;

    if (!port) {
        return *type ? EOPNOTSUPP : 0;
    }
    ovs_mutex_lock(port->mutex);
    was_on = afxdp_qos_on(port->qos);
    error = afxdp_qos_set(port->qos, netdev_get_name(netdev), type, details,
                          &changed);
    on = afxdp_qos_on(port->qos);
    atomic_store_relaxed(&port->egress_policed, on);
    atomic_read_relaxed(&port->link_ifindex, &ifindex);
    ovs_mutex_unlock(port->mutex);
    if (on != was_on && ifindex > 0) {
        /* Flows of other ports to this one leave XDP (or may go back). */
        afxdp_offload_egress_policed(ifindex, on);
    }
    if (changed) {
        netdev_change_seq_changed(netdev);      /* Its status. */
    }
    return error;
}
