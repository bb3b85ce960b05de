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

/* 'ovstest test-afxdp-offload egress-grace': the egress devices of
 * offloaded flows (lib/afxdp-offload-egress.h) leave the program's devmap
 * only a grace period after their last flow, on a devmap of the kernel's.
 * A program run that found a flow just removed may still redirect to its
 * egress: an entry deleted at once would drop that frame, and every
 * modification of the only flow to a device would drop the frames in
 * flight.  Needs root (bpf()). */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "afxdp-flow-table.h"
#include "afxdp-offload-egress.h"
#include "openvswitch/util.h"
#include "test-afxdp-offload.h"

/* True if 'ifindex' has an entry in devmap 'fd'. */
static bool
in_devmap(int fd, int ifindex)
{
    uint32_t key = ifindex, value;

    return !bpf_map_lookup_elem(fd, &key, &value) && value == key;
}

/* Waits for a grace period begun after every unref so far. */
static void
grace_wait(void)
{
    CHECK(!afxdp_flow_table_grace_wait(afxdp_flow_table_grace_mark()));
}

void
test_afxdp_offload_egress_grace(int a, int b)
{
    struct afxdp_offload_egress_set set;
    int fd;

    /* One entry: a second device finds it full. */
    fd = bpf_map_create(BPF_MAP_TYPE_DEVMAP_HASH, "afxdp_test_eg",
                        sizeof(uint32_t), sizeof(uint32_t), 1, NULL);
    if (fd < 0) {
        test_afxdp_offload_fail("cannot create a devmap (%s)",
                                ovs_strerror(-fd));
    }
    afxdp_offload_egress_set_init(&set);

    /* Two flows to 'a'. */
    CHECK(!afxdp_offload_egress_ref(&set, fd, a));
    CHECK(!afxdp_offload_egress_ref(&set, fd, a));
    CHECK(in_devmap(fd, a));

    /* Both leave (the second as a modification would take it out before
     * putting its new version in): the entry stays, also through a reap,
     * until a grace period has ended. */
    afxdp_offload_egress_unref(&set, a);
    CHECK(in_devmap(fd, a));
    afxdp_offload_egress_unref(&set, a);
    CHECK(in_devmap(fd, a));
    afxdp_offload_egress_reap(&set, fd);
    CHECK(in_devmap(fd, a));
    printf("last flow gone: entry kept until a grace period ends: ok\n");

    /* A flow to 'b' meanwhile finds the devmap full of an entry that
     * awaits its grace period: EAGAIN (wait, then try again). */
    CHECK(afxdp_offload_egress_ref(&set, fd, b) == EAGAIN);
    CHECK(!in_devmap(fd, b));
    grace_wait();
    afxdp_offload_egress_reap(&set, fd);
    CHECK(!in_devmap(fd, a));
    CHECK(!afxdp_offload_egress_ref(&set, fd, b));
    CHECK(in_devmap(fd, b));
    printf("full devmap: EAGAIN, then room after the grace period: ok\n");

    /* The flow to 'b' modified: out and in again before the grace period
     * ends.  The entry never leaves. */
    afxdp_offload_egress_unref(&set, b);
    CHECK(!afxdp_offload_egress_ref(&set, fd, b));
    grace_wait();
    afxdp_offload_egress_reap(&set, fd);
    CHECK(in_devmap(fd, b));
    printf("flow modified: entry never left: ok\n");

    /* The last flow goes for good. */
    afxdp_offload_egress_unref(&set, b);
    grace_wait();
    afxdp_offload_egress_reap(&set, fd);
    CHECK(!in_devmap(fd, b));
    printf("unused for a grace period: entry gone: ok\n");

    afxdp_offload_egress_set_destroy(&set);
    close(fd);
    printf("PASS\n");
}
