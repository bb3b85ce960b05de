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

#ifndef XDP_HINTS_H
#define XDP_HINTS_H 1

/* Decoding XDP hints: metadata an XDP program wrote in front of a frame it
 * redirected to an AF_XDP socket, in a layout its BTF describes.
 *
 * The format (bpf/afxdp-hints.h has ours): the metadata area ends where the
 * frame begins, and its last 4 bytes are the BTF type id of a struct that
 * describes the whole area.  A layout is any struct in the program's BTF
 * whose name starts with "xdp_hints_" and whose last member is a 4-byte
 * integer "btf_id" ending exactly at the end of the struct.  Members are
 * found by name and read at the offset and with the size BTF gives them:
 * "rx_timestamp", "rx_hash", "hash_type", "vlan_tci", "vlan_proto",
 * "flags" and "flow_mark", each optional, each an integer (or enum) no
 * wider than the matching member of struct xdp_hints_values and inside the
 * struct.  Other members are ignored.  The BTF decides how a layout is
 * read, not the C definitions of ours, so a program built from another
 * version of them, or anyone's program that follows the format, is decoded
 * correctly or refused; a layout found identical to our own is only read
 * faster (XDP_HINTS_OWN_MEMBERS).
 *
 * Control path: xdp_hints_decoder_create() and _destroy() allocate and may
 * log (at DBG).  Fast path: xdp_hints_decode() and the helpers after it
 * are static inline, do not allocate, log or lock, and only read the
 * decoder, so any number of threads may share one decoder once created.
 *
 * Byte order: members are read in host byte order, as the XDP program
 * wrote them on this host.  A member that holds a network-order value
 * (ours: vlan_proto) comes out as stored, still in network order. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bpf/afxdp-hints.h"
#include "compiler.h"

struct btf;

/* Members the decoder knows, by their bit in 'valid'. */
enum xdp_hints_field {
    XDP_HINTS_FIELD_RX_TIMESTAMP,
    XDP_HINTS_FIELD_RX_HASH,
    XDP_HINTS_FIELD_HASH_TYPE,
    XDP_HINTS_FIELD_VLAN_TCI,
    XDP_HINTS_FIELD_VLAN_PROTO,
    XDP_HINTS_FIELD_FLAGS,
    XDP_HINTS_FIELD_FLOW_MARK,
    XDP_HINTS_N_FIELDS
};

/* Bit of 'valid' for member XDP_HINTS_FIELD_<NAME>. */
#define XDP_HINTS_VALID(NAME) (1u << XDP_HINTS_FIELD_##NAME)

/* Where one member is in a layout.  'size' 0 means absent. */
struct xdp_hints_member {
    uint16_t offset;            /* Bytes from the start of the struct. */
    uint16_t size;              /* 1, 2, 4 or 8. */
};

/* One layout found in the BTF. */
struct xdp_hints_layout {
    uint32_t btf_id;            /* Its BTF type id: the value in the area. */
    uint32_t size;              /* Bytes of metadata it occupies. */
    uint32_t valid;             /* XDP_HINTS_VALID() bits of the members it
                                 * has. */
    struct xdp_hints_member members[XDP_HINTS_N_FIELDS];
    char *name;                 /* Struct name, e.g. "xdp_hints_ts". */
};

/* The layouts of one BTF.  Read-only once created. */
struct xdp_hints_decoder {
    struct xdp_hints_layout *layouts;   /* In BTF order. */
    size_t n_layouts;
    uint32_t max_size;          /* Largest layout's size. */
    uint32_t own_id;            /* BTF id of the first layout that is ours,
                                 * member for member (see
                                 * XDP_HINTS_OWN_MEMBERS), or 0. */
};

/* Where each member is in our own layout, struct xdp_hints_ts_hash, as C
 * lays it out.  A layout that the decoder finds to match it exactly (same
 * size, every member at the same offset with the same size), whatever its
 * name, is decoded with these constants instead of the offsets read from
 * BTF: the per-packet decode becomes a compare and a few loads.  The BTF
 * still decides: a layout that differs in any member takes the general
 * path. */
#define XDP_HINTS_OWN_MEMBER__(MEMBER)                                  \
    { offsetof(struct xdp_hints_ts_hash, MEMBER),                      \
      sizeof ((struct xdp_hints_ts_hash *) 0)->MEMBER }
#define XDP_HINTS_OWN_MEMBERS {                                         \
    [XDP_HINTS_FIELD_RX_TIMESTAMP] = XDP_HINTS_OWN_MEMBER__(rx_timestamp), \
    [XDP_HINTS_FIELD_RX_HASH] = XDP_HINTS_OWN_MEMBER__(rx_hash),        \
    [XDP_HINTS_FIELD_HASH_TYPE] = XDP_HINTS_OWN_MEMBER__(hash_type),    \
    [XDP_HINTS_FIELD_VLAN_TCI] = XDP_HINTS_OWN_MEMBER__(vlan_tci),      \
    [XDP_HINTS_FIELD_VLAN_PROTO] = XDP_HINTS_OWN_MEMBER__(vlan_proto),  \
    [XDP_HINTS_FIELD_FLAGS] = XDP_HINTS_OWN_MEMBER__(flags),            \
    [XDP_HINTS_FIELD_FLOW_MARK] = XDP_HINTS_OWN_MEMBER__(flow_mark),    \
}

