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

/* Unit tests of the XDP hints decoder (lib/xdp-hints.c).
 *
 * Usage: ovstest test-afxdp-hints
 * Needs no privileges: the BTF is built here with libbpf's BTF writer, and
 * our XDP program's BTF is read from the skeleton without loading it.
 * Aborts on the first failed check.
 *
 * The layouts built here differ from ours on purpose (order, sizes, enum
 * and typedef members, unknown members), and the metadata is encoded at the
 * offsets this file chose for them: the decoder sees them only through BTF,
 * which is the point. */

#include <config.h>
#undef NDEBUG

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "afxdp-xdp.h"
#include "bpf/afxdp.skel.h"
#include "ovstest.h"
#include "util.h"
#include "xdp-hints.h"

/* Room in front of the frame in the test buffers. */
#define TEST_HEADROOM 64

/* One member of a layout under construction. */
struct test_member {
    const char *name;
    int type;                   /* BTF type id. */
    uint32_t offset;            /* Bytes. */
    uint32_t bitfield;          /* Bits, 0 for a whole member. */
};

/* BTF ids of the base types of the test BTF. */
struct test_types {
    int u8, u16, u32, u64, u32_typedef, enum4;
};

static struct btf *
make_btf(struct test_types *ty)
{
    struct btf *btf = btf__new_empty();

    ovs_assert(btf);
    ty->u8 = btf__add_int(btf, "unsigned char", 1, 0);
    ty->u16 = btf__add_int(btf, "unsigned short", 2, 0);
    ty->u32 = btf__add_int(btf, "unsigned int", 4, 0);
    ty->u64 = btf__add_int(btf, "unsigned long long", 8, 0);
    ty->u32_typedef = btf__add_typedef(btf, "__u32", ty->u32);
    ty->enum4 = btf__add_enum(btf, "hash_kind", 4);
    ovs_assert(!btf__add_enum_value(btf, "HASH_KIND_L4", 8));
    ovs_assert(ty->u8 > 0 && ty->u16 > 0 && ty->u32 > 0 && ty->u64 > 0
               && ty->u32_typedef > 0 && ty->enum4 > 0);
    return btf;
}

/* Adds struct 'name' of 'size' bytes with 'n' members; returns its id. */
static int
add_struct(struct btf *btf, const char *name, uint32_t size,
           const struct test_member *members, size_t n)
{
    int id = btf__add_struct(btf, name, size);

    ovs_assert(id > 0);
    for (size_t i = 0; i < n; i++) {
        ovs_assert(!btf__add_field(btf, members[i].name, members[i].type,
                                   members[i].offset * 8,
                                   members[i].bitfield));
    }
    return id;
}

/* Stores the 'size'-byte value 'v' at 'p' in host byte order. */
static void
put(uint8_t *p, size_t size, uint64_t v)
{
    uint8_t u8 = v;
    uint16_t u16 = v;
    uint32_t u32 = v;

    switch (size) {
    case 1:
        memcpy(p, &u8, 1);
        break;
    case 2:
        memcpy(p, &u16, 2);
        break;
    case 4:
        memcpy(p, &u32, 4);
        break;
    default:
        memcpy(p, &v, 8);
        break;
    }
}

/* The layouts of the test BTF. */
struct test_layouts {
    int a;              /* Like ours: timestamp, flags, id.  16 bytes. */
    int b;              /* Everything, in another order and sizes. */
    int only_id;        /* Nothing but the id.  4 bytes. */
    int wide;           /* rx_hash too wide, flags a bitfield. */
    /* Not layouts: */
    int id_not_last, tail_padding, wide_id, other_name, no_members;
};

