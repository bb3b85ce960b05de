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

/* Loading, attaching and driving our XDP program (see afxdp-xdp.h).
 *
 * The BPF object comes from the bpftool-generated skeleton (afxdp.skel.h),
 * which embeds bpf/afxdp.bpf.o.  libxdp loads and attaches it: through its
 * multi-program dispatcher where the kernel allows that, otherwise alone.
 * Where libxdp cannot attach it at all (e.g. its own BPF objects,
 * xdp-dispatcher.o, are not installed), we load the object again with
 * libbpf and attach the program through a BPF link, which the kernel
 * removes when the link's last file descriptor is closed, at the latest
 * when the process dies.  Map file descriptors come from the skeleton once
 * the object is loaded, and stay owned by it.
 *
 * With XDP hints in native mode the object's other program, afxdp_ovs_dev,
 * may be loaded instead: device-bound, and attached with libbpf alone
 * (libxdp 1.3 knows nothing of device-bound programs, and its dispatcher
 * could not run one: a device-bound program can be neither an extension
 * program nor extended).
 *
 * Programs of ours are recognised on a device by their kernel name, which is
 * the name of the XDP function in bpf/afxdp.bpf.c (AFXDP_XDP_PROG_NAME and
 * AFXDP_XDP_DEV_PROG_NAME). */

#include <config.h>

#include "afxdp-xdp.h"

#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/genetlink.h>
#include <xdp/libxdp.h>

#include "afxdp-compat.h"
#include "afxdp-xdp-features.h"
#include "bpf/afxdp.skel.h"
#include "netlink.h"
#include "netlink-socket.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afxdp_xdp);

/* Kernel name of our XDP program: the function name in bpf/afxdp.bpf.c,
 * which is also the member of the skeleton's 'progs' used below, so that
 * renaming one without the other does not compile.  The kernel keeps 15
 * characters of a program name; this one fits. */
#define AFXDP_XDP_PROG_NAME "afxdp_ovs_redir"

/* Kernel name of the device-bound variant, likewise the skeleton's
 * 'progs' member of that name. */
#define AFXDP_XDP_DEV_PROG_NAME "afxdp_ovs_dev"

/* Kernel name of libxdp's multi-program dispatcher. */
#define AFXDP_XDP_DISPATCHER_NAME "xdp_dispatcher"

/* Upper bound on the programs of ours removed from one dispatcher, so that a
 * misbehaving libxdp cannot keep us looping. */
#define AFXDP_XDP_MAX_STALE 8

struct afxdp_xdp {
    char *devname;              /* Device name, for log messages. */
    int ifindex;                /* Device the program is attached to. */
    enum afxdp_xdp_mode mode;   /* Mode it is attached in. */
    bool dispatcher;            /* Runs inside libxdp's dispatcher. */
    bool dev_bound;             /* afxdp_ovs_dev, attached by libbpf. */
    enum xdp_hints_mode hints;  /* Value of the program's hints_mode. */
    bool offload;               /* Value of the program's offload_on. */
    char *hints_desc;           /* afxdp_xdp_hints_desc(). */
    uint32_t prog_id;           /* Kernel id of our program. */
    struct afxdp_bpf *skel;     /* Owns the BPF object and its maps. */
    struct xdp_program *prog;   /* libxdp's handle on the skeleton's prog;
                                 * NULL when 'dev_bound' or 'link_fd' is
                                 * in use. */
    int link_fd;                /* BPF link attaching our program when
                                 * libxdp could not, else -1. */
    char *attach_desc;          /* afxdp_xdp_attach_desc() when malloc'd
                                 * (BPF link), else NULL. */
    int xsks_map_fd;            /* 'xsks_map', owned by 'skel'. */
    int stats_fd;               /* 'afxdp_stats', owned by 'skel'. */
};

/* Names of the program's counters, indexed by enum afxdp_prog_counter. */
#define AFXDP_PROG_COUNTER_NAME(ID, NAME) [AFXDP_PROG_##ID] = #NAME,
static const char *const counter_names[] = {
    AFXDP_PROG_COUNTERS(AFXDP_PROG_COUNTER_NAME)
};
BUILD_ASSERT_DECL(ARRAY_SIZE(counter_names) == AFXDP_PROG_N_COUNTERS);

/* Logs one libbpf or libxdp message: their warnings at INFO (many of them
 * describe fallbacks that are expected, see afxdp-xdp.h), the rest at DBG.
 * Both libraries end messages with a new-line, which vlog does not want. */
