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

/* Unit tests of egress QoS (lib/afxdp-qos.c): what set_qos accepts and
 * refuses (with a message naming the setting and what is accepted), the
 * status it leads to, and the egress-policer on batches of packets: from
 * an empty meter exactly the burst passes, a packet larger than the burst
 * passes an empty meter and its debt holds the next ones, and every packet
 * is either kept in the batch or dropped and counted.  The rates are so
 * slow (100 bytes a second) that the time the test takes drains nothing
 * that would let a packet more through.
 *
 * Usage: ovstest test-afxdp-qos */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "afxdp-clock.h"
#include "afxdp-qos.h"
#include "dp-packet.h"
#include "openvswitch/vlog.h"
#include "ovstest.h"
#include "packets.h"
#include "smap.h"
#include "util.h"

#define CHECK(COND) ovs_assert(COND)

/* Parses 'type' with "cir" and "cbs" set to 'cir' and 'cbs' (NULL: not
 * set); returns the errno and checks that a refusal says 'expect'. */
static int
parse(const char *type, const char *cir, const char *cbs,
      struct afxdp_qos_config *c, const char *expect)
{
    struct smap details = SMAP_INITIALIZER(&details);
    char *msg;
    int error;

    if (cir) {
        smap_add(&details, "cir", cir);
    }
    if (cbs) {
        smap_add(&details, "cbs", cbs);
    }
    error = afxdp_qos_parse(type, &details, c, &msg);
    CHECK(!error == !msg);
    if (error) {
        if (!strstr(msg, expect)) {
            fprintf(stderr, "\"%s\" does not say \"%s\"\n", msg, expect);
            CHECK(false);
        }
        CHECK(!c->cir && !c->cbs);
    }
    free(msg);
    smap_destroy(&details);
    return error;
}

static void
test_parse(void)
{
    struct afxdp_qos_config c;

    CHECK(!parse("", NULL, NULL, &c, NULL) && !c.cir);
    CHECK(!parse("egress-policer", "1250000", "15000", &c, NULL));
    CHECK(c.cir == 1250000 && c.cbs == 15000);
    CHECK(!parse("egress-policer", "10000000000", "4294967295", &c, NULL));
    CHECK(c.cir == AFXDP_QOS_CIR_MAX && c.cbs == AFXDP_QOS_CBS_MAX);

    CHECK(parse("egress-policer", NULL, "1", &c,
                "needs other_config:cir (bytes a second, 1 to 10000000000)")
          == EINVAL);
    CHECK(parse("egress-policer", "1", NULL, &c,
                "needs other_config:cbs (bytes, 1 to 4294967295)") == EINVAL);
    CHECK(parse("egress-policer", "0", "1", &c,
                "other_config:cir=0 is not valid") == EINVAL);
    CHECK(parse("egress-policer", "10000000001", "1", &c,
                "other_config:cir=10000000001 is not valid") == EINVAL);
    CHECK(parse("egress-policer", "-5", "1", &c,
                "other_config:cir=-5 is not valid") == EINVAL);
    CHECK(parse("egress-policer", "12k", "1", &c,
                "other_config:cir=12k is not valid") == EINVAL);
    CHECK(parse("egress-policer", "1", "4294967296", &c,
                "other_config:cbs=4294967296 is not valid") == EINVAL);
    CHECK(parse("linux-htb", NULL, NULL, &c,
                "QoS type linux-htb is not supported on an afxdp port "
                "(supported: egress-policer): a Linux QoS type is a tc "
                "qdisc") == EOPNOTSUPP);
    CHECK(parse("trtcm-policer", "1", "1", &c,
                "QoS type trtcm-policer is not supported on an afxdp port "
                "(supported: egress-policer)") == EOPNOTSUPP);
    printf("parse: ok\n");
}

/* Sets QoS 'type' with 'cir' and 'cbs' on 'qos'; returns the errno. */
static int
set(struct afxdp_qos *qos, const char *type, const char *cir,
    const char *cbs, bool *changed)
{
    struct smap details = SMAP_INITIALIZER(&details);
    int error;

    if (cir) {
        smap_add(&details, "cir", cir);
        smap_add(&details, "cbs", cbs);
    }
    error = afxdp_qos_set(qos, "p0", type, &details, changed);
    smap_destroy(&details);
    return error;
}

/* The status key "qos" of 'qos', or "" (the caller frees it). */
static char *
status(const struct afxdp_qos *qos)
{
    struct smap s = SMAP_INITIALIZER(&s);
    char *v;

    afxdp_qos_status(qos, &s);
    v = xstrdup(smap_get_def(&s, "qos", ""));
    smap_destroy(&s);
    return v;
}

