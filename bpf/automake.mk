# SPDX-License-Identifier: Apache-2.0
# The XDP program: built by clang into an object, which bpftool turns into a
# skeleton header that the provider includes ("bpf/afxdp.skel.h") and that
# embeds the object, so nothing needs installing at run time.

BPF_SRC = bpf/afxdp.bpf.c
BPF_HDRS = \
	$(sort $(patsubst $(srcdir)/%,%,$(filter-out %.skel.h $(srcdir)/$(BENCH_BPF_HDR),$(wildcard $(srcdir)/bpf/*.h))))
# Headers of BPF C (kernel style, checked by check-style-bpf), as opposed
# to the ones shared with userspace.
BPF_BPF_HDRS = $(filter %.bpf.h,$(BPF_HDRS))
BPF_OBJ = bpf/afxdp.bpf.o
BPF_SKEL = bpf/afxdp.skel.h

EXTRA_DIST += $(BPF_SRC) $(BPF_HDRS)
CLEANFILES += $(BPF_OBJ) $(BPF_SKEL)

.PHONY: bpf
bpf: $(BPF_SKEL)

$(BPF_OBJ): $(BPF_SRC) $(BPF_HDRS)
	@$(MKDIR_P) bpf
	$(AM_V_GEN)$(CLANG) $(BPF_CFLAGS) -I$(srcdir) \
	  -c $(srcdir)/bpf/afxdp.bpf.c -o $@.tmp && mv $@.tmp $@

$(BPF_SKEL): $(BPF_OBJ)
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $(BPF_OBJ) name afxdp_bpf > $@.tmp \
	  && mv $@.tmp $@

# check-style-bpf: the BPF C follows kernel style (tabs, Linux braces);
# clang-format checks it against these rules, without changing it.  Part of
# "make check-style"; skipped, with a note, when clang-format is missing.
BPF_CLANG_FORMAT_STYLE = {BasedOnStyle: LLVM, IndentWidth: 8, UseTab: Always, \
	TabWidth: 8, ContinuationIndentWidth: 8, BreakBeforeBraces: Linux, \
	AllowShortIfStatementsOnASingleLine: Never, \
	AllowShortFunctionsOnASingleLine: None, \
	AllowShortLoopsOnASingleLine: false, \
	AllowShortBlocksOnASingleLine: Never, IndentCaseLabels: false, \
	ColumnLimit: 80, SortIncludes: Never, ReflowComments: false}

# The benchmark's XDP programs (utilities/ovs-afxdp-bench): each
# bpf/afxdp-NAME.bpf.c becomes bpf/afxdp-NAME.bpf.o and a skeleton
# bpf/afxdp-NAME.skel.h (functions afxdp_NAME_bpf__*), which
# utilities/afxdp-bench-xdp includes (utilities/automake.mk).
BENCH_BPF_SRC = \
	bpf/afxdp-pktgen.bpf.c \
	bpf/afxdp-redirect.bpf.c \
	bpf/afxdp-sink.bpf.c
BENCH_BPF_HDR = bpf/afxdp-bench.h
BENCH_BPF_OBJ = $(BENCH_BPF_SRC:.bpf.c=.bpf.o)
BENCH_BPF_SKEL = $(BENCH_BPF_SRC:.bpf.c=.skel.h)

# (BPF_HDRS leaves out BENCH_BPF_HDR, so that the provider's program does
# not depend on it.)
EXTRA_DIST += $(BENCH_BPF_SRC) $(BENCH_BPF_HDR)
CLEANFILES += $(BENCH_BPF_OBJ) $(BENCH_BPF_SKEL)

# (Kept, not removed by make as intermediate files.)
.SECONDARY: $(BENCH_BPF_OBJ)
bpf/afxdp-%.bpf.o: bpf/afxdp-%.bpf.c $(BENCH_BPF_HDR)
	@$(MKDIR_P) bpf
	$(AM_V_GEN)$(CLANG) $(BPF_CFLAGS) -I$(srcdir) -c $< -o $@.tmp \
	  && mv $@.tmp $@

bpf/afxdp-%.skel.h: bpf/afxdp-%.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name afxdp_$*_bpf > $@.tmp \
	  && mv $@.tmp $@

# check-bpf-headers: each BPF header compiles on its own, with the program's
# flags, so that it includes what it uses and a program may include any set
# of them in any order.  Part of "make check-style".
.PHONY: check-bpf-headers
check-bpf-headers:
	@status=0; \
	for h in $(BPF_BPF_HDRS); do \
	  echo "  CLANG    $$h (on its own)"; \
	  echo "#include \"$$h\"" | $(CLANG) $(BPF_CFLAGS) -Wall -Werror \
	    -I$(srcdir) -x c -c -o /dev/null - || status=1; \
	done; \
	exit $$status

.PHONY: check-style-bpf
check-style-bpf:
	@if test -z '$(CLANG_FORMAT)'; then \
	  echo "check-style-bpf: skipped, clang-format not found (Debian package clang-format)"; \
	  exit 0; \
	fi; \
	status=0; \
	for f in $(BPF_SRC) $(BPF_BPF_HDRS) $(BENCH_BPF_SRC); do \
	  echo "  CLANG-FORMAT $$f"; \
	  $(CLANG_FORMAT) --style='$(BPF_CLANG_FORMAT_STYLE)' --dry-run \
	    --Werror $(srcdir)/$$f || status=1; \
	done; \
	exit $$status