static void
add_layouts(struct btf *btf, const struct test_types *ty,
            struct test_layouts *l)
{
    const struct test_member a[] = {
        { "rx_timestamp", ty->u64, 0, 0 },
        { "flags", ty->u32, 8, 0 },
        { "btf_id", ty->u32, 12, 0 },
    };
    /* 36 bytes, not a multiple of 8: the decoder must not care. */
    const struct test_member b[] = {
        { "flags", ty->u16, 0, 0 },
        { "vlan_tci", ty->u16, 2, 0 },
        { "rx_hash", ty->u32_typedef, 4, 0 },
        { "unknown", ty->u64, 8, 0 },
        { "rx_timestamp", ty->u64, 16, 0 },
        { "hash_type", ty->enum4, 24, 0 },
        { "vlan_proto", ty->u16, 28, 0 },
        { "vlan_pcp", ty->u8, 30, 0 },
        { "btf_id", ty->u32_typedef, 32, 0 },
    };
    const struct test_member only_id[] = {
        { "btf_id", ty->u32, 0, 0 },
    };
    const struct test_member wide[] = {
        { "rx_hash", ty->u64, 0, 0 },
        { "flags", ty->u32, 8, 3 },
        { "vlan_tci", ty->u16, 12, 0 },
        { "btf_id", ty->u32, 16, 0 },
    };
    const struct test_member id_not_last[] = {
        { "btf_id", ty->u32, 0, 0 },
        { "rx_timestamp", ty->u32, 4, 0 },
    };
    const struct test_member tail_padding[] = {
        { "rx_timestamp", ty->u64, 0, 0 },
        { "btf_id", ty->u32, 8, 0 },
    };
    const struct test_member wide_id[] = {
        { "flags", ty->u32, 0, 0 },
        { "btf_id", ty->u64, 8, 0 },
    };

    l->a = add_struct(btf, "xdp_hints_a", 16, a, ARRAY_SIZE(a));
    l->b = add_struct(btf, "xdp_hints_b", 36, b, ARRAY_SIZE(b));
    l->only_id = add_struct(btf, "xdp_hints_only_id", 4, only_id,
                            ARRAY_SIZE(only_id));
    l->wide = add_struct(btf, "xdp_hints_wide", 20, wide, ARRAY_SIZE(wide));
    l->id_not_last = add_struct(btf, "xdp_hints_id_not_last", 8,
                                id_not_last, ARRAY_SIZE(id_not_last));
    l->tail_padding = add_struct(btf, "xdp_hints_tail_padding", 16,
                                 tail_padding, ARRAY_SIZE(tail_padding));
    l->wide_id = add_struct(btf, "xdp_hints_wide_id", 16, wide_id,
                            ARRAY_SIZE(wide_id));
    l->other_name = add_struct(btf, "rx_meta", 16, a, ARRAY_SIZE(a));
    l->no_members = add_struct(btf, "xdp_hints_empty", 0, NULL, 0);
}

/* A frame with metadata in front: 'data' is the frame, at an odd offset in
 * 'buf' so that no member is aligned. */
struct test_frame {
    uint8_t buf[TEST_HEADROOM + 64];
    uint8_t *data;
};

static void
frame_init(struct test_frame *f)
{
    memset(f->buf, 0xa5, sizeof f->buf);
    f->data = f->buf + TEST_HEADROOM - 3;
}