static void
afxdp_xdp_log_lib(bool warning, const char *format, va_list args)
{
    enum vlog_level level = warning ? VLL_INFO : VLL_DBG;
    size_t len;
    char *msg;

    if (!vlog_is_enabled(&this_module, level)) {
        return;
    }

    msg = xvasprintf(format, args);
    len = strlen(msg);
    while (len > 0 && msg[len - 1] == '\n') {
        msg[--len] = '\0';
    }
    vlog(&this_module, level, "%s", msg);
    free(msg);
}

static int
afxdp_xdp_libbpf_print(enum libbpf_print_level level, const char *format,
                       va_list args)
{
    afxdp_xdp_log_lib(level == LIBBPF_WARN, format, args);
    return 0;
}

static int
afxdp_xdp_libxdp_print(enum libxdp_print_level level, const char *format,
                       va_list args)
{
    afxdp_xdp_log_lib(level == LIBXDP_WARN, format, args);
    return 0;
}

void
afxdp_xdp_init(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        libbpf_set_print(afxdp_xdp_libbpf_print);
        libxdp_set_print(afxdp_xdp_libxdp_print);
        ovsthread_once_done(&once);
    }
}

static enum xdp_attach_mode
afxdp_xdp_libxdp_mode(enum afxdp_xdp_mode mode)
{
    return mode == AFXDP_XDP_NATIVE ? XDP_MODE_NATIVE : XDP_MODE_SKB;
}

static const char *
afxdp_xdp_mode_name(enum afxdp_xdp_mode mode)
{
    return mode == AFXDP_XDP_NATIVE ? "native" : "generic";
}

/* True if 'name' is the kernel name of one of our programs. */
static bool
afxdp_xdp_is_ours(const char *name)
{
    return name && (!strcmp(name, AFXDP_XDP_PROG_NAME)
                    || !strcmp(name, AFXDP_XDP_DEV_PROG_NAME));
}

/* Reads the kernel name of the program with file descriptor 'fd' into
 * 'name' (BPF_OBJ_NAME_LEN bytes).  Returns 0 or a positive errno. */
static int
afxdp_xdp_prog_name(int fd, char name[BPF_OBJ_NAME_LEN])
{
    struct bpf_prog_info info;
    uint32_t len = sizeof info;
    int ret;

    memset(&info, 0, sizeof info);
    ret = bpf_obj_get_info_by_fd(fd, &info, &len);
    if (ret) {
        return -ret;
    }
    ovs_strlcpy(name, info.name, BPF_OBJ_NAME_LEN);
    return 0;
}

/* Removes the programs of ours from the libxdp dispatcher attached to
 * 'ifindex' as program 'dispatcher_id'.  Each removal makes libxdp rebuild
 * (or drop) the dispatcher, so the dispatcher is read again after each.
 * Returns the number of programs removed. */
static int
afxdp_xdp_remove_from_dispatcher(int ifindex, uint32_t dispatcher_id)
{
    int removed = 0;

    while (removed < AFXDP_XDP_MAX_STALE) {
        LIBBPF_OPTS(bpf_xdp_query_opts, query);
        struct xdp_program *main_prog, *p;
        struct xdp_multiprog *mp;
        bool found = false;
        int ret = 0;

        mp = xdp_multiprog__get_from_ifindex(ifindex);
        if (!mp || libxdp_get_error(mp)) {
            break;
        }
        main_prog = xdp_multiprog__main_prog(mp);
        if (xdp_multiprog__is_legacy(mp)
            || xdp_program__id(main_prog) != dispatcher_id) {
            xdp_multiprog__close(mp);
            break;
        }
        for (p = xdp_multiprog__next_prog(NULL, mp); p;
             p = xdp_multiprog__next_prog(p, mp)) {
            if (afxdp_xdp_is_ours(xdp_program__name(p))) {
                found = true;
                ret = xdp_program__detach(p, ifindex,
                                          xdp_multiprog__attach_mode(mp), 0);
                break;
            }
        }
        xdp_multiprog__close(mp);
        if (!found || ret) {
            if (ret) {
                VLOG_DBG("ifindex %d: could not remove XDP program from "
                         "libxdp dispatcher: %s", ifindex, ovs_strerror(-ret));
            }
            break;
        }
        removed++;

        /* A dispatcher left with other programs gets a new id; follow it. */
        if (bpf_xdp_query(ifindex, 0, &query)) {
            break;
        }
        dispatcher_id = query.drv_prog_id ? query.drv_prog_id
                                          : query.skb_prog_id;
    }
    return removed;
}

/* Removes what is ours from the program 'prog_id' attached to 'ifindex' in
 * the mode given by 'flags' (XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE): the
 * program itself if it is ours, or our programs inside it if it is a libxdp
 * dispatcher.  Returns the number of programs removed. */
