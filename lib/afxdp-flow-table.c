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

/* The flow table of our XDP program, userspace's side.  See
 * afxdp-flow-table.h, and bpf/afxdp-flow.h for the maps and their update
 * protocol. */

#include <config.h>

#include "afxdp-flow-table.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "coverage.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_flow_table);

COVERAGE_DEFINE(afxdp_flow_table_grace_period);

struct afxdp_flow_table {
    int flows_fd;               /* 'afxdp_flows'. */
    int stats_fd;               /* 'afxdp_flow_stats'. */
    uint64_t seed;              /* Of afxdp_flow_hash(). */

    /* The program's 'afxdp_flow_buckets', mapped into our memory, or NULL
     * (then the table takes no flow). */
    struct afxdp_flow_bucket *buckets;

    /* The free ids, in a ring, the one freed the longest ago first, and
     * the grace period that must end before each may name another flow
     * (afxdp_flow_table_grace_mark() when it was freed; 0 for an id never
     * used). */
    uint16_t free_ids[AFXDP_FLOW_MAX_FLOWS];
    uint32_t free_head;         /* Index of the first. */
    uint32_t n_free;
    uint64_t freed_mark[AFXDP_FLOW_MAX_FLOWS];        /* By id. */
};

#define AFXDP_FLOW_TABLE_BUCKETS_SIZE \
    (AFXDP_FLOW_N_BUCKETS * sizeof(struct afxdp_flow_bucket))

struct afxdp_flow_table *
afxdp_flow_table_create(void)
{
    struct afxdp_flow_table *table = xzalloc(sizeof *table);

    afxdp_flow_table_reset(table, -1, -1, -1, 0);
    return table;
}

void
afxdp_flow_table_destroy(struct afxdp_flow_table *table)
{
    if (table) {
        afxdp_flow_table_reset(table, -1, -1, -1, 0);
        free(table);
    }
}

int
afxdp_flow_table_reset(struct afxdp_flow_table *table, int flows_fd,
                       int stats_fd, int buckets_fd, uint64_t seed)
{
    int error = 0;

    if (table->buckets) {
        munmap(table->buckets, AFXDP_FLOW_TABLE_BUCKETS_SIZE);
        table->buckets = NULL;
    }
    if (buckets_fd >= 0) {
        void *p = mmap(NULL, AFXDP_FLOW_TABLE_BUCKETS_SIZE,
                       PROT_READ | PROT_WRITE, MAP_SHARED, buckets_fd, 0);

        if (p == MAP_FAILED) {
            error = errno;
        } else {
            table->buckets = p;
        }
    }
    table->flows_fd = flows_fd;
    table->stats_fd = stats_fd;
    table->seed = seed;
    for (uint32_t id = 0; id < AFXDP_FLOW_MAX_FLOWS; id++) {
        table->free_ids[id] = id;
        table->freed_mark[id] = 0;
    }
    table->free_head = 0;
    table->n_free = table->buckets ? AFXDP_FLOW_MAX_FLOWS : 0;
    return error;
}

/* Takes the id freed the longest ago.  Returns it, -ENOSPC if all are
 * taken, or -EAGAIN if it is free but its grace period has not ended (nor
 * then have those of the other free ids, freed later). */
static int
afxdp_flow_table_get_id(struct afxdp_flow_table *table)
{
    uint16_t id;

    if (!table->n_free) {
        return -ENOSPC;
    }
    id = table->free_ids[table->free_head];
    if (!afxdp_flow_table_grace_done(table->freed_mark[id])) {
        return -EAGAIN;
    }
    table->free_head = (table->free_head + 1) % AFXDP_FLOW_MAX_FLOWS;
    table->n_free--;
    return id;
}

/* Puts 'id' back among the free ids; 'fresh' if no program run can have
 * found it since it was last free (it was never published). */