static void
test_layouts_found(void)
{
    const struct xdp_hints_layout *l;
    struct xdp_hints_decoder *dec;
    struct test_layouts ids;
    struct test_types ty;
    struct btf *btf;

    btf = make_btf(&ty);
    add_layouts(btf, &ty, &ids);
    ovs_assert(!xdp_hints_decoder_create(btf, &dec));

    /* The four layouts, nothing else. */
    ovs_assert(dec->n_layouts == 4);
    ovs_assert(dec->max_size == 36);
    ovs_assert(!xdp_hints_decoder_find_name(dec, "xdp_hints_id_not_last"));
    ovs_assert(!xdp_hints_decoder_find_name(dec, "xdp_hints_tail_padding"));
    ovs_assert(!xdp_hints_decoder_find_name(dec, "xdp_hints_wide_id"));
    ovs_assert(!xdp_hints_decoder_find_name(dec, "xdp_hints_empty"));
    ovs_assert(!xdp_hints_decoder_find_name(dec, "rx_meta"));
    ovs_assert(!xdp_hints_lookup(dec, ids.tail_padding));
    ovs_assert(!xdp_hints_lookup(dec, ids.other_name));

    l = xdp_hints_decoder_find_name(dec, "xdp_hints_a");
    ovs_assert(l && l->btf_id == ids.a && l->size == 16);
    ovs_assert(l->valid == (XDP_HINTS_VALID(RX_TIMESTAMP)
                            | XDP_HINTS_VALID(FLAGS)));
    ovs_assert(l->members[XDP_HINTS_FIELD_FLAGS].offset == 8);
    ovs_assert(l->members[XDP_HINTS_FIELD_FLAGS].size == 4);

    l = xdp_hints_decoder_find_name(dec, "xdp_hints_b");
    ovs_assert(l && l->btf_id == ids.b && l->size == 36);
    ovs_assert(l->valid == ((1u << XDP_HINTS_N_FIELDS) - 1
                            - XDP_HINTS_VALID(FLOW_MARK)));
    ovs_assert(l->members[XDP_HINTS_FIELD_RX_HASH].offset == 4);
    ovs_assert(l->members[XDP_HINTS_FIELD_HASH_TYPE].offset == 24);
    ovs_assert(l->members[XDP_HINTS_FIELD_FLAGS].size == 2);

    l = xdp_hints_lookup(dec, ids.only_id);
    ovs_assert(l && l->size == 4 && !l->valid);

    /* rx_hash is wider than ours and flags is a bitfield: both ignored,
     * the layout kept. */
    l = xdp_hints_lookup(dec, ids.wide);
    ovs_assert(l && l->valid == XDP_HINTS_VALID(VLAN_TCI));

    xdp_hints_decoder_destroy(dec);
    btf__free(btf);
    printf("layouts found by BTF: ok\n");
}

