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

/* Finding XDP hints layouts in BTF (see xdp-hints.h). */

#include <config.h>

#include "xdp-hints.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(xdp_hints);

/* Prefix of a layout's struct name. */
#define XDP_HINTS_PREFIX "xdp_hints_"

/* Name of the member that must end a layout. */
#define XDP_HINTS_ID_MEMBER "btf_id"

/* BTF names of the members we know, and the largest size each may have
 * (that of its member in struct xdp_hints_values). */
static const struct {
    const char *name;
    uint16_t max_size;
} fields[XDP_HINTS_N_FIELDS] = {
    [XDP_HINTS_FIELD_RX_TIMESTAMP] = { "rx_timestamp", 8 },
    [XDP_HINTS_FIELD_RX_HASH] = { "rx_hash", 4 },
    [XDP_HINTS_FIELD_HASH_TYPE] = { "hash_type", 4 },
    [XDP_HINTS_FIELD_VLAN_TCI] = { "vlan_tci", 2 },
    [XDP_HINTS_FIELD_VLAN_PROTO] = { "vlan_proto", 2 },
    [XDP_HINTS_FIELD_FLAGS] = { "flags", 4 },
    [XDP_HINTS_FIELD_FLOW_MARK] = { "flow_mark", 4 },
};

/* Name at 'offset' in 'btf', "" for none or a bad offset. */
static const char *
xdp_hints_btf_name(const struct btf *btf, uint32_t offset)
{
    const char *name = btf__name_by_offset(btf, offset);

    return name ? name : "";
}

const char *
xdp_hints_field_name(enum xdp_hints_field field)
{
    return (unsigned int) field < XDP_HINTS_N_FIELDS
           ? fields[field].name : "unknown";
}

/* If member 'i' of struct 't' in 'btf' is a whole-byte integer or enum of
 * 1, 2, 4 or 8 bytes (typedefs and qualifiers looked through) that lies
 * entirely inside the struct, stores its byte offset and size in '*m' and
 * returns true.  BTF does not promise the latter: a member placed past the
 * end would have the decoder read the frame, or past the buffer. */
static bool
xdp_hints_int_member(const struct btf *btf, const struct btf_type *t,
                     int i, struct xdp_hints_member *m)
{
    const struct btf_member *member = &btf_members(t)[i];
    const struct btf_type *mt;
    uint32_t bit_offset = btf_member_bit_offset(t, i);
    int id;

    if (btf_member_bitfield_size(t, i) || bit_offset % 8
        || t->size > UINT16_MAX) {
        return false;
    }
    id = btf__resolve_type(btf, member->type);
    if (id < 0) {
        return false;
    }
    mt = btf__type_by_id(btf, id);
    if (!mt || !(btf_is_int(mt) || btf_is_enum(mt) || btf_is_enum64(mt))) {
        return false;
    }
    if (btf_is_int(mt) && (btf_int_offset(mt)
                           || btf_int_bits(mt) != mt->size * 8)) {
        return false;
    }
    if (mt->size != 1 && mt->size != 2 && mt->size != 4 && mt->size != 8) {
        return false;
    }
    if (mt->size > t->size || bit_offset / 8 > t->size - mt->size) {
        return false;
    }
    m->offset = bit_offset / 8;
    m->size = mt->size;
    return true;
}

/* Checks whether type 'id' of 'btf' is a layout and if so fills in '*l'
 * (but not its name).  Returns true if it is one. */
static bool
xdp_hints_parse_layout(const struct btf *btf, uint32_t id,
                       struct xdp_hints_layout *l)
{
    const struct btf_type *t = btf__type_by_id(btf, id);
    struct xdp_hints_member last;
    const struct btf_member *members;
    const char *name;
    int n;

    if (!t || !btf_is_struct(t)) {
        return false;
    }
    name = xdp_hints_btf_name(btf, t->name_off);
    if (strncmp(name, XDP_HINTS_PREFIX, strlen(XDP_HINTS_PREFIX))) {
        return false;
    }

