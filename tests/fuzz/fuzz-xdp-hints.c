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

/* libFuzzer target for the XDP hints decoder (lib/xdp-hints.c): BTF
 * layouts, then metadata bytes decoded with them.
 *
 * The input is a little program that builds BTF with libbpf's BTF writer,
 * so that every BTF is well formed the way the kernel's verifier or
 * libbpf's ELF loader would leave it (types exist, names are strings) and
 * the fuzzer spends its time on what our decoder must check: names,
 * member offsets, sizes, bitfields, typedef chains, struct sizes.
 *
 *   Fixed base types: ids 1..BASE_N (see add_base_types()).
 *   Then ops, one byte each, until OP_END or the input ends:
 *     OP_STRUCT  name, size (u32), n_members, then per member:
 *                name, type, bit offset (u32), bitfield bits
 *     OP_MOD     kind (typedef, const, volatile), type
 *   The rest is the metadata area: it ends where the frame begins.
 *
 * The BTF goes through libbpf's raw encoding and parser, like a program's
 * BTF read from an ELF file, before the decoder sees it.  Each layout found
 * is then used to decode the metadata, in a heap buffer that ends exactly
 * where the frame would begin, so that AddressSanitizer catches a read of
 * the frame or past the area.  The decoder's promises are checked too (a
 * member lies inside its layout, decoding never reads more than the layout
 * says); a broken one aborts. */

#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "openvswitch/vlog.h"
#include "util.h"
#include "xdp-hints.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads bytes of the input; past its end, reads zeros. */
struct reader {
    const uint8_t *p;
    size_t left;
};

static uint8_t
read_u8(struct reader *r)
{
    if (!r->left) {
        return 0;
    }
    r->left--;
    return *r->p++;
}

static uint32_t
read_u32(struct reader *r)
{
    uint32_t v = 0;

    for (int i = 0; i < 4; i++) {
        v |= (uint32_t) read_u8(r) << (8 * i);
    }
    return v;
}

enum {
    OP_STRUCT,
    OP_MOD,
    OP_END,
    N_OPS
};

/* Names that matter to the decoder, and a few that do not. */
static const char *const struct_names[] = {
    "xdp_hints_a", "xdp_hints_b", "xdp_hints_", "xdp_hint", "rx_meta", "",
    "xdp_hints_ts_hash_vlan_and_then_a_much_longer_name",
};
static const char *const member_names[] = {
    "rx_timestamp", "rx_hash", "hash_type", "vlan_tci", "vlan_proto",
    "flags", "btf_id", "pad", "", "rx_timestamp_", "flow_mark",
};

#define N_BASE 10

/* Adds the base types: ints of every size, signed and unsigned, enums, a
 * typedef, a pointer and a struct that is not an integer. */
static void
add_base_types(struct btf *btf)
{
    int u32, id;

    btf__add_int(btf, "unsigned char", 1, 0);
    btf__add_int(btf, "short", 2, BTF_INT_SIGNED);
    u32 = btf__add_int(btf, "unsigned int", 4, 0);
    btf__add_int(btf, "unsigned long long", 8, 0);
    btf__add_int(btf, "unsigned __int128", 16, 0);
    btf__add_typedef(btf, "__u32", u32);
    btf__add_enum(btf, "hash_kind", 4);
    btf__add_enum_value(btf, "HASH_KIND_L4", 8);
    btf__add_enum64(btf, "wide_kind", 8, false);
    btf__add_enum64_value(btf, "WIDE_KIND_X", 1ULL << 40);
    btf__add_ptr(btf, u32);
    id = btf__add_struct(btf, "pair", 8);
    btf__add_field(btf, "a", u32, 0, 0);
    btf__add_field(btf, "b", u32, 32, 0);
    ovs_assert(id == N_BASE);
}

/* Type id chosen by byte 'b' among the 'n_types' - 1 types (0 is void). */
static int
pick_type(uint8_t b, uint32_t n_types)
{
    return b % n_types;
}