static void
test_decode(void)
{
    struct xdp_hints_decoder *dec;
    struct xdp_hints_values v;
    struct test_layouts ids;
    struct test_frame f;
    struct test_types ty;
    struct btf *btf;
    uint8_t *meta;

    btf = make_btf(&ty);
    add_layouts(btf, &ty, &ids);
    ovs_assert(!xdp_hints_decoder_create(btf, &dec));
    ovs_assert(!dec->own_id);   /* None is ours, member for member. */

    /* xdp_hints_a. */
    frame_init(&f);
    meta = f.data - 16;
    put(meta + 0, 8, 0x1122334455667788ULL);
    put(meta + 8, 4, XDP_HINTS_F_TIMESTAMP);
    put(meta + 12, 4, ids.a);
    ovs_assert(xdp_hints_decode(dec, f.data, TEST_HEADROOM - 3, &v));
    ovs_assert(v.btf_id == ids.a);
    ovs_assert(v.valid == (XDP_HINTS_VALID(RX_TIMESTAMP)
                           | XDP_HINTS_VALID(FLAGS)));
    ovs_assert(v.rx_timestamp == 0x1122334455667788ULL);
    ovs_assert(v.flags == XDP_HINTS_F_TIMESTAMP);
    ovs_assert(!v.rx_hash && !v.hash_type && !v.vlan_tci && !v.vlan_proto);
    ovs_assert(xdp_hints_clock(&v) == XDP_HINTS_CLOCK_MONOTONIC);
    ovs_assert(!xdp_hints_has_hash(&v) && !xdp_hints_has_vlan(&v));

    /* Exactly as much metadata as the layout: enough. */
    ovs_assert(xdp_hints_decode(dec, f.data, 16, &v));

    /* xdp_hints_b: every member, none where ours has it. */
    frame_init(&f);
    meta = f.data - 36;
    put(meta + 0, 2, XDP_HINTS_F_TIMESTAMP | XDP_HINTS_F_TS_DEVICE
        | XDP_HINTS_F_HASH | XDP_HINTS_F_VLAN);
    put(meta + 2, 2, 0x2064);
    put(meta + 4, 4, 0xdeadbeef);
    put(meta + 8, 8, UINT64_MAX);
    put(meta + 16, 8, 1700000000123456789ULL);
    put(meta + 24, 4, XDP_HINTS_HASH_L3_IPV4 | XDP_HINTS_HASH_L4
        | XDP_HINTS_HASH_L4_UDP);
    put(meta + 28, 2, 0x0081);
    put(meta + 30, 1, 0xff);
    put(meta + 32, 4, ids.b);
    ovs_assert(xdp_hints_decode(dec, f.data, 36, &v));
    ovs_assert(v.btf_id == ids.b);
    ovs_assert(v.rx_timestamp == 1700000000123456789ULL);
    ovs_assert(v.rx_hash == 0xdeadbeef);
    ovs_assert(v.hash_type == (XDP_HINTS_HASH_L3_IPV4 | XDP_HINTS_HASH_L4
                               | XDP_HINTS_HASH_L4_UDP));
    ovs_assert(v.vlan_tci == 0x2064 && v.vlan_proto == 0x0081);
    ovs_assert(xdp_hints_clock(&v) == XDP_HINTS_CLOCK_DEVICE);
    ovs_assert(xdp_hints_has_hash(&v) && xdp_hints_has_vlan(&v));

    /* Only the hash asked for (the receive path's per-packet decode): the
     * hash and the flags, nothing else, and the same validity checks. */
    memset(&v, 0x5a, sizeof v);
    ovs_assert(xdp_hints_decode_fields(dec, f.data, 36,
                                       XDP_HINTS_VALID(RX_HASH), &v));
    ovs_assert(v.btf_id == ids.b);
    ovs_assert(v.valid == (XDP_HINTS_VALID(RX_HASH)
                           | XDP_HINTS_VALID(FLAGS)));
    ovs_assert(v.rx_hash == 0xdeadbeef && xdp_hints_has_hash(&v));
    ovs_assert(!v.rx_timestamp && !v.hash_type && !v.vlan_tci);
    ovs_assert(xdp_hints_clock(&v) == XDP_HINTS_CLOCK_NONE);
    ovs_assert(!xdp_hints_has_vlan(&v) && !xdp_hints_has_mark(&v));
    ovs_assert(!xdp_hints_decode_fields(dec, f.data, 35,
                                        XDP_HINTS_VALID(RX_HASH), &v));

    /* The flags say hash and tag hold nothing. */
    put(meta + 0, 2, XDP_HINTS_F_TIMESTAMP);
    ovs_assert(xdp_hints_decode(dec, f.data, 36, &v));
    ovs_assert(!xdp_hints_has_hash(&v) && !xdp_hints_has_vlan(&v));
    ovs_assert(xdp_hints_clock(&v) == XDP_HINTS_CLOCK_MONOTONIC);

    /* Only an id: decodes, to nothing. */
    frame_init(&f);
    put(f.data - 4, 4, ids.only_id);
    ovs_assert(xdp_hints_decode(dec, f.data, 4, &v));
    ovs_assert(!v.valid && v.btf_id == ids.only_id);
    ovs_assert(xdp_hints_clock(&v) == XDP_HINTS_CLOCK_NONE);

    /* A layout without flags: its members count as set. */
    frame_init(&f);
    meta = f.data - 20;
    put(meta + 12, 2, 42);
    put(meta + 16, 4, ids.wide);
    ovs_assert(xdp_hints_decode(dec, f.data, 20, &v));
    ovs_assert(v.vlan_tci == 42 && xdp_hints_has_vlan(&v));
    ovs_assert(!v.rx_hash);

    xdp_hints_decoder_destroy(dec);
    btf__free(btf);
    printf("decode by BTF offsets: ok\n");
}