/* Values decoded from one frame's metadata.  Members not in the layout are
 * zero, and their bit in 'valid' is clear.  A member being present does
 * not mean the program had a value for it: see 'flags' (our layouts say
 * there which members hold a value) and the helpers below. */
struct xdp_hints_values {
    uint32_t valid;             /* XDP_HINTS_VALID() bits. */
    uint32_t btf_id;            /* Layout the frame carried. */
    uint64_t rx_timestamp;      /* Nanoseconds. */
    uint32_t rx_hash;
    uint32_t hash_type;         /* XDP_HINTS_HASH_* bits. */
    uint32_t flags;             /* XDP_HINTS_F_* bits. */
    uint16_t vlan_tci;
    uint16_t vlan_proto;        /* As stored: network byte order in ours. */
    uint32_t flow_mark;         /* OVS flow mark of an offloaded flow. */
};

/* Scans 'btf' for layouts (see above).  On success returns 0 and stores in
 * '*decp' a new decoder, owned by the caller (free it with
 * xdp_hints_decoder_destroy()); it does not refer to 'btf' afterwards.
 * Returns EINVAL for a null 'btf', ENOENT if it holds no layout (then
 * '*decp' is NULL).  Structs named like layouts that break the rules are
 * skipped and logged at DBG. */
int xdp_hints_decoder_create(const struct btf *btf,
                             struct xdp_hints_decoder **decp);
void xdp_hints_decoder_destroy(struct xdp_hints_decoder *dec);

/* The layout named 'name', or NULL.  Control path (tests, status). */
const struct xdp_hints_layout *xdp_hints_decoder_find_name(
    const struct xdp_hints_decoder *dec, const char *name);

/* Name of member 'field' in BTF, e.g. "rx_timestamp". */
const char *xdp_hints_field_name(enum xdp_hints_field field);

/* The layout with BTF id 'btf_id', or NULL.  There are a handful of
 * layouts at most: a linear search is as fast as anything. */
static inline const struct xdp_hints_layout *
xdp_hints_lookup(const struct xdp_hints_decoder *dec, uint32_t btf_id)
{
    for (size_t i = 0; i < dec->n_layouts; i++) {
        if (dec->layouts[i].btf_id == btf_id) {
            return &dec->layouts[i];
        }
    }
    return NULL;
}

/* Reads the 'm->size'-byte integer at 'm->offset' of 'meta'. */
static inline uint64_t
xdp_hints_read__(const uint8_t *meta, const struct xdp_hints_member *m)
{
    const uint8_t *p = meta + m->offset;
    uint64_t v8;
    uint32_t v4;
    uint16_t v2;

    /* The area is only 4-byte aligned in general: memcpy, which compilers
     * turn into a plain load where that is allowed. */
    switch (m->size) {
    case 1:
        return *p;
    case 2:
        memcpy(&v2, p, sizeof v2);
        return v2;
    case 4:
        memcpy(&v4, p, sizeof v4);
        return v4;
    default:
        memcpy(&v8, p, sizeof v8);
        return v8;
    }
}

/* Decodes the metadata in front of 'data', of which there are 'meta_len'
 * bytes that may be read (in AF_XDP, the headroom in front of the frame:
 * the descriptor does not say how much of it is metadata).  Returns true
 * and fills '*out' if the 4 bytes before 'data' are the BTF id of a layout
 * of 'dec' and 'meta_len' covers that layout.  Returns false, leaving
 * '*out' alone, if 'meta_len' < 4, the id is unknown or 'meta_len' is too
 * short for the layout; the caller counts those.
 *
 * Only the members in 'fields' (XDP_HINTS_VALID() bits) are read, and
 * 'flags', which says which of them hold a value; the others read as
 * absent.  With 'fields' a constant, the compiler leaves out the reads
 * of the others (it is always inlined so that it can): the fast path asks
 * only for what it uses per packet. */
/* Fills '*out' from the layout at 'meta' whose members are 'members',
 * reading those of 'valid'.  Always inlined, so that constant 'members'
 * and 'valid' become constant offsets and no reads. */