static void
afxdp_flow_table_put_id(struct afxdp_flow_table *table, uint32_t id,
                        bool fresh)
{
    uint32_t tail = (table->free_head + table->n_free) % AFXDP_FLOW_MAX_FLOWS;

    table->free_ids[tail] = id;
    table->n_free++;
    if (!fresh) {
        table->freed_mark[id] = afxdp_flow_table_grace_mark();
    }
}

/* Writes 'way' into 'field', a way of the program's buckets, with one
 * 64-bit store, after all that this thread wrote before (the flow's entry
 * and counters, by bpf() calls): pairs with the program's load of the way
 * in afxdp_flow_find(), on which its reads of the entry depend. */
static void
afxdp_flow_table_publish(__u64 *field, __u64 way)
{
    __atomic_store_n(field, way, __ATOMIC_RELEASE);
}

/* Finds a way for the lookup key 'key' ('n_words' words) in its bucket.
 * Returns 0 with '*place' set but for its id, and the key's tag in
 * '*tag'; or EEXIST or ENOSPC as afxdp_flow_table_add(). */
static int
afxdp_flow_table_find_way(const struct afxdp_flow_table *table,
                          const __u64 *key, unsigned int n_words,
                          struct afxdp_flow_place *place, uint32_t *tag)
{
    uint64_t hash = afxdp_flow_hash(table->seed, key, n_words);
    uint32_t b = afxdp_flow_bucket_of(hash);
    const struct afxdp_flow_bucket *bk = &table->buckets[b];

    place->bucket = b;
    place->way = -1;
    *tag = afxdp_flow_tag(hash);
    for (int j = 0; j < AFXDP_FLOW_BUCKET_WAYS; j++) {
        /* Only we write the ways: plain reads. */
        uint32_t way_tag = afxdp_flow_way_tag(bk->way[j]);

        if (way_tag == *tag) {
            /* The program looks at no other way with this tag: this is
             * the same flow, or a collision of 32-bit tags (rare). */
            struct afxdp_flow_entry other;
            uint32_t id = afxdp_flow_way_id(bk->way[j]);

            return (!bpf_map_lookup_elem(table->flows_fd, &id, &other)
                    && !memcmp(other.key, key, n_words * sizeof *key)
                    ? EEXIST : ENOSPC);
        } else if (!way_tag && place->way < 0) {
            place->way = j;
        }
    }
    return place->way < 0 ? ENOSPC : 0;
}

int
afxdp_flow_table_add(struct afxdp_flow_table *table,
                     const struct afxdp_flow_entry *entry,
                     unsigned int n_words, struct afxdp_flow_place *place)
{
    int n_cpus = libbpf_num_possible_cpus();
    struct afxdp_flow_counts *zeros;
    struct afxdp_flow_bucket *bk;
    int error, id, ret;
    uint32_t tag;

    if (n_cpus <= 0) {
        return n_cpus ? -n_cpus : EINVAL;
    }
    if (!table->buckets) {
        return ENODEV;
    }
    error = afxdp_flow_table_find_way(table, entry->key, n_words, place,
                                      &tag);
    if (error) {
        return error;
    }
    id = afxdp_flow_table_get_id(table);
    if (id < 0) {
        return -id;
    }

    /* Entry and counters under an id that no bucket names, and no program
     * run still holds (its grace period ended), then the way, tag and id
     * in one store. */
    ret = bpf_map_update_elem(table->flows_fd, &id, entry, BPF_ANY);
    if (!ret) {
        zeros = xcalloc(n_cpus, sizeof *zeros);
        ret = bpf_map_update_elem(table->stats_fd, &id, zeros, BPF_ANY);
        free(zeros);
    }
    if (ret) {
        afxdp_flow_table_put_id(table, id, true);
        return -ret;
    }
    bk = &table->buckets[place->bucket];
    afxdp_flow_table_publish(&bk->way[place->way], afxdp_flow_way(tag, id));
    place->id = id;
    return 0;
}