static int
afxdp_xdp_remove_slot(int ifindex, uint32_t prog_id, uint32_t flags)
{
    char name[BPF_OBJ_NAME_LEN];
    int removed = 0;
    int fd;

    if (!prog_id) {
        return 0;
    }
    fd = bpf_prog_get_fd_by_id(prog_id);
    if (fd < 0) {
        return 0;               /* Gone meanwhile. */
    }

    if (afxdp_xdp_prog_name(fd, name)) {
        /* Cannot tell whose it is: leave it alone. */
    } else if (afxdp_xdp_is_ours(name)) {
        /* XDP_FLAGS_REPLACE with 'old_prog_fd' detaches only if this very
         * program is still the one attached. */
        LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = fd);
        int ret = bpf_xdp_detach(ifindex, flags | XDP_FLAGS_REPLACE, &opts);

        if (!ret) {
            removed = 1;
        } else {
            VLOG_DBG("ifindex %d: could not detach XDP program %"PRIu32": "
                     "%s", ifindex, prog_id, ovs_strerror(-ret));
        }
    } else if (!strcmp(name, AFXDP_XDP_DISPATCHER_NAME)) {
        removed = afxdp_xdp_remove_from_dispatcher(ifindex, prog_id);
    }
    close(fd);
    return removed;
}

int
afxdp_xdp_remove_ours(int ifindex)
{
    LIBBPF_OPTS(bpf_xdp_query_opts, query);
    int removed;

    if (bpf_xdp_query(ifindex, 0, &query)) {
        return 0;               /* No such device, or no XDP support. */
    }

    /* The kernel does not allow native and generic programs at once, but
     * looking at both costs nothing. */
    removed = afxdp_xdp_remove_slot(ifindex, query.drv_prog_id,
                                    XDP_FLAGS_DRV_MODE);
    removed += afxdp_xdp_remove_slot(ifindex, query.skb_prog_id,
                                     XDP_FLAGS_SKB_MODE);
    return removed;
}

/* Returns a malloc'd message, starting with the device name, for the
 * failure 'error' of attaching 'xdp'. */
static char *
afxdp_xdp_attach_error(const struct afxdp_xdp *xdp, int error)
{
    const char *dev = xdp->devname;
    const char *mode = afxdp_xdp_mode_name(xdp->mode);

    switch (error) {
    case EOPNOTSUPP:
        if (xdp->mode == AFXDP_XDP_NATIVE) {
            return xasprintf("%s: the driver does not support native XDP "
                             "(%s); try options:xdp-mode=generic", dev,
                             ovs_strerror(error));
        }
        return xasprintf("%s: the device does not support XDP (%s)", dev,
                         ovs_strerror(error));
    case ERANGE:
        return xasprintf("%s: the MTU is too large for %s XDP (%s); lower "
                         "the MTU (for veth, also the peer's) or try "
                         "options:xdp-mode=generic", dev, mode,
                         ovs_strerror(error));
    case EBUSY:
    case EEXIST:
        return xasprintf("%s: another XDP program is attached to the "
                         "device (%s); remove it first, e.g. with "
                         "'ip link set dev %s xdp off'", dev,
                         ovs_strerror(error), dev);
    case EPERM:
    case EACCES:
        return xasprintf("%s: not allowed to load or attach an XDP program "
                         "(%s); run ovs-vswitchd as root or with CAP_BPF, "
                         "CAP_PERFMON and CAP_NET_ADMIN, and see the "
                         "afxdp_xdp log for the kernel's reason", dev,
                         ovs_strerror(error));
    default:
        return xasprintf("%s: could not attach XDP program in %s mode (%s); "
                         "the afxdp_xdp log has libbpf's and libxdp's "
                         "details", dev, mode, ovs_strerror(error));
    }
}

/* Who loads and attaches the program. */
enum afxdp_xdp_loader {
    AFXDP_XDP_LOADER_LIBXDP,    /* afxdp_ovs_redir, by libxdp. */
    AFXDP_XDP_LOADER_LINK,      /* afxdp_ovs_redir, by libbpf, BPF link. */
    AFXDP_XDP_LOADER_DEV_BOUND, /* afxdp_ovs_dev, by libbpf, netlink. */
};

/* Gives the flow offload's maps of 'skel', not yet loaded, one entry each:
 * a program without the lookup (offload_on off) never reads them, and at
 * full size they hold 2.3 MiB of kernel memory a port.  The masks map
 * keeps its one entry, which userspace may read. */
static void
afxdp_xdp_shrink_flow_maps(struct afxdp_bpf *skel)
{
    struct bpf_map *maps[] = {
        skel->maps.afxdp_flows, skel->maps.afxdp_flow_stats,
        skel->maps.afxdp_flow_buckets, skel->maps.afxdp_mask_hits,
        skel->maps.afxdp_egress,
    };

    for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
        /* Fails only on a loaded object. */
        bpf_map__set_max_entries(maps[i], 1);
    }
}

