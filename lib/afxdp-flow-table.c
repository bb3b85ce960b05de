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
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "timeval.h"
#include "util.h"

/* How long a flow id stays free after its flow left the table before it
 * may name another flow: far longer than one run of the program. */
#define AFXDP_FLOW_TABLE_QUIET_MS 2

struct afxdp_flow_table {
    int flows_fd;               /* 'afxdp_flows'. */
    int stats_fd;               /* 'afxdp_flow_stats'. */
    uint64_t seed;              /* Of afxdp_flow_hash(). */

    /* The program's 'afxdp_flow_buckets', mapped into our memory, or NULL
     * (then the table takes no flow). */
    struct afxdp_flow_bucket *buckets;

    /* The free ids, in a ring, the one freed the longest ago first, and
     * when each id was freed. */
    uint16_t free_ids[AFXDP_FLOW_MAX_FLOWS];
    uint32_t free_head;         /* Index of the first. */
    uint32_t n_free;
    long long int freed_ms[AFXDP_FLOW_MAX_FLOWS];     /* By id. */
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
        table->freed_ms[id] = 0;
    }
    table->free_head = 0;
    table->n_free = table->buckets ? AFXDP_FLOW_MAX_FLOWS : 0;
    return error;
}

/* Takes the id freed the longest ago, waiting until it has been free for
 * AFXDP_FLOW_TABLE_QUIET_MS.  Returns it, or -1 if all are taken. */
static int
afxdp_flow_table_get_id(struct afxdp_flow_table *table)
{
    long long int wait;
    uint16_t id;

    if (!table->n_free) {
        return -1;
    }
    id = table->free_ids[table->free_head];
    table->free_head = (table->free_head + 1) % AFXDP_FLOW_MAX_FLOWS;
    table->n_free--;
    wait = table->freed_ms[id] + AFXDP_FLOW_TABLE_QUIET_MS - time_msec();
    if (wait > 0) {
        xnanosleep(wait * 1000 * 1000);
    }
    return id;
}

static void
afxdp_flow_table_put_id(struct afxdp_flow_table *table, uint32_t id)
{
    uint32_t tail = (table->free_head + table->n_free) % AFXDP_FLOW_MAX_FLOWS;

    table->free_ids[tail] = id;
    table->n_free++;
    table->freed_ms[id] = time_msec();
}

/* Writes 'value' into 'field', a field of the program's buckets, with
 * one store, after all that was written before. */
static void
afxdp_flow_table_publish(uint32_t *field, uint32_t value)
{
    __atomic_store_n(field, value, __ATOMIC_RELEASE);
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
        if (bk->tag[j] == *tag) {
            /* The program looks at no other way with this tag: this is
             * the same flow, or a collision of 32-bit tags (rare). */
            struct afxdp_flow_entry other;
            uint32_t id = bk->id[j];

            return (!bpf_map_lookup_elem(table->flows_fd, &id, &other)
                    && !memcmp(other.key, key, n_words * sizeof *key)
                    ? EEXIST : ENOSPC);
        } else if (!bk->tag[j] && place->way < 0) {
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
        return ENOSPC;
    }

    /* Entry and counters under an id that no bucket names, then the id in
     * the way (whose tag is 0), then the tag. */
    ret = bpf_map_update_elem(table->flows_fd, &id, entry, BPF_ANY);
    if (!ret) {
        zeros = xcalloc(n_cpus, sizeof *zeros);
        ret = bpf_map_update_elem(table->stats_fd, &id, zeros, BPF_ANY);
        free(zeros);
    }
    if (ret) {
        afxdp_flow_table_put_id(table, id);
        return -ret;
    }
    bk = &table->buckets[place->bucket];
    afxdp_flow_table_publish(&bk->id[place->way], id);
    afxdp_flow_table_publish(&bk->tag[place->way], tag);
    place->id = id;
    return 0;
}

void
afxdp_flow_table_remove(struct afxdp_flow_table *table,
                        const struct afxdp_flow_place *place)
{
    if (table->buckets) {
        afxdp_flow_table_publish(
            &table->buckets[place->bucket].tag[place->way], 0);
        afxdp_flow_table_put_id(table, place->id);
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