void
afxdp_flow_table_remove(struct afxdp_flow_table *table,
                        const struct afxdp_flow_place *place)
{
    if (table->buckets) {
        afxdp_flow_table_publish(
            &table->buckets[place->bucket].way[place->way], 0);
        afxdp_flow_table_put_id(table, place->id, false);
    }
}

int
afxdp_flow_table_read(const struct afxdp_flow_table *table,
                      const struct afxdp_flow_place *place,
                      struct afxdp_flow_counts *sum)
{
    int n_cpus = libbpf_num_possible_cpus();
    struct afxdp_flow_counts *v;
    int ret;

    memset(sum, 0, sizeof *sum);
    if (n_cpus <= 0) {
        return n_cpus ? -n_cpus : EINVAL;
    }
    v = xcalloc(n_cpus, sizeof *v);
    ret = bpf_map_lookup_elem(table->stats_fd, &place->id, v);
    if (!ret) {
        for (int i = 0; i < n_cpus; i++) {
            sum->packets += v[i].packets;
            sum->bytes += v[i].bytes;
            sum->tcp_flags |= v[i].tcp_flags;
        }
    }
    free(v);
    return ret ? -ret : 0;
}

/* Grace periods (see afxdp-flow-table.h).  Grace periods are numbered from
 * 1 in the order they start; one that ends proves all those before it
 * ended too, as it waited for every program run begun before it began. */
static struct ovs_mutex grace_mutex = OVS_MUTEX_INITIALIZER;
static uint64_t grace_started OVS_GUARDED_BY(grace_mutex);
static uint64_t grace_done OVS_GUARDED_BY(grace_mutex);

uint64_t
afxdp_flow_table_grace_mark(void)
{
    uint64_t mark;

    /* The caller's stores that took things out of the tables come before
     * the mutex's release here, and so before the start of any grace
     * period that afxdp_flow_table_grace_wait() numbers above 'mark'. */
    ovs_mutex_lock(&grace_mutex);
    mark = grace_started + 1;
    ovs_mutex_unlock(&grace_mutex);
    return mark;
}

bool
afxdp_flow_table_grace_done(uint64_t mark)
{
    bool done;

    ovs_mutex_lock(&grace_mutex);
    done = grace_done >= mark;
    ovs_mutex_unlock(&grace_mutex);
    return done;
}

/* Has the kernel wait for an RCU grace period: updates a map-in-map of
 * our own (made and closed here, so that it holds no descriptor while
 * unused).  Returns 0 or an errno. */
static int
afxdp_flow_table_synchronize(void)
{
    LIBBPF_OPTS(bpf_map_create_opts, opts);
    int inner, outer, ret;
    uint32_t zero = 0;

    inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "afxdp_grace_in",
                           sizeof(uint32_t), sizeof(uint32_t), 1, NULL);
    if (inner < 0) {
        return -inner;
    }
    opts.inner_map_fd = inner;
    outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "afxdp_grace",
                           sizeof(uint32_t), sizeof(uint32_t), 1, &opts);
    if (outer < 0) {
        ret = outer;
    } else {
        /* Returns after synchronize_rcu(). */
        ret = bpf_map_update_elem(outer, &zero, &inner, BPF_ANY);
        close(outer);
    }
    close(inner);
    return ret < 0 ? -ret : 0;
}

int
afxdp_flow_table_grace_wait(uint64_t mark)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
    int error = 0;

    ovs_mutex_lock(&grace_mutex);
    while (grace_done < mark) {
        uint64_t n = ++grace_started;

        ovs_mutex_unlock(&grace_mutex);
        COVERAGE_INC(afxdp_flow_table_grace_period);
        error = afxdp_flow_table_synchronize();
        ovs_mutex_lock(&grace_mutex);
        if (error) {
            VLOG_WARN_RL(&rl, "cannot wait for the end of a BPF grace "
                         "period (%s): offloaded flows and masks that left "
                         "the XDP programs cannot be reused",
                         ovs_strerror(error));
            break;
        }
        grace_done = MAX(grace_done, n);
    }
    ovs_mutex_unlock(&grace_mutex);
    return error;
}