static void
test_reject(void)
{
    struct xdp_hints_decoder *dec;
    struct xdp_hints_values v;
    struct test_layouts ids;
    struct test_frame f;
    struct test_types ty;
    struct btf *btf;

    btf = make_btf(&ty);
    add_layouts(btf, &ty, &ids);
    ovs_assert(!xdp_hints_decoder_create(btf, &dec));

    /* '*out' is left alone on failure: keep a marker in it. */
    memset(&v, 0, sizeof v);
    v.btf_id = 12345;

    /* Unknown ids: never a type, and types that are not layouts. */
    frame_init(&f);
    put(f.data - 4, 4, 9999);
    ovs_assert(!xdp_hints_decode(dec, f.data, TEST_HEADROOM - 3, &v));
    put(f.data - 4, 4, 0);
    ovs_assert(!xdp_hints_decode(dec, f.data, TEST_HEADROOM - 3, &v));
    put(f.data - 4, 4, ty.u32);
    ovs_assert(!xdp_hints_decode(dec, f.data, TEST_HEADROOM - 3, &v));
    put(f.data - 4, 4, ids.other_name);
    ovs_assert(!xdp_hints_decode(dec, f.data, TEST_HEADROOM - 3, &v));

    /* Wrong size: the struct has padding after btf_id, so its id is not
     * where the reader looks; the decoder refuses the layout outright. */
    frame_init(&f);
    put(f.data - 8, 4, ids.tail_padding);
    put(f.data - 4, 4, ids.tail_padding);
    ovs_assert(!xdp_hints_decode(dec, f.data, TEST_HEADROOM - 3, &v));
    put(f.data - 4, 4, ids.id_not_last);
    ovs_assert(!xdp_hints_decode(dec, f.data, TEST_HEADROOM - 3, &v));

    /* Truncated: fewer bytes than the layout. */
    put(f.data - 4, 4, ids.b);
    ovs_assert(xdp_hints_decode(dec, f.data, 36, &v));
    v.btf_id = 12345;
    ovs_assert(!xdp_hints_decode(dec, f.data, 35, &v));
    ovs_assert(!xdp_hints_decode(dec, f.data, 16, &v));
    put(f.data - 4, 4, ids.a);
    ovs_assert(!xdp_hints_decode(dec, f.data, 15, &v));

    /* Less than the id itself: not even read. */
    put(f.data - 4, 4, ids.only_id);
    ovs_assert(xdp_hints_decode(dec, f.data, 4, &v));
    v.btf_id = 12345;
    ovs_assert(!xdp_hints_decode(dec, f.data, 3, &v));
    ovs_assert(!xdp_hints_decode(dec, f.data, 0, &v));
    ovs_assert(v.btf_id == 12345);

    xdp_hints_decoder_destroy(dec);
    btf__free(btf);
    printf("unknown, truncated and malformed rejected: ok\n");
}

/* Members that BTF places outside their struct, wholly or in part, are
 * ignored: decoding them would read the frame, or past the buffer.  One
 * lies 64 KiB in, where a 16-bit offset would wrap to 0. */
static void
test_members_outside(void)
{
    const struct xdp_hints_layout *l;
    struct xdp_hints_decoder *dec;
    struct xdp_hints_values v;
    struct test_types ty;
    struct btf *btf;
    uint8_t *buf;
    int id;

    btf = make_btf(&ty);
    const struct test_member outside[] = {
        { "rx_hash", ty.u32, 8, 0 },
        { "rx_timestamp", ty.u64, 2, 0 },
        { "vlan_tci", ty.u16, 65536, 0 },
        { "flags", ty.u32, 0, 0 },
        { "btf_id", ty.u32, 4, 0 },
    };
    id = add_struct(btf, "xdp_hints_outside", 8, outside,
                    ARRAY_SIZE(outside));
    ovs_assert(!xdp_hints_decoder_create(btf, &dec));
    l = xdp_hints_lookup(dec, id);
    ovs_assert(l && l->size == 8 && l->valid == XDP_HINTS_VALID(FLAGS));

    /* Exactly the layout's bytes, on the heap: a sanitizer would see a
     * read past them. */
    buf = xmalloc(8);
    put(buf, 4, XDP_HINTS_F_TIMESTAMP);
    put(buf + 4, 4, id);
    ovs_assert(xdp_hints_decode(dec, buf + 8, 8, &v));
    ovs_assert(v.valid == XDP_HINTS_VALID(FLAGS) && !v.rx_hash
               && !v.rx_timestamp && !v.vlan_tci);
    ovs_assert(xdp_hints_clock(&v) == XDP_HINTS_CLOCK_NONE);
    free(buf);

    xdp_hints_decoder_destroy(dec);
    btf__free(btf);
    printf("members outside their struct ignored: ok\n");
}