static inline ALWAYS_INLINE void
xdp_hints_fill__(const uint8_t *meta, const struct xdp_hints_member *members,
                 uint32_t valid, uint32_t btf_id,
                 struct xdp_hints_values *out)
{
    memset(out, 0, sizeof *out);
    out->valid = valid;
    out->btf_id = btf_id;
#define XDP_HINTS_GET__(NAME, MEMBER)                                   \
    if (valid & XDP_HINTS_VALID(NAME)) {                             \
        out->MEMBER = xdp_hints_read__(                                 \
            meta, &members[XDP_HINTS_FIELD_##NAME]);                    \
    }
    XDP_HINTS_GET__(RX_TIMESTAMP, rx_timestamp);
    XDP_HINTS_GET__(RX_HASH, rx_hash);
    XDP_HINTS_GET__(HASH_TYPE, hash_type);
    XDP_HINTS_GET__(VLAN_TCI, vlan_tci);
    XDP_HINTS_GET__(VLAN_PROTO, vlan_proto);
    XDP_HINTS_GET__(FLAGS, flags);
    XDP_HINTS_GET__(FLOW_MARK, flow_mark);
#undef XDP_HINTS_GET__
}

static inline ALWAYS_INLINE bool
xdp_hints_decode_fields(const struct xdp_hints_decoder *dec,
                        const uint8_t *data, size_t meta_len,
                        uint32_t fields, struct xdp_hints_values *out)
{
    const struct xdp_hints_layout *l;
    uint32_t btf_id;

    if (meta_len < sizeof btf_id) {
        return false;
    }
    memcpy(&btf_id, data - sizeof btf_id, sizeof btf_id);
    if (OVS_LIKELY(btf_id == dec->own_id && btf_id)) {
        static const struct xdp_hints_member own[] = XDP_HINTS_OWN_MEMBERS;

        /* Ours has every member. */
        if (meta_len < sizeof(struct xdp_hints_ts_hash)) {
            return false;
        }
        xdp_hints_fill__(data - sizeof(struct xdp_hints_ts_hash), own,
                         (fields | XDP_HINTS_VALID(FLAGS))
                         & ((1u << XDP_HINTS_N_FIELDS) - 1), btf_id, out);
        return true;
    }
    l = xdp_hints_lookup(dec, btf_id);
    if (!l || meta_len < l->size) {
        return false;
    }
    xdp_hints_fill__(data - l->size, l->members,
                     l->valid & (fields | XDP_HINTS_VALID(FLAGS)), btf_id,
                     out);
    return true;
}

/* Decodes every member the layout has: xdp_hints_decode_fields() with all
 * of them. */
static inline bool
xdp_hints_decode(const struct xdp_hints_decoder *dec, const uint8_t *data,
                 size_t meta_len, struct xdp_hints_values *out)
{
    return xdp_hints_decode_fields(dec, data, meta_len,
                                   (1u << XDP_HINTS_N_FIELDS) - 1, out);
}

/* True if the layout has member XDP_HINTS_FIELD_<FIELD> and, when it also
 * has 'flags', flag 'FLAG' says the member holds a value. */
static inline bool
xdp_hints_has__(const struct xdp_hints_values *v, uint32_t field_bit,
                uint32_t flag)
{
    return (v->valid & field_bit)
           && (!(v->valid & XDP_HINTS_VALID(FLAGS)) || v->flags & flag);
}

/* Clock of a decoded rx_timestamp. */
enum xdp_hints_clock {
    XDP_HINTS_CLOCK_NONE,       /* No timestamp. */
    XDP_HINTS_CLOCK_MONOTONIC,  /* CLOCK_MONOTONIC, from the XDP program. */
    XDP_HINTS_CLOCK_DEVICE,     /* The device's clock (its PHC). */
    XDP_HINTS_CLOCK_UNKNOWN,    /* A layout without 'flags' to say. */
};

static inline enum xdp_hints_clock
xdp_hints_clock(const struct xdp_hints_values *v)
{
    if (!xdp_hints_has__(v, XDP_HINTS_VALID(RX_TIMESTAMP),
                         XDP_HINTS_F_TIMESTAMP)) {
        return XDP_HINTS_CLOCK_NONE;
    } else if (!(v->valid & XDP_HINTS_VALID(FLAGS))) {
        return XDP_HINTS_CLOCK_UNKNOWN;
    }
    return (v->flags & XDP_HINTS_F_TS_DEVICE
            ? XDP_HINTS_CLOCK_DEVICE : XDP_HINTS_CLOCK_MONOTONIC);
}

/* True if 'v' holds the device's rx hash (and hash type, if present). */
static inline bool
xdp_hints_has_hash(const struct xdp_hints_values *v)
{
    return xdp_hints_has__(v, XDP_HINTS_VALID(RX_HASH), XDP_HINTS_F_HASH);
}

/* True if 'v' holds a VLAN tag the device stripped. */
static inline bool
xdp_hints_has_vlan(const struct xdp_hints_values *v)
{
    return xdp_hints_has__(v, XDP_HINTS_VALID(VLAN_TCI), XDP_HINTS_F_VLAN);
}

/* True if 'v' holds the flow mark of a partially offloaded flow.  Only a
 * layout with flags can say so: a mark is never assumed. */
static inline bool
xdp_hints_has_mark(const struct xdp_hints_values *v)
{
    return ((v->valid & XDP_HINTS_VALID(FLOW_MARK))
            && (v->valid & XDP_HINTS_VALID(FLAGS))
            && (v->flags & XDP_HINTS_F_MARK));
}

#endif /* xdp-hints.h */