/* Opens the skeleton for 'xdp', with the hints_mode and offload_on knobs
 * set, and readies
 * the program that 'loader' loads: afxdp_ovs_dev bound to 'xdp''s device,
 * or afxdp_ovs_redir, through a libxdp handle for libxdp.  For libbpf
 * loaders the caller loads the object.  Returns 0 or a positive errno,
 * with a message in '*msgp'. */
static int
afxdp_xdp_open(struct afxdp_xdp *xdp, enum afxdp_xdp_loader loader,
               char **msgp)
{
    bool dev_bound = loader == AFXDP_XDP_LOADER_DEV_BOUND;
    DECLARE_LIBXDP_OPTS(xdp_program_opts, opts);
    struct bpf_program *used, *unused;
    long ret;

    xdp->skel = afxdp_bpf__open();
    if (!xdp->skel) {
        /* The skeleton reports its failure only through errno. */
        int error = errno ? errno : ENOMEM;

        *msgp = xasprintf("%s: could not open the embedded XDP program "
                          "(%s)", xdp->devname, ovs_strerror(error));
        return error;
    }
    xdp->skel->rodata->hints_mode = xdp->hints;
    xdp->skel->rodata->offload_on = xdp->offload;
    if (!xdp->offload) {
        afxdp_xdp_shrink_flow_maps(xdp->skel);
    }

    used = dev_bound ? xdp->skel->progs.afxdp_ovs_dev
                     : xdp->skel->progs.afxdp_ovs_redir;
    unused = dev_bound ? xdp->skel->progs.afxdp_ovs_redir
                       : xdp->skel->progs.afxdp_ovs_dev;
    bpf_program__set_autoload(unused, false);
    if (dev_bound) {
        bpf_program__set_ifindex(used, xdp->ifindex);
        ret = bpf_program__set_flags(used, (bpf_program__flags(used)
                                            | BPF_F_XDP_DEV_BOUND_ONLY));
        if (ret) {
            *msgp = xasprintf("%s: could not make the XDP program "
                              "device-bound (%s)", xdp->devname,
                              ovs_strerror(-ret));
            return -ret;
        }
        return 0;
    } else if (loader == AFXDP_XDP_LOADER_LINK) {
        return 0;
    }

    opts.obj = xdp->skel->obj;
    opts.prog_name = bpf_program__name(used);
    xdp->prog = xdp_program__create(&opts);
    ret = libxdp_get_error(xdp->prog);
    if (!xdp->prog || ret) {
        int error = ret ? -ret : ENOMEM;

        xdp->prog = NULL;
        *msgp = xasprintf("%s: libxdp could not use the embedded XDP program "
                          "(%s)", xdp->devname, ovs_strerror(error));
        return error;
    }
    return 0;
}

/* Returns the id of the program attached to 'ifindex' in 'mode', 0 if none
 * (or the device is gone). */
static uint32_t
afxdp_xdp_attached_id(int ifindex, enum afxdp_xdp_mode mode)
{
    LIBBPF_OPTS(bpf_xdp_query_opts, query);

    if (bpf_xdp_query(ifindex, 0, &query)) {
        return 0;
    }
    return mode == AFXDP_XDP_NATIVE ? query.drv_prog_id : query.skb_prog_id;
}

/* Records in 'xdp' whether libxdp attached it through its dispatcher: then
 * the program on the device is the dispatcher, not ours.
 *
 * Neither this nor afxdp_xdp_detach() asks libxdp: up to version 1.3
 * (Debian 12's), every xdp_multiprog__get_from_ifindex() on a device with a
 * single program, which xdp_program__is_attached() and
 * xdp_program__detach() call too, leaks a file descriptor of that program
 * (xdp-tools issue 343), so that every deleted port left its program
 * loaded in the kernel. */
static void
afxdp_xdp_query_kind(struct afxdp_xdp *xdp)
{
    uint32_t id = afxdp_xdp_attached_id(xdp->ifindex, xdp->mode);

    xdp->dispatcher = id && id != xdp->prog_id;
}

/* Releases the BPF object, libxdp handle and BPF link of 'xdp', if any,
 * without detaching anything explicitly (closing the link's last file
 * descriptor does detach its program). */
static void
afxdp_xdp_close(struct afxdp_xdp *xdp)
{
    if (xdp->link_fd >= 0) {
        close(xdp->link_fd);
        xdp->link_fd = -1;
    }
    if (xdp->prog) {
        xdp_program__close(xdp->prog);
        xdp->prog = NULL;
    }
    afxdp_bpf__destroy(xdp->skel);
    xdp->skel = NULL;
}