static void
test_create_errors(void)
{
    struct xdp_hints_decoder *dec = (void *) 1;
    struct test_types ty;
    struct btf *btf;

    ovs_assert(xdp_hints_decoder_create(NULL, &dec) == EINVAL && !dec);

    /* No layouts at all. */
    btf = make_btf(&ty);
    dec = (void *) 1;
    ovs_assert(xdp_hints_decoder_create(btf, &dec) == ENOENT && !dec);
    btf__free(btf);

    xdp_hints_decoder_destroy(NULL);
    printf("create errors: ok\n");
}

/* Our XDP program's BTF, from the skeleton, has our two layouts, where
 * bpf/afxdp-hints.h puts their members. */
/* Decodes the frame at 'data' with 'dec' for 'fields', once as it comes
 * and once with the fast path for our own layout turned off, and checks
 * both give the same result. */
static bool
decode_both_ways(struct xdp_hints_decoder *dec, const uint8_t *data,
                 size_t meta_len, uint32_t fields,
                 struct xdp_hints_values *v)
{
    uint32_t own_id = dec->own_id;
    struct xdp_hints_values slow;
    bool ok, slow_ok;

    memset(v, 0x5a, sizeof *v);
    memset(&slow, 0x5a, sizeof slow);
    ok = xdp_hints_decode_fields(dec, data, meta_len, fields, v);
    dec->own_id = 0;
    slow_ok = xdp_hints_decode_fields(dec, data, meta_len, fields, &slow);
    dec->own_id = own_id;
    ovs_assert(ok == slow_ok);
    ovs_assert(!memcmp(v, &slow, sizeof slow));
    return ok;
}

/* A layout identical to ours, under another name, takes the fast path and
 * decodes as the general path does; one that differs in one member does
 * not take it. */