static void
build_btf(struct btf *btf, struct reader *r)
{
    add_base_types(btf);
    for (int n_ops = 0; r->left && n_ops < 16; n_ops++) {
        uint8_t op = read_u8(r) % N_OPS;

        if (op == OP_STRUCT) {
            const char *name = struct_names[read_u8(r)
                                            % ARRAY_SIZE(struct_names)];
            uint32_t size = read_u32(r);
            int n = read_u8(r) % 12;

            if (btf__add_struct(btf, name, size) < 0) {
                continue;
            }
            for (int i = 0; i < n; i++) {
                const char *mname = member_names[read_u8(r)
                                                 % ARRAY_SIZE(member_names)];
                int type = pick_type(read_u8(r), btf__type_cnt(btf));
                uint32_t bit_offset = read_u32(r);
                uint8_t bits = read_u8(r);

                /* Mostly whole members, sometimes a bitfield. */
                btf__add_field(btf, mname, type, bit_offset,
                               bits & 0x80 ? bits & 0x3f : 0);
            }
        } else if (op == OP_MOD) {
            uint8_t kind = read_u8(r) % 3;
            int type = pick_type(read_u8(r), btf__type_cnt(btf));

            if (kind == 0) {
                btf__add_typedef(btf, "alias", type);
            } else if (kind == 1) {
                btf__add_const(btf, type);
            } else {
                btf__add_volatile(btf, type);
            }
        } else {
            break;
        }
    }
}

/* Checks what the decoder promises about layout 'l'. */
static void
check_layout(const struct xdp_hints_layout *l)
{
    ovs_assert(l->size >= sizeof(uint32_t));
    for (int f = 0; f < XDP_HINTS_N_FIELDS; f++) {
        const struct xdp_hints_member *m = &l->members[f];

        if (l->valid & (1u << f)) {
            ovs_assert(m->size == 1 || m->size == 2 || m->size == 4
                       || m->size == 8);
            ovs_assert((uint32_t) m->offset + m->size <= l->size);
        }
    }
}

/* Decodes 'meta_len' bytes 'meta' as the area in front of a frame, with
 * the last 4 bytes replaced by 'btf_id' unless it is 0. */
static void
decode(const struct xdp_hints_decoder *dec, const uint8_t *meta,
       size_t meta_len, uint32_t btf_id)
{
    /* At least one byte, so that malloc() returns a buffer to end at. */
    uint8_t *buf = xmalloc(meta_len ? meta_len : 1);
    uint8_t *frame = buf + meta_len;
    struct xdp_hints_values v;
    bool ok;

    memcpy(buf, meta, meta_len);
    if (btf_id && meta_len >= sizeof btf_id) {
        memcpy(frame - sizeof btf_id, &btf_id, sizeof btf_id);
    }
    ok = xdp_hints_decode(dec, frame, meta_len, &v);
    if (ok) {
        const struct xdp_hints_layout *l = xdp_hints_lookup(dec, v.btf_id);

        ovs_assert(l && l->size <= meta_len && v.valid == l->valid);
        /* Let the sanitizers see every value used. */
        xdp_hints_clock(&v);
        xdp_hints_has_hash(&v);
        xdp_hints_has_vlan(&v);
    }
    free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct reader r = { data, size };
    struct xdp_hints_decoder *dec;
    struct btf *btf, *parsed;
    const void *raw;
    uint32_t raw_size;
    static bool quiet;
    int error;

    if (!quiet) {
        /* The decoder logs what it skips, at DBG; not needed here. */
        vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_OFF);
        quiet = true;
    }

    btf = btf__new_empty();
    ovs_assert(btf);
    build_btf(btf, &r);

    /* Through the raw encoding, as from a program's ELF file. */
    raw = btf__raw_data(btf, &raw_size);
    ovs_assert(raw);
    parsed = btf__new(raw, raw_size);
    ovs_assert(parsed);
    btf__free(btf);

    error = xdp_hints_decoder_create(parsed, &dec);
    btf__free(parsed);
    if (error) {
        ovs_assert(error == ENOENT && !dec);
        return 0;
    }

    ovs_assert(dec->n_layouts > 0);
    for (size_t i = 0; i < dec->n_layouts; i++) {
        const struct xdp_hints_layout *l = &dec->layouts[i];

        check_layout(l);
        ovs_assert(l->size <= dec->max_size);
        ovs_assert(xdp_hints_decoder_find_name(dec, l->name));
    }

    /* The metadata as given, then carrying each layout's id. */
    decode(dec, r.p, r.left, 0);
    for (size_t i = 0; i < dec->n_layouts; i++) {
        decode(dec, r.p, r.left, dec->layouts[i].btf_id);
    }

    xdp_hints_decoder_destroy(dec);
    return 0;
}