/* Releases everything 'xdp' holds, without detaching anything. */
static void
afxdp_xdp_destroy(struct afxdp_xdp *xdp)
{
    if (xdp) {
        afxdp_xdp_close(xdp);
        free(xdp->attach_desc);
        free(xdp->hints_desc);
        free(xdp->devname);
        free(xdp);
    }
}

/* Loads afxdp_ovs_dev device-bound and attaches it in native mode with
 * libbpf, refusing to replace any program already attached.  On failure
 * returns a positive errno, stores in '*whyp' a malloc'd reason (without
 * the device name) and leaves 'xdp' without a BPF object. */
static int
afxdp_xdp_attach_dev_bound(struct afxdp_xdp *xdp, char **whyp)
{
    struct bpf_prog_info info;
    uint32_t len = sizeof info;
    char *msg = NULL;
    int error, fd, ret;

    error = afxdp_xdp_open(xdp, AFXDP_XDP_LOADER_DEV_BOUND, &msg);
    if (error) {
        *whyp = msg;
        goto out;
    }
    ret = afxdp_bpf__load(xdp->skel);
    if (ret) {
        error = -ret;
        *whyp = xasprintf("the kernel refused to load it: %s",
                          ovs_strerror(error));
        goto out;
    }

    fd = bpf_program__fd(xdp->skel->progs.afxdp_ovs_dev);
    ret = bpf_xdp_attach(xdp->ifindex, fd,
                         XDP_FLAGS_DRV_MODE | XDP_FLAGS_UPDATE_IF_NOEXIST,
                         NULL);
    if (ret) {
        error = -ret;
        *whyp = xasprintf("it could not be attached: %s",
                          ovs_strerror(error));
        goto out;
    }

    memset(&info, 0, sizeof info);
    ret = bpf_obj_get_info_by_fd(fd, &info, &len);
    xdp->prog_id = ret ? 0 : info.id;
    xdp->dev_bound = true;

out:
    if (error) {
        afxdp_xdp_close(xdp);
    }
    return error;
}

/* Loads afxdp_ovs_redir and attaches it through libxdp.  Returns 0 or a
 * positive errno, with a message in '*msgp'. */
static int
afxdp_xdp_attach_libxdp(struct afxdp_xdp *xdp, char **msgp)
{
    int error;
    int ret;

    error = afxdp_xdp_open(xdp, AFXDP_XDP_LOADER_LIBXDP, msgp);
    if (error) {
        return error;
    }

    /* Loads the object, then attaches through the dispatcher or alone. */
    ret = xdp_program__attach(xdp->prog, xdp->ifindex,
                              afxdp_xdp_libxdp_mode(xdp->mode), 0);
    if (ret) {
        *msgp = afxdp_xdp_attach_error(xdp, -ret);
        return -ret;
    }
    xdp->prog_id = xdp_program__id(xdp->prog);
    afxdp_xdp_query_kind(xdp);
    return 0;
}

/* Loads afxdp_ovs_redir with libbpf and attaches it through a BPF link in
 * 'xdp''s mode: for when libxdp failed with 'libxdp_error'.  Whatever
 * libxdp left in 'xdp' is released first, and the object is opened anew,
 * so that nothing libxdp did to it carries over.  A link cannot replace a
 * program attached without one, so a foreign program on the device still
 * fails with EBUSY.  Returns 0 or a positive errno, with a message in
 * '*msgp'. */
static int
afxdp_xdp_attach_link(struct afxdp_xdp *xdp, int libxdp_error, char **msgp)
{
    LIBBPF_OPTS(bpf_link_create_opts, opts);
    struct bpf_prog_info info;
    uint32_t len = sizeof info;
    int error, fd, ret;

    afxdp_xdp_close(xdp);
    error = afxdp_xdp_open(xdp, AFXDP_XDP_LOADER_LINK, msgp);
    if (error) {
        return error;
    }
    ret = afxdp_bpf__load(xdp->skel);
    if (ret) {
        *msgp = afxdp_xdp_attach_error(xdp, -ret);
        return -ret;
    }

    fd = bpf_program__fd(xdp->skel->progs.afxdp_ovs_redir);
    opts.flags = (xdp->mode == AFXDP_XDP_NATIVE ? XDP_FLAGS_DRV_MODE
                                                : XDP_FLAGS_SKB_MODE);
    ret = bpf_link_create(fd, xdp->ifindex, BPF_XDP, &opts);
    if (ret < 0) {
        *msgp = afxdp_xdp_attach_error(xdp, -ret);
        return -ret;
    }
    xdp->link_fd = ret;

    memset(&info, 0, sizeof info);
    ret = bpf_obj_get_info_by_fd(fd, &info, &len);
    xdp->prog_id = ret ? 0 : info.id;
    xdp->attach_desc = xasprintf("single program, libbpf link (libxdp "
                                 "could not attach it: %s)",
                                 ovs_strerror(libxdp_error));
    return 0;
}