static void
test_own_layout(void)
{
    const size_t size = sizeof(struct xdp_hints_ts_hash);
    struct xdp_hints_decoder *dec;
    struct xdp_hints_values v;
    struct test_types ty;
    struct test_frame f;
    struct btf *btf;
    int mine, swapped;
    uint8_t *meta;

    btf = make_btf(&ty);
    {
        const struct test_member swapped_members[] = {
            { "rx_timestamp", ty.u64, 0, 0 },
            { "rx_hash", ty.u32, 8, 0 },
            { "hash_type", ty.u32, 12, 0 },
            { "vlan_tci", ty.u16, 16, 0 },
            { "vlan_proto", ty.u16, 18, 0 },
            { "flow_mark", ty.u32, 20, 0 },     /* Swapped with flags. */
            { "flags", ty.u32, 24, 0 },
            { "btf_id", ty.u32, 28, 0 },
        };
        const struct test_member mine_members[] = {
            { "rx_timestamp", ty.u64,
              offsetof(struct xdp_hints_ts_hash, rx_timestamp), 0 },
            { "rx_hash", ty.u32,
              offsetof(struct xdp_hints_ts_hash, rx_hash), 0 },
            { "hash_type", ty.enum4,
              offsetof(struct xdp_hints_ts_hash, hash_type), 0 },
            { "vlan_tci", ty.u16,
              offsetof(struct xdp_hints_ts_hash, vlan_tci), 0 },
            { "vlan_proto", ty.u16,
              offsetof(struct xdp_hints_ts_hash, vlan_proto), 0 },
            { "flags", ty.u32_typedef,
              offsetof(struct xdp_hints_ts_hash, flags), 0 },
            { "flow_mark", ty.u32,
              offsetof(struct xdp_hints_ts_hash, flow_mark), 0 },
            { "btf_id", ty.u32,
              offsetof(struct xdp_hints_ts_hash, btf_id), 0 },
        };

        /* The swapped one first: the first layout that is ours wins. */
        swapped = add_struct(btf, "xdp_hints_swapped", size,
                             swapped_members, ARRAY_SIZE(swapped_members));
        mine = add_struct(btf, "xdp_hints_mine", size, mine_members,
                          ARRAY_SIZE(mine_members));
    }
    ovs_assert(!xdp_hints_decoder_create(btf, &dec));
    ovs_assert(dec->n_layouts == 2);
    ovs_assert(dec->own_id == mine);

    /* Ours: every member, read at C's offsets. */
    frame_init(&f);
    meta = f.data - size;
    put(meta + offsetof(struct xdp_hints_ts_hash, rx_timestamp), 8,
        0x0102030405060708ULL);
    put(meta + offsetof(struct xdp_hints_ts_hash, rx_hash), 4, 0xcafef00d);
    put(meta + offsetof(struct xdp_hints_ts_hash, hash_type), 4,
        XDP_HINTS_HASH_L3_IPV6 | XDP_HINTS_HASH_L4 | XDP_HINTS_HASH_L4_TCP);
    put(meta + offsetof(struct xdp_hints_ts_hash, vlan_tci), 2, 0x0123);
    put(meta + offsetof(struct xdp_hints_ts_hash, vlan_proto), 2, 0x0081);
    put(meta + offsetof(struct xdp_hints_ts_hash, flags), 4,
        XDP_HINTS_F_TIMESTAMP | XDP_HINTS_F_HASH | XDP_HINTS_F_MARK);
    put(meta + offsetof(struct xdp_hints_ts_hash, flow_mark), 4, 77);
    put(meta + offsetof(struct xdp_hints_ts_hash, btf_id), 4, mine);
    ovs_assert(decode_both_ways(dec, f.data, size, UINT32_MAX, &v));
    ovs_assert(v.btf_id == mine);
    ovs_assert(v.valid == (1u << XDP_HINTS_N_FIELDS) - 1);
    ovs_assert(v.rx_timestamp == 0x0102030405060708ULL);
    ovs_assert(v.rx_hash == 0xcafef00d && xdp_hints_has_hash(&v));
    ovs_assert(v.vlan_tci == 0x0123 && v.vlan_proto == 0x0081);
    ovs_assert(xdp_hints_has_mark(&v) && v.flow_mark == 77);
    ovs_assert(xdp_hints_clock(&v) == XDP_HINTS_CLOCK_MONOTONIC);

    /* The receive path's per-packet question: hash and mark only. */
    ovs_assert(decode_both_ways(dec, f.data, size,
                                XDP_HINTS_VALID(RX_HASH)
                                | XDP_HINTS_VALID(FLOW_MARK), &v));
    ovs_assert(v.valid == (XDP_HINTS_VALID(RX_HASH)
                           | XDP_HINTS_VALID(FLOW_MARK)
                           | XDP_HINTS_VALID(FLAGS)));
    ovs_assert(!v.rx_timestamp && !v.vlan_tci && v.flow_mark == 77);

    /* Too little headroom for it: refused both ways. */
    ovs_assert(!decode_both_ways(dec, f.data, size - 1, UINT32_MAX, &v));

    /* The swapped layout reads flags and mark where its BTF says. */
    put(meta + offsetof(struct xdp_hints_ts_hash, btf_id), 4, swapped);
    ovs_assert(decode_both_ways(dec, f.data, size, UINT32_MAX, &v));
    ovs_assert(v.btf_id == swapped);
    ovs_assert(v.flags == 77
               && v.flow_mark == (XDP_HINTS_F_TIMESTAMP | XDP_HINTS_F_HASH
                                  | XDP_HINTS_F_MARK));

    /* Id 0 (a frame no program wrote into) is never ours. */
    put(meta + offsetof(struct xdp_hints_ts_hash, btf_id), 4, 0);
    ovs_assert(!decode_both_ways(dec, f.data, size, UINT32_MAX, &v));

    xdp_hints_decoder_destroy(dec);
    btf__free(btf);
    printf("our own layout, read at constant offsets: ok\n");
}

