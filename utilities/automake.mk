# SPDX-License-Identifier: Apache-2.0
# Helper scripts.  None is installed: they drive the build and tests from
# the source tree.

EXTRA_DIST += \
	utilities/ovs-afxdp-deps \
	utilities/ovs-afxdp-quickstart \
	$(patsubst $(srcdir)/%,%,$(wildcard $(srcdir)/utilities/ovs-afxdp-sandbox)) \
	utilities/ovs-afxdp-ovn

# "make sandbox" starts our ovs-vswitchd and ovsdb-server in a throw-away
# directory (utilities/ovs-afxdp-sandbox).  Extra arguments for the script
# go in SANDBOXFLAGS, e.g. make sandbox SANDBOXFLAGS='--help'.
.PHONY: sandbox
sandbox: all
	cd $(abs_top_builddir) && \
	  OVS_BUILDDIR='$(OVS_BUILDDIR)' OVS_SRCDIR='$(OVS_SRCDIR)' \
	  abs_top_srcdir='$(abs_top_srcdir)' \
	  abs_top_builddir='$(abs_top_builddir)' \
	  $(abs_top_srcdir)/utilities/ovs-afxdp-sandbox $(SANDBOXFLAGS)

# "make ovn-sandbox": two OVN chassis with afxdp ports and a logical switch
# across them, traffic, then teardown (utilities/ovs-afxdp-ovn; needs
# Debian's ovn-central and ovn-host).  Extra arguments in OVNFLAGS, e.g.
# make ovn-sandbox OVNFLAGS=--keep.
.PHONY: ovn-sandbox
ovn-sandbox: all
	cd $(abs_top_builddir) && \
	  OVS_BUILDDIR='$(OVS_BUILDDIR)' \
	  abs_top_builddir='$(abs_top_builddir)' \
	  $(abs_top_srcdir)/utilities/ovs-afxdp-ovn $(OVNFLAGS)

# The benchmark: utilities/ovs-afxdp-bench runs it ("make bench"; extra
# arguments in BENCHFLAGS, e.g. make bench BENCHFLAGS='--reps 1').  It
# needs utilities/afxdp-bench-xdp, its traffic generator, sink and XDP
# redirect, which is plain C on libbpf (not part of OVS) and includes the
# skeletons of the benchmark's XDP programs (bpf/automake.mk).  It is built
# by "make", so that a change that breaks it shows at once.
# Documentation/topics/benchmark.rst explains the benchmark.
BENCH_XDP = utilities/afxdp-bench-xdp
BENCH_XDP_CFLAGS = -Wall -Wextra

EXTRA_DIST += utilities/ovs-afxdp-bench utilities/ovs-afxdp-bench-tcp \
	utilities/ovs-afxdp-bench-overlay utilities/ovs-afxdp-bench-node \
	utilities/ovs-afxdp-bench-instructions utilities/afxdp-bench-lib.sh \
	utilities/afxdp_benchlib.py utilities/afxdp-bench-xdp.c
CLEANFILES += $(BENCH_XDP)

all-local: $(BENCH_XDP)

$(BENCH_XDP): utilities/afxdp-bench-xdp.c $(BENCH_BPF_HDR) $(BENCH_BPF_SKEL)
	@$(MKDIR_P) utilities
	$(AM_V_GEN)$(CC) $(BENCH_XDP_CFLAGS) $(CPPFLAGS) -I. -I$(srcdir) \
	  $(CFLAGS) -o $@ $(srcdir)/utilities/afxdp-bench-xdp.c $(LDFLAGS) \
	  -lbpf -lm

# With another OVS version than Debian's (AFXDP_OVS_TREE other than ovs),
# the upstream variant runs that version's own provider, built from the
# same source (ovs-upstream-build, lib/automake.mk).
BENCH_SAME_OVS = $(filter ovs,$(AFXDP_OVS_TREE))
BENCH_RUN = cd $(abs_top_builddir) && \
	  OVS_BUILDDIR='$(OVS_BUILDDIR)' \
	  OVS_UPSTREAM_BUILDDIR='$(if $(BENCH_SAME_OVS),,$(OVS_UPSTREAM_BUILDDIR))' \
	  abs_top_srcdir='$(abs_top_srcdir)' \
	  abs_top_builddir='$(abs_top_builddir)'