/* Loads and attaches afxdp_ovs_redir: through libxdp, else, whatever
 * libxdp's reason, with libbpf through a BPF link.  Returns 0 or a positive
 * errno (the BPF link's), with a message in '*msgp'. */
static int
afxdp_xdp_attach_ordinary(struct afxdp_xdp *xdp, char **msgp)
{
    int error = afxdp_xdp_attach_libxdp(xdp, msgp);

    if (error) {
        VLOG_INFO("%s: libxdp could not attach the XDP program (%s); "
                  "attaching it with libbpf through a BPF link instead",
                  xdp->devname, ovs_strerror(error));
        free(*msgp);
        *msgp = NULL;
        error = afxdp_xdp_attach_link(xdp, error, msgp);
    }
    return error;
}

/* Reads which RX metadata kfuncs the driver of 'ifindex' implements
 * (AFXDP_NETDEV_XDP_RX_METADATA_* bits) from the "netdev" generic netlink
 * family into '*features'.  Returns 0 or a positive errno (e.g. ENOENT
 * before Linux 6.3, which has no such family).  Main thread only, like
 * every genl family lookup of OVS's netlink library. */
static int
afxdp_xdp_rx_metadata_features(int ifindex, uint64_t *features)
{
    return afxdp_netdev_genl_dev_attr(
        ifindex, AFXDP_NETDEV_A_DEV_XDP_RX_METADATA_FEATURES, features);
}

/* Returns a malloc'd afxdp_xdp_hints_desc() for 'xdp'; 'why' is why a
 * device-bound program was refused, if it was. */
static char *
afxdp_xdp_make_hints_desc(const struct afxdp_xdp *xdp, const char *why)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    uint64_t features;
    int error;

    if (xdp->hints == XDP_HINTS_OFF) {
        return xstrdup("off");
    } else if (xdp->mode == AFXDP_XDP_GENERIC || !xdp->dev_bound) {
        /* No driver metadata: the program's clock, and its own hash. */
        const char *what = (xdp->hints == XDP_HINTS_TS_HASH
                            ? "kernel clock, flow hash computed in XDP"
                            : "kernel clock only");

        return (xdp->mode == AFXDP_XDP_GENERIC
                ? xasprintf("%s (generic XDP)", what)
                : why
                ? xasprintf("%s (device-bound program refused: %s)", what,
                            why)
                : xasprintf("%s (device-bound program not requested)",
                            what));
    }

    ds_put_cstr(&s, "driver metadata where given, else kernel clock "
                "(device-bound; driver implements ");
    error = afxdp_xdp_rx_metadata_features(xdp->ifindex, &features);
    if (error) {
        ds_put_format(&s, "unknown: %s", ovs_strerror(error));
    } else if (!features) {
        ds_put_cstr(&s, "none");
    } else {
        ds_put_format(&s, "%s%s%s",
                      (features & AFXDP_NETDEV_XDP_RX_METADATA_TIMESTAMP
                       ? "timestamp, " : ""),
                      (features & AFXDP_NETDEV_XDP_RX_METADATA_HASH
                       ? "hash, " : ""),
                      (features & AFXDP_NETDEV_XDP_RX_METADATA_VLAN_TAG
                       ? "vlan-tag, " : ""));
        ds_chomp(&s, ' ');
        ds_chomp(&s, ',');
    }
    ds_put_char(&s, ')');
    return ds_steal_cstr(&s);
}

int
afxdp_xdp_attach(const char *devname, int ifindex, enum afxdp_xdp_mode mode,
                 struct afxdp_xdp **xdpp, char **errp)
{
    return afxdp_xdp_attach_ex(devname, ifindex, mode, NULL, xdpp, errp);
}

int
afxdp_xdp_attach_ex(const char *devname, int ifindex,
                    enum afxdp_xdp_mode mode,
                    const struct afxdp_xdp_opts *opts,
                    struct afxdp_xdp **xdpp, char **errp)
{
    static const struct afxdp_xdp_opts default_opts;
    struct afxdp_xdp *xdp;
    char *why = NULL;
    char *msg = NULL;
    int removed;
    int error;

    afxdp_xdp_init();
    if (!opts) {
        opts = &default_opts;
    }

    xdp = xzalloc(sizeof *xdp);
    xdp->devname = xstrdup(devname);
    xdp->ifindex = ifindex;
    xdp->mode = mode;
    xdp->hints = opts->hints;
    xdp->offload = opts->offload;
    xdp->xsks_map_fd = -1;
    xdp->stats_fd = -1;
    xdp->link_fd = -1;

