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

/* Serial numbers of partially offloaded flows, as the XDP program marks
 * their frames with, and the OVS flow marks they stand for (see
 * afxdp-offload-marks.h). */

#include <config.h>

#include "afxdp-offload-marks.h"

#include "cmap.h"
#include "hash.h"
#include "ovs-rcu.h"
#include "util.h"

/* One serial in use. */
struct afxdp_offload_serial {
    struct cmap_node node;          /* In 'serials', by 'serial'. */
    uint32_t serial;                /* What the program writes. */
    uint32_t ovs_mark;              /* OVS's flow mark. */
};

struct afxdp_offload_marks {
    struct cmap serials;            /* struct afxdp_offload_serial. */
    uint32_t next;                  /* Next serial to give; writers only. */
};

struct afxdp_offload_marks *
afxdp_offload_marks_create(void)
{
    struct afxdp_offload_marks *m = xzalloc(sizeof *m);

    cmap_init(&m->serials);
    m->next = 1;
    return m;
}

static void
afxdp_offload_marks_free(struct afxdp_offload_marks *m)
{
    cmap_destroy(&m->serials);
    free(m);
}

/* Frees 'm', whose serials were all removed, once no receive path can be
 * looking into it. */
void
afxdp_offload_marks_destroy(struct afxdp_offload_marks *m)
{
    if (m) {
        ovs_assert(cmap_is_empty(&m->serials));
        ovsrcu_postpone(afxdp_offload_marks_free, m);
    }
}

/* True if some flow of the program has a mark now (a hint, read without a
 * lock: a mark added right after may be missed, which only costs its
 * packets the PMD's usual lookup). */
bool
afxdp_offload_marks_any(const struct afxdp_offload_marks *m)
{
    return m && !cmap_is_empty(&m->serials);
}

/* True if 'serial' is in use in 'm'. */
static bool
afxdp_offload_marks_in_use(const struct afxdp_offload_marks *m,
                           uint32_t serial)
{
    uint32_t ovs_mark;

    return afxdp_offload_marks_lookup(m, serial, &ovs_mark);
}

/* Returns a new serial (never 0, never one in use) for a flow with OVS
 * flow mark 'ovs_mark', to be written into the program's flow entry.
 * Serials are given in turn, so one comes back only after 2^32 - 1 others
 * were given; after that wrap-around, those still in use (a long-lived
 * flow's) are skipped: two flows with one serial would give one flow's
 * frames the other's mark.  A program holds far fewer flows than 2^32, so
 * the search ends. */
uint32_t
afxdp_offload_marks_add(struct afxdp_offload_marks *m, uint32_t ovs_mark)
{
    struct afxdp_offload_serial *s = xmalloc(sizeof *s);

    do {
        s->serial = m->next++;
        if (!m->next) {
            m->next = 1;
        }
    } while (afxdp_offload_marks_in_use(m, s->serial));
    s->ovs_mark = ovs_mark;
    cmap_insert(&m->serials, &s->node, hash_int(s->serial, 0));
    return s->serial;
}

/* Makes 'serial' (not 0) the next one that afxdp_offload_marks_add()
 * tries: for tests, to reach the wrap-around without 2^32 additions. */
void
afxdp_offload_marks_set_next(struct afxdp_offload_marks *m, uint32_t serial)
{
    ovs_assert(serial);
    m->next = serial;
}

/* Forgets 'serial', which no flow entry of the program holds any more:
 * frames still carrying it get no mark. */
void
afxdp_offload_marks_remove(struct afxdp_offload_marks *m, uint32_t serial)
{
    struct afxdp_offload_serial *s;
    uint32_t hash = hash_int(serial, 0);

    CMAP_FOR_EACH_WITH_HASH (s, node, hash, &m->serials) {
        if (s->serial == serial) {
            cmap_remove(&m->serials, &s->node, hash);
            ovsrcu_postpone(free, s);
            return;
        }
    }
}

/* Stores in '*ovs_mark' the OVS flow mark that 'serial' stands for and
 * returns true, or returns false if no flow in the program has it now. */
bool
afxdp_offload_marks_lookup(const struct afxdp_offload_marks *m,
                           uint32_t serial, uint32_t *ovs_mark)
{
    const struct afxdp_offload_serial *s;

    CMAP_FOR_EACH_WITH_HASH (s, node, hash_int(serial, 0), &m->serials) {
        if (s->serial == serial) {
            *ovs_mark = s->ovs_mark;
            return true;
        }
    }
    return false;
}