.PHONY: bench
bench: all $(if $(BENCH_SAME_OVS),,ovs-upstream-build)
	$(BENCH_RUN) $(abs_top_srcdir)/utilities/ovs-afxdp-bench $(BENCHFLAGS)

# The TCP benchmark: iperf3 through the same variants' switches
# (utilities/ovs-afxdp-bench-tcp, extra arguments in BENCHFLAGS, e.g. make
# bench-tcp BENCHFLAGS='--mtu 9000 --streams 1'), then pod to pod across
# two hosts over an overlay (utilities/ovs-afxdp-bench-overlay, "make
# bench-overlay" alone, extra arguments in BENCH_OVERLAY_FLAGS, e.g.
# '--variants ours,upstream --reps 5'; BENCH_OVERLAY=no skips it).
BENCH_OVERLAY = yes
.PHONY: bench-tcp bench-overlay
bench-tcp: all $(if $(BENCH_SAME_OVS),,ovs-upstream-build)
	$(BENCH_RUN) $(abs_top_srcdir)/utilities/ovs-afxdp-bench-tcp \
	  $(BENCHFLAGS)
	@if test '$(BENCH_OVERLAY)' != no; then \
	  $(BENCH_RUN) $(abs_top_srcdir)/utilities/ovs-afxdp-bench-overlay \
	    $(BENCH_OVERLAY_FLAGS); \
	fi
bench-overlay: all $(if $(BENCH_SAME_OVS),,ovs-upstream-build)
	$(BENCH_RUN) $(abs_top_srcdir)/utilities/ovs-afxdp-bench-overlay \
	  $(BENCH_OVERLAY_FLAGS)

# A Kubernetes node's switch with many pods (utilities/ovs-afxdp-bench-node,
# extra arguments in BENCH_NODE_FLAGS, e.g. '--pods 64 --variants ours'):
# port add and delete times, memory per port, ping and TCP with idle pods,
# a pod's bandwidth limit; ours, OVS's provider and a Linux bridge.
.PHONY: bench-node
bench-node: all $(if $(BENCH_SAME_OVS),,ovs-upstream-build)
	$(BENCH_RUN) $(abs_top_srcdir)/utilities/ovs-afxdp-bench-node \
	  $(BENCH_NODE_FLAGS)

# Instructions a packet in the PMD thread, counted by callgrind
# (utilities/ovs-afxdp-bench-instructions, extra arguments in
# BENCH_INSTRUCTIONS_FLAGS, e.g. '--duration 3 --reps 2'): ours with
# default options, ours with every optional feature off, and OVS's own
# provider, split into the provider's receive, its send and OVS's code.
.PHONY: bench-instructions
#
# Its upstream is always built from the same source with the same compiler
# flags (Debian's binary is stripped: callgrind could name no function).
bench-instructions: all ovs-upstream-build
	cd $(abs_top_builddir) && OVS_BUILDDIR='$(OVS_BUILDDIR)' \
	  OVS_UPSTREAM_BUILDDIR='$(OVS_UPSTREAM_BUILDDIR)' \
	  abs_top_srcdir='$(abs_top_srcdir)' \
	  abs_top_builddir='$(abs_top_builddir)' \
	  $(abs_top_srcdir)/utilities/ovs-afxdp-bench-instructions \
	  $(BENCH_INSTRUCTIONS_FLAGS)

# Our checkers cover afxdp-bench-xdp too: checkpatch.py (make check-style)
# and the warnings of check-warnings, by gcc and clang, without OVS's flags
# (it does not use OVS).
check-style: check-style-bench
check-warnings: check-warnings-bench
.PHONY: check-style-bench check-warnings-bench
check-style-bench: ovs-unpack
	@echo "  CHECKPATCH utilities/afxdp-bench-xdp.c"; \
	$(PYTHON3) $(OVS_SRCDIR)/utilities/checkpatch.py -q -f \
	  $(srcdir)/utilities/afxdp-bench-xdp.c

check-warnings-bench: $(BENCH_BPF_SKEL)
	@set -e; \
	f=utilities/afxdp-bench-xdp.c; \
	echo "  CC       $$f"; \
	$(CC) $(AFXDP_WARNING_FLAGS) -I. -I$(srcdir) -O2 -c -o /dev/null \
	  $(srcdir)/$$f; \
	echo "  CLANG    $$f"; \
	$(CLANG) $(AFXDP_WARNING_FLAGS) -I. -I$(srcdir) -fsyntax-only \
	  $(srcdir)/$$f