static void
check_status(const struct afxdp_qos *qos, const char *expect)
{
    char *v = status(qos);

    if (strcmp(v, expect)) {
        fprintf(stderr, "status \"%s\", expected \"%s\"\n", v, expect);
        CHECK(false);
    }
    free(v);
}

static void
test_set(void)
{
    struct afxdp_qos *qos = afxdp_qos_create();
    bool changed;

    CHECK(!afxdp_qos_on(qos));
    check_status(qos, "");
    CHECK(!set(qos, "egress-policer", "1250000", "15000", &changed));
    CHECK(changed && afxdp_qos_on(qos));
    check_status(qos, "egress-policer: 1250000 bytes/s, burst 15000 bytes "
                 "(send path)");
    /* The same again (OVS sets QoS on every reconfiguration). */
    CHECK(!set(qos, "egress-policer", "1250000", "15000", &changed));
    CHECK(!changed && afxdp_qos_on(qos));

    CHECK(set(qos, "linux-htb", NULL, NULL, &changed) == EOPNOTSUPP);
    CHECK(changed && !afxdp_qos_on(qos));
    check_status(qos, "error: QoS type linux-htb is not supported on an "
                 "afxdp port (supported: egress-policer): a Linux QoS type "
                 "is a tc qdisc, which frames sent through AF_XDP bypass; "
                 "the port's egress is not limited");
    /* Refused again, quietly. */
    CHECK(set(qos, "linux-htb", NULL, NULL, &changed) == EOPNOTSUPP);
    CHECK(!changed);

    CHECK(!set(qos, "", NULL, NULL, &changed));
    CHECK(changed && !afxdp_qos_on(qos));
    check_status(qos, "");
    afxdp_qos_destroy(qos);
    printf("set: ok\n");
}

/* A batch of 'n' packets of 'size' bytes each (Ethernet header included). */
static void
make_batch(struct dp_packet_batch *b, int n, uint32_t size)
{
    dp_packet_batch_init(b);
    for (int i = 0; i < n; i++) {
        struct dp_packet *p = dp_packet_new(size);

        memset(dp_packet_put_uninit(p, size), 0, size);
        dp_packet_batch_add(b, p);
    }
}

/* Polices a batch of 'n' packets of 'size' bytes; checks that the first
 * 'pass' of them are what is left. */
static void
police(struct afxdp_qos *qos, struct afxdp_clock *clock, int n,
       uint32_t size, int pass)
{
    struct dp_packet_batch b;
    struct dp_packet *packet;
    uint32_t dropped;

    make_batch(&b, n, size);
    dropped = afxdp_qos_police(qos, clock, &b);
    if (dp_packet_batch_size(&b) != pass || dropped != n - pass) {
        fprintf(stderr, "%d packets of %"PRIu32" bytes: %"PRIuSIZE" passed, "
                "%"PRIu32" dropped, expected %d passed\n", n, size,
                dp_packet_batch_size(&b), dropped, pass);
        CHECK(false);
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, &b) {
        CHECK(dp_packet_size(packet) == size);
    }
    dp_packet_delete_batch(&b, true);
}

static void
test_police(void)
{
    struct afxdp_qos *qos = afxdp_qos_create();
    struct afxdp_clock clock;
    bool changed;

    afxdp_clock_init(&clock);
    /* 1,000 bytes of IP packet each (the Ethernet header does not count):
     * the meter passes while it holds no more than 10,000 bytes, so 11
     * pass (it held 0, 1,000, ..., 10,000 before each). */
    CHECK(!set(qos, "egress-policer", "100", "10000", &changed));
    police(qos, &clock, 32, 1000 + ETH_HEADER_LEN, 11);
    /* Full: nothing more, even a small packet. */
    police(qos, &clock, 4, 64, 0);

    /* A new setting starts with an empty meter.  A packet larger than the
     * burst (a TCP packet sent whole) passes an empty meter; its debt
     * holds the next. */
    CHECK(!set(qos, "egress-policer", "100", "1500", &changed));
    police(qos, &clock, 3, 65000, 1);
    police(qos, &clock, 1, 64, 0);

    /* No limit: nothing is dropped. */
    CHECK(!set(qos, "", NULL, NULL, &changed));
    CHECK(!afxdp_qos_on(qos));
    afxdp_qos_destroy(qos);
    printf("police: ok\n");
}

static void
test_afxdp_qos_main(int argc OVS_UNUSED, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_OFF);
    test_parse();
    test_set();
    test_police();
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-qos", test_afxdp_qos_main);