    /* The id must end the struct, so that it sits right before the frame,
     * and the struct must fit in front of a frame. */
    n = btf_vlen(t);
    members = btf_members(t);
    if (!n
        || strcmp(xdp_hints_btf_name(btf, members[n - 1].name_off),
                  XDP_HINTS_ID_MEMBER)
        || !xdp_hints_int_member(btf, t, n - 1, &last)
        || last.size != 4
        || last.offset + last.size != t->size
        || t->size > UINT16_MAX) {
        VLOG_DBG("BTF type %"PRIu32" (struct %s) is not an XDP hints layout: "
                 "it must end with a 4-byte integer '%s' and no padding",
                 id, name, XDP_HINTS_ID_MEMBER);
        return false;
    }

    memset(l, 0, sizeof *l);
    l->btf_id = id;
    l->size = t->size;
    for (int i = 0; i < n - 1; i++) {
        const char *mname = xdp_hints_btf_name(btf, members[i].name_off);

        for (int f = 0; f < XDP_HINTS_N_FIELDS; f++) {
            struct xdp_hints_member m;

            if (strcmp(mname, fields[f].name)
                || l->valid & (1u << f)) {
                continue;
            }
            if (xdp_hints_int_member(btf, t, i, &m)
                && m.size <= fields[f].max_size) {
                l->members[f] = m;
                l->valid |= 1u << f;
            } else {
                VLOG_DBG("struct %s: member '%s' ignored: not an integer of "
                         "at most %d bytes inside the struct", name, mname,
                         fields[f].max_size);
            }
        }
    }
    return true;
}

/* True if 'l' is our own layout, member for member (see
 * XDP_HINTS_OWN_MEMBERS). */
static bool
xdp_hints_layout_is_own(const struct xdp_hints_layout *l)
{
    static const struct xdp_hints_member own[] = XDP_HINTS_OWN_MEMBERS;

    if (l->size != sizeof(struct xdp_hints_ts_hash)
        || l->valid != (1u << XDP_HINTS_N_FIELDS) - 1) {
        return false;
    }
    for (size_t i = 0; i < XDP_HINTS_N_FIELDS; i++) {
        if (l->members[i].offset != own[i].offset
            || l->members[i].size != own[i].size) {
            return false;
        }
    }
    return true;
}

int
xdp_hints_decoder_create(const struct btf *btf,
                         struct xdp_hints_decoder **decp)
{
    struct xdp_hints_decoder *dec;
    size_t allocated = 0;
    uint32_t n_types;

    *decp = NULL;
    if (!btf) {
        return EINVAL;
    }

    dec = xzalloc(sizeof *dec);
    n_types = btf__type_cnt(btf);
    for (uint32_t id = 1; id < n_types; id++) {
        struct xdp_hints_layout l;

        if (!xdp_hints_parse_layout(btf, id, &l)) {
            continue;
        }
        if (dec->n_layouts >= allocated) {
            dec->layouts = x2nrealloc(dec->layouts, &allocated,
                                      sizeof *dec->layouts);
        }
        l.name = xstrdup(xdp_hints_btf_name(
                             btf, btf__type_by_id(btf, id)->name_off));
        dec->max_size = MAX(dec->max_size, l.size);
        if (!dec->own_id && xdp_hints_layout_is_own(&l)) {
            dec->own_id = l.btf_id;
        }
        dec->layouts[dec->n_layouts++] = l;
        VLOG_DBG("XDP hints layout: struct %s, BTF id %"PRIu32", %"PRIu32
                 " bytes", l.name, l.btf_id, l.size);
    }

    if (!dec->n_layouts) {
        xdp_hints_decoder_destroy(dec);
        return ENOENT;
    }
    *decp = dec;
    return 0;
}

void
xdp_hints_decoder_destroy(struct xdp_hints_decoder *dec)
{
    if (dec) {
        for (size_t i = 0; i < dec->n_layouts; i++) {
            free(dec->layouts[i].name);
        }
        free(dec->layouts);
        free(dec);
    }
}

const struct xdp_hints_layout *
xdp_hints_decoder_find_name(const struct xdp_hints_decoder *dec,
                            const char *name)
{
    for (size_t i = 0; i < dec->n_layouts; i++) {
        if (!strcmp(dec->layouts[i].name, name)) {
            return &dec->layouts[i];
        }
    }
    return NULL;
}
