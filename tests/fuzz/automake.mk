# SPDX-License-Identifier: Apache-2.0
# Fuzzing with libFuzzer.  Documentation/topics/testing.rst explains it.
#
#   make fuzz                 each target for $(FUZZ_SECONDS) seconds (CI)
#   make fuzz-long            each target for $(FUZZ_LONG_SECONDS) seconds
#   make fuzz-build           only build the targets
#
# Targets: tests/fuzz/fuzz-NAME.c fuzzes lib/NAME.c:
#   xdp-hints      BTF layouts, then metadata bytes
#   afxdp-config   Interface options to a configuration or an error
#   afxdp-offload  datapath actions to the XDP program's flow actions
#
# Each target is compiled by clang with -fsanitize=fuzzer,address,undefined
# from its harness and its module (our lib/NAME.c, as overlaid in the
# sanitized OVS tree of tests/automake.mk), and linked with that tree's
# libopenvswitch, built with the same sanitizers.  A run starts from the seed corpus in the source tree,
# tests/fuzz/corpus/NAME/ (small files; every input that once crashed a
# target stays there as a regression seed), and writes what it finds to
# tests/fuzz/work/NAME/ in the build directory, never to the source tree.
# A crash, a sanitizer report or a leak fails the run and leaves the input
# in tests/fuzz/crash/NAME-*; once the bug is fixed, copy it into the seed
# corpus.

FUZZ_NAMES = xdp-hints afxdp-config afxdp-offload
FUZZ_TARGETS = $(patsubst %,tests/fuzz/fuzz-%,$(FUZZ_NAMES))
FUZZ_SECONDS = 15
FUZZ_LONG_SECONDS = 1800
# Extra libFuzzer options, e.g. FUZZ_FLAGS='-jobs=2 -workers=2'.
FUZZ_FLAGS =
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-omit-frame-pointer -fno-sanitize-recover=all

# The harnesses, for the checkers (lib/automake.mk) and the tarball.
AFXDP_FUZZ_FILES = $(patsubst %,tests/fuzz/fuzz-%.c,$(FUZZ_NAMES))
EXTRA_DIST += \
	tests/fuzz/automake.mk \
	$(AFXDP_FUZZ_FILES) \
	tests/fuzz/afxdp-config.dict \
	$(patsubst $(srcdir)/%,%,$(wildcard $(srcdir)/tests/fuzz/corpus/*/*))
CLEANFILES += $(FUZZ_TARGETS) $(FUZZ_TARGETS:=.o) \
	tests/fuzz/xdp-hints.o tests/fuzz/afxdp-config.o \
	tests/fuzz/afxdp-offload.o

clean-local: afxdp-fuzz-clean
.PHONY: afxdp-fuzz-clean
afxdp-fuzz-clean:
	-rm -rf tests/fuzz/work tests/fuzz/crash

.PHONY: fuzz fuzz-long fuzz-build
fuzz-build: ovs-sanitized-build
	@$(AFXDP_SANITIZERS_GUARD); \
	set -e; \
	cd $(SANITIZED_BUILDDIR); \
	flags=`printf 'afxdp-print-flags:\n\t@echo $$(DEFS) $$(DEFAULT_INCLUDES) $$(INCLUDES) $$(AM_CPPFLAGS) $$(CPPFLAGS)\n' | \
	  $(MAKE) -s --no-print-directory -f Makefile -f - afxdp-print-flags`; \
	$(MKDIR_P) $(abs_top_builddir)/tests/fuzz; \
	for name in $(FUZZ_NAMES); do \
	  out=$(abs_top_builddir)/tests/fuzz/fuzz-$$name; \
	  echo "  FUZZ     $$out"; \
	  $(SANITIZED_CC) $$flags $(FUZZ_CFLAGS) -c -o $$out.o \
	    $(abs_top_srcdir)/tests/fuzz/fuzz-$$name.c; \
	  $(SANITIZED_CC) $$flags $(FUZZ_CFLAGS) -c \
	    -o $(abs_top_builddir)/tests/fuzz/$$name.o lib/$$name.c; \
	  ./libtool --silent --tag=CC --mode=link $(CLANG) $(FUZZ_CFLAGS) \
	    -o $$out $$out.o $(abs_top_builddir)/tests/fuzz/$$name.o \
	    lib/libopenvswitch.la; \
	done

# 'afxdp_fuzz SECONDS' runs every target for SECONDS seconds, all of them
# even when one fails, and fails if any did.
AFXDP_FUZZ_RUN = \
	afxdp_fuzz () { \
	  status=0; \
	  for name in $(FUZZ_NAMES); do \
	    corpus='$(abs_top_srcdir)'/tests/fuzz/corpus/$$name; \
	    work=tests/fuzz/work/$$name; \
	    dict=; \
	    if test -f '$(abs_top_srcdir)'/tests/fuzz/$$name.dict; then \
	      dict=-dict='$(abs_top_srcdir)'/tests/fuzz/$$name.dict; \
	    fi; \
	    $(MKDIR_P) $$work tests/fuzz/crash; \
	    echo "fuzz: $$name for $$1 s (seeds: $$corpus)"; \
	    if ! tests/fuzz/fuzz-$$name -max_total_time=$$1 -timeout=10 \
	         -rss_limit_mb=2048 -print_final_stats=1 \
	         -artifact_prefix=tests/fuzz/crash/$$name- $$dict \
	         $(FUZZ_FLAGS) $$work "$$corpus" \
	         > tests/fuzz/$$name.log 2>&1; then \
	      tail -n 60 tests/fuzz/$$name.log; \
	      echo "fuzz: $$name FAILED (log: tests/fuzz/$$name.log; input: tests/fuzz/crash/$$name-*); once fixed, keep the input in $$corpus" >&2; \
	      status=1; \
	    else \
	      grep -E '^stat::(number_of_executed_units|new_units_added):' \
	        tests/fuzz/$$name.log | sed "s/^/fuzz: $$name: /"; \
	    fi; \
	  done; \
	  return $$status; \
	}

CLEANFILES += $(patsubst %,tests/fuzz/%.log,$(FUZZ_NAMES))

fuzz: fuzz-build
	@$(AFXDP_SANITIZERS_GUARD); \
	$(AFXDP_FUZZ_RUN); \
	afxdp_fuzz $(FUZZ_SECONDS)

fuzz-long: fuzz-build
	@$(AFXDP_SANITIZERS_GUARD); \
	$(AFXDP_FUZZ_RUN); \
	afxdp_fuzz $(FUZZ_LONG_SECONDS)