    if ((unsigned int) opts->hints > XDP_HINTS_TS_HASH) {
        error = EINVAL;
        msg = xasprintf("%s: unknown XDP hints mode %d", devname,
                        opts->hints);
        goto out;
    }

    removed = afxdp_xdp_remove_ours(ifindex);
    if (removed) {
        VLOG_INFO("%s: detached %d stale XDP program(s) of ours, probably "
                  "left by an ovs-vswitchd that did not exit cleanly",
                  devname, removed);
    }

    error = EOPNOTSUPP;
    if (opts->hints != XDP_HINTS_OFF && opts->dev_bound
        && mode == AFXDP_XDP_NATIVE) {
        error = afxdp_xdp_attach_dev_bound(xdp, &why);
        if (error) {
            VLOG_INFO("%s: device-bound XDP program refused (%s); using the "
                      "ordinary one, with timestamps from the kernel's "
                      "clock", devname, why);
        }
    }
    if (error) {
        error = afxdp_xdp_attach_ordinary(xdp, &msg);
        if (error) {
            goto out;
        }
    }

    xdp->xsks_map_fd = bpf_map__fd(xdp->skel->maps.xsks_map);
    xdp->stats_fd = bpf_map__fd(xdp->skel->maps.afxdp_stats);
    xdp->hints_desc = afxdp_xdp_make_hints_desc(xdp, why);

    VLOG_INFO("%s: attached XDP program %"PRIu32" in %s mode, %s; XDP "
              "hints: %s; offloaded flows: %s", devname, xdp->prog_id,
              afxdp_xdp_mode_name(mode), afxdp_xdp_attach_desc(xdp),
              xdp->hints_desc, xdp->offload ? "looked up" : "no lookup");

out:
    free(why);
    if (error) {
        VLOG_DBG("%s", msg);
        afxdp_xdp_destroy(xdp);
        xdp = NULL;
        if (errp) {
            *errp = msg;
            msg = NULL;
        }
        free(msg);
    }
    *xdpp = xdp;
    return error;
}

/* Detaches 'xdp''s program, attached alone (not in a dispatcher), with
 * file descriptor 'fd', if it is still the one on the device.  Returns 0,
 * ENOENT if it is not there any more, or another positive errno. */
static int
afxdp_xdp_detach_alone(struct afxdp_xdp *xdp, int fd)
{
    LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
    uint32_t flags = (xdp->mode == AFXDP_XDP_NATIVE ? XDP_FLAGS_DRV_MODE
                                                    : XDP_FLAGS_SKB_MODE);
    int ret;

    if (afxdp_xdp_attached_id(xdp->ifindex, xdp->mode) != xdp->prog_id) {
        return ENOENT;
    }
    /* With XDP_FLAGS_REPLACE, only if ours is still the one attached. */
    opts.old_prog_fd = fd;
    ret = bpf_xdp_detach(xdp->ifindex, flags | XDP_FLAGS_REPLACE, &opts);
    return ret == -EEXIST || ret == -ENODEV ? ENOENT : -ret;
}

/* Detaches 'xdp''s program attached through its BPF link, at once rather
 * than when the link is closed (a link whose device is gone detaches
 * without error).  Returns 0 or a positive errno. */
static int
afxdp_xdp_detach_link(struct afxdp_xdp *xdp)
{
    return -bpf_link_detach(xdp->link_fd);
}

void
afxdp_xdp_detach(struct afxdp_xdp *xdp)
{
    int error;

    if (!xdp) {
        return;
    }

    if (xdp->dev_bound) {
        error = afxdp_xdp_detach_alone(
            xdp, bpf_program__fd(xdp->skel->progs.afxdp_ovs_dev));
    } else if (xdp->link_fd >= 0) {
        error = afxdp_xdp_detach_link(xdp);
    } else if (!xdp->dispatcher) {
        error = afxdp_xdp_detach_alone(xdp, xdp_program__fd(xdp->prog));
    } else if (xdp_program__is_attached(xdp->prog, xdp->ifindex)
               == XDP_MODE_UNSPEC) {
        /* Asking libxdp first keeps it from complaining about a device, or
         * a program of ours on it, that is already gone. */
        error = ENOENT;
    } else {
        error = -xdp_program__detach(xdp->prog, xdp->ifindex,
                                     afxdp_xdp_libxdp_mode(xdp->mode), 0);
    }
    if (error == ENOENT || error == ENODEV) {
        VLOG_DBG("%s: XDP program %"PRIu32" was already detached",
                 xdp->devname, xdp->prog_id);
    } else if (error) {
        VLOG_INFO("%s: could not detach XDP program %"PRIu32" (%s); it will "
                  "be removed when the port is added again",
                  xdp->devname, xdp->prog_id, ovs_strerror(error));
    } else {
        VLOG_DBG("%s: detached XDP program %"PRIu32,
                 xdp->devname, xdp->prog_id);
    }
    afxdp_xdp_destroy(xdp);
}