static void
test_our_program(void)
{
    const struct xdp_hints_layout *ts, *tsh;
    struct xdp_hints_decoder *dec;
    const struct btf *btf;
    struct afxdp_bpf *skel;

    afxdp_xdp_init();
    skel = afxdp_bpf__open();
    ovs_assert(skel);
    btf = bpf_object__btf(skel->obj);
    ovs_assert(btf);
    ovs_assert(!xdp_hints_decoder_create(btf, &dec));
    ovs_assert(dec->n_layouts == 2);

    ts = xdp_hints_decoder_find_name(dec, "xdp_hints_ts");
    ovs_assert(ts);
    ovs_assert(ts->btf_id == btf__find_by_name_kind(btf, "xdp_hints_ts",
                                                    BTF_KIND_STRUCT));
    ovs_assert(ts->size == sizeof(struct xdp_hints_ts));
    ovs_assert(ts->valid == (XDP_HINTS_VALID(RX_TIMESTAMP)
                             | XDP_HINTS_VALID(FLAGS)));
    ovs_assert(ts->members[XDP_HINTS_FIELD_RX_TIMESTAMP].offset
               == offsetof(struct xdp_hints_ts, rx_timestamp));
    ovs_assert(ts->members[XDP_HINTS_FIELD_FLAGS].offset
               == offsetof(struct xdp_hints_ts, flags));

    tsh = xdp_hints_decoder_find_name(dec, "xdp_hints_ts_hash");
    ovs_assert(tsh);
    ovs_assert(tsh->size == sizeof(struct xdp_hints_ts_hash));
    ovs_assert(tsh->valid == (1u << XDP_HINTS_N_FIELDS) - 1);
#define CHECK_MEMBER(FIELD, MEMBER)                                         \
    ovs_assert(tsh->members[XDP_HINTS_FIELD_##FIELD].offset                \
               == offsetof(struct xdp_hints_ts_hash, MEMBER)               \
               && tsh->members[XDP_HINTS_FIELD_##FIELD].size               \
               == sizeof ((struct xdp_hints_ts_hash *) 0)->MEMBER)
    CHECK_MEMBER(RX_TIMESTAMP, rx_timestamp);
    CHECK_MEMBER(RX_HASH, rx_hash);
    CHECK_MEMBER(HASH_TYPE, hash_type);
    CHECK_MEMBER(VLAN_TCI, vlan_tci);
    CHECK_MEMBER(VLAN_PROTO, vlan_proto);
    CHECK_MEMBER(FLAGS, flags);
    CHECK_MEMBER(FLOW_MARK, flow_mark);
#undef CHECK_MEMBER
    ovs_assert(dec->max_size == sizeof(struct xdp_hints_ts_hash));
    ovs_assert(dec->own_id == tsh->btf_id);

    printf("our program: %s (BTF id %"PRIu32", %"PRIu32" bytes), "
           "%s (BTF id %"PRIu32", %"PRIu32" bytes): ok\n",
           ts->name, ts->btf_id, ts->size, tsh->name, tsh->btf_id,
           tsh->size);
    xdp_hints_decoder_destroy(dec);
    afxdp_bpf__destroy(skel);
}

static void
test_afxdp_hints_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    test_layouts_found();
    test_decode();
    test_reject();
    test_members_outside();
    test_create_errors();
    test_own_layout();
    test_our_program();
    printf("PASS\n");
}

OVSTEST_REGISTER("test-afxdp-hints", test_afxdp_hints_main);