int
afxdp_xdp_set_xsk(struct afxdp_xdp *xdp, uint32_t queue_id, int xsk_fd)
{
    uint32_t fd = xsk_fd;
    int ret;

    if (queue_id >= AFXDP_MAX_QUEUES) {
        return EINVAL;
    }
    ret = bpf_map_update_elem(xdp->xsks_map_fd, &queue_id, &fd, BPF_ANY);
    return ret ? -ret : 0;
}

int
afxdp_xdp_clear_xsk(struct afxdp_xdp *xdp, uint32_t queue_id)
{
    int ret;

    if (queue_id >= AFXDP_MAX_QUEUES) {
        return EINVAL;
    }
    ret = bpf_map_delete_elem(xdp->xsks_map_fd, &queue_id);
    return ret && ret != -ENOENT ? -ret : 0;
}

enum afxdp_xdp_mode
afxdp_xdp_get_mode(const struct afxdp_xdp *xdp)
{
    return xdp->mode;
}

const char *
afxdp_xdp_attach_desc(const struct afxdp_xdp *xdp)
{
    return (xdp->attach_desc
            ? xdp->attach_desc
            : xdp->dev_bound
            ? "single program, device-bound (attached by libbpf)"
            : xdp->dispatcher
            ? "libxdp dispatcher"
            : "single program (libxdp dispatcher unavailable)");
}

enum xdp_hints_mode
afxdp_xdp_hints_mode(const struct afxdp_xdp *xdp)
{
    return xdp->hints;
}

bool
afxdp_xdp_is_dev_bound(const struct afxdp_xdp *xdp)
{
    return xdp->dev_bound;
}

const char *
afxdp_xdp_hints_desc(const struct afxdp_xdp *xdp)
{
    return xdp->hints_desc ? xdp->hints_desc : "off";
}

const struct btf *
afxdp_xdp_btf(const struct afxdp_xdp *xdp)
{
    return bpf_object__btf(xdp->skel->obj);
}

void
afxdp_xdp_flow_maps(const struct afxdp_xdp *xdp,
                    struct afxdp_xdp_flow_maps *maps)
{
    maps->masks_fd = bpf_map__fd(xdp->skel->maps.afxdp_flow_masks);
    maps->flows_fd = bpf_map__fd(xdp->skel->maps.afxdp_flows);
    maps->flow_stats_fd = bpf_map__fd(xdp->skel->maps.afxdp_flow_stats);
    maps->buckets_fd = bpf_map__fd(xdp->skel->maps.afxdp_flow_buckets);
    maps->egress_fd = bpf_map__fd(xdp->skel->maps.afxdp_egress);
    maps->mask_hits_fd = bpf_map__fd(xdp->skel->maps.afxdp_mask_hits);
}

bool
afxdp_xdp_has_offload(const struct afxdp_xdp *xdp)
{
    return xdp->offload;
}

int
afxdp_xdp_police_fd(const struct afxdp_xdp *xdp)
{
    return bpf_map__fd(xdp->skel->maps.afxdp_police);
}

uint32_t
afxdp_xdp_prog_id(const struct afxdp_xdp *xdp)
{
    return xdp->prog_id;
}

int
afxdp_xdp_get_stats(const struct afxdp_xdp *xdp,
                    struct afxdp_xdp_stats *stats)
{
    int n_cpus = libbpf_num_possible_cpus();
    uint64_t *values;
    int error = 0;

    memset(stats, 0, sizeof *stats);
    if (n_cpus <= 0) {
        return n_cpus ? -n_cpus : EINVAL;
    }

    /* A per-CPU lookup fills one 8-byte aligned value per possible CPU. */
    values = xcalloc(n_cpus, sizeof *values);
    for (uint32_t i = 0; i < AFXDP_PROG_N_COUNTERS; i++) {
        int ret = bpf_map_lookup_elem(xdp->stats_fd, &i, values);

        if (ret) {
            error = -ret;
            memset(stats, 0, sizeof *stats);
            break;
        }
        for (int cpu = 0; cpu < n_cpus; cpu++) {
            stats->counters[i] += values[cpu];
        }
    }
    free(values);
    return error;
}

const char *
afxdp_xdp_counter_name(enum afxdp_prog_counter idx)
{
    return (unsigned int) idx < ARRAY_SIZE(counter_names)
           ? counter_names[idx] : "xdp_unknown";
}
