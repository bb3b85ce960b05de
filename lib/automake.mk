# SPDX-License-Identifier: Apache-2.0
# Our userspace sources, and how they get into the OVS tree.
#
# The OVS tree in $(OVS_BUILDDIR) is prepared in three steps, each a phony
# target that runs on every make but does real work only when its inputs
# changed:
#
#   ovs-unpack     unpacks $(OVS_SOURCE) into $(OVS_BUILDDIR), once per
#                  source and patch series (the stamp records the path,
#                  size, mtime and the series' checksum), checks that its
#                  version is one we support (one with a series,
#                  patches/ovs-X.Y/series) and applies the patches that
#                  series lists: our small, documented hooks, each in
#                  patches/common/ when several versions take it
#                  (Documentation/internals/build.rst).
#                  All of it happens in a temporary tree, renamed only
#                  when every patch applied: nothing is left half-patched.
#   ovs-overlay    writes lib/afxdp-ovs-probes.h from patches/ovs-probe
#                  (what this OVS tree offers, for lib/afxdp-compat.h),
#                  copies each of our files over its OVS counterpart when
#                  the contents differ (so an untouched file keeps its mtime
#                  and is not recompiled), splices our part of the
#                  database's man page into OVS's vswitchd/vswitch.xml
#                  (patches/ovs-vswitch-xml), lists our extra modules and
#                  tests in OVS's automake fragments, and reruns autoreconf
#                  when those fragments changed.
#   ovs-configure  runs OVS's configure with --enable-afxdp, again only when
#                  its arguments changed.
#
# ovs-build then runs OVS's make.  Stamps live in $(OVS_BUILDDIR)/.afxdp-*.

# Files that replace OVS's files of the same name in its lib/.
AFXDP_PROVIDER_FILES = \
	lib/netdev-afxdp-pool.c \
	lib/netdev-afxdp-pool.h \
	lib/netdev-afxdp.c \
	lib/netdev-afxdp.h

# Our modules that OVS has no counterpart for: every lib/afxdp-*.[ch], found
# when make runs, so adding a module needs no edit here, and the XDP hints
# decoder lib/xdp-hints.[ch] (named for its prefix, xdp_hints_).  They are
# compiled into OVS's libopenvswitch (inside its HAVE_AF_XDP conditional).
AFXDP_EXTRA_FILES = \
	$(sort $(patsubst $(srcdir)/%,%,$(wildcard $(srcdir)/lib/afxdp-*.[ch] \
	  $(srcdir)/lib/xdp-hints.[ch])))

# Our unit tests (OVSTEST_REGISTER style), compiled into OVS's tests/ovstest.
AFXDP_TEST_FILES = \
	$(sort $(patsubst $(srcdir)/%,%,$(wildcard $(srcdir)/tests/test-afxdp-*.[ch])))

# All of our userspace C, for the checkers below.
AFXDP_USERSPACE_FILES = \
	$(AFXDP_PROVIDER_FILES) $(AFXDP_EXTRA_FILES) $(AFXDP_TEST_FILES)

EXTRA_DIST += $(AFXDP_USERSPACE_FILES)

# Our documentation in OVS's places (Documentation/internals/build.rst):
# files copied like the ones above (our AF_XDP install page over OVS's, the
# appctl man fragment that our patch series includes in ovs-vswitchd(8)),
# and the fragment that patches/ovs-vswitch-xml splices into OVS's
# vswitchd/vswitch.xml.
AFXDP_DOC_FILES = \
	Documentation/intro/install/afxdp.rst \
	lib/netdev-afxdp-unixctl.man
AFXDP_VSWITCH_XML = vswitchd/vswitch-afxdp.xml
EXTRA_DIST += lib/netdev-afxdp-unixctl.man $(AFXDP_VSWITCH_XML) \
	patches/ovs-vswitch-xml

# Everything OVS's configure gets from us.  Our top source and build
# directories go on the include path so that our files can include
# "bpf/afxdp-shared.h" and the generated "bpf/afxdp.skel.h".  The compiler
# and its flags are $(CC) and $(OVS_CFLAGS), through two variables that
# the sanitized tree's sub-make overrides (tests/automake.mk).
AFXDP_OVS_CC = $(CC)
AFXDP_OVS_CFLAGS = $(OVS_CFLAGS)
OVS_CONFIGURE_ARGS = \
	--enable-afxdp \
	--prefix='$(prefix)' \
	--exec-prefix='$(exec_prefix)' \
	--bindir='$(bindir)' \
	--sbindir='$(sbindir)' \
	--libdir='$(libdir)' \
	--sysconfdir='$(sysconfdir)' \
	--localstatedir='$(localstatedir)' \
	--datarootdir='$(datarootdir)' \
	--mandir='$(mandir)' \
	CC='$(AFXDP_OVS_CC)' \
	CFLAGS='$(AFXDP_OVS_CFLAGS)' \
	CPPFLAGS='-I$(abs_top_srcdir) -I$(abs_top_builddir)' \
	--with-version-suffix='+afxdp$(PACKAGE_VERSION)' \
	$(OVS_CONFIGURE_FLAGS)

.PHONY: ovs-unpack ovs-overlay ovs-configure ovs-prepare ovs-build

# Our patch series go with each tree but the reference one, which gets
# only the series' test fixes, the patches named tests-* (backports of
# OVS's own later fixes to its tests, so that both providers run the same
# suite): ovs-upstream-build sets this to tests.
AFXDP_OVS_PATCH = yes

ovs-unpack:
	@set -e; \
	src='$(OVS_SOURCE)'; \
	series=`cd $(srcdir)/patches && cat ovs-*/series */*.patch | cksum`; \
	if test -f "$$src"; then \
	  id="$$src `stat -c '%s %Y' "$$src"` $(AFXDP_OVS_PATCH) $$series"; \
	elif test -d "$$src"; then \
	  id="$$src $(AFXDP_OVS_PATCH) $$series"; \
	else \
	  echo "$@: OVS source $$src is gone; install openvswitch-source or rerun configure --with-ovs-source=PATH" >&2; \
	  exit 1; \
	fi; \
	if test -f $(OVS_BUILDDIR)/.afxdp-source && \
	   test "`cat $(OVS_BUILDDIR)/.afxdp-source`" = "$$id"; then \
	  exit 0; \
	fi; \
	echo "  UNPACK   $$src -> $(OVS_BUILDDIR)"; \
	tmp=$(OVS_BUILDDIR).tmp; \
	rm -rf $(OVS_BUILDDIR) $$tmp; \
	$(MKDIR_P) $$tmp; \
	trap 'rm -rf '"$$tmp" EXIT; \
	if test -d "$$src"; then \
	  (cd "$$src" && tar -cf - --exclude=.git .) | \
	    (cd $$tmp && tar -xf -); \
	else \
	  tar -xf "$$src" -C $$tmp --strip-components=1; \
	fi; \
	version=`$(SED) -n 's/^AC_INIT(openvswitch, *\[*\([0-9][0-9.]*\).*/\1/p' $$tmp/configure.ac`; \
	supported=`cd $(srcdir)/patches && ls -d ovs-*.* | $(SED) 's/^ovs-//' | tr '\n' ' '`; \
	dir=$(srcdir)/patches/ovs-`echo "$$version" | cut -d. -f1,2`; \
	if test -z "$$version" || test ! -f "$$dir/series"; then \
	  echo "$@: $$src is Open vSwitch $${version:-of unknown version}; supported versions: $$supported" >&2; \
	  exit 1; \
	fi; \
	listed=`cd $(srcdir)/patches && $(SED) 's/#.*//' ovs-*/series`; \
	for p in `cd $(srcdir)/patches && ls */*.patch`; do \
	  case " "`echo $$listed`" " in \
	    *" $$p "*) ;; \
	    *) echo "$@: patches/$$p is in no patches/ovs-X.Y/series" >&2; \
	       exit 1 ;; \
	  esac; \
	done; \
	if test "$(AFXDP_OVS_PATCH)" != no; then \
	  for name in `$(SED) 's/#.*//' $$dir/series`; do \
	    p=$(srcdir)/patches/$$name; \
	    if test ! -f "$$p"; then \
	      echo "$@: $$dir/series names patches/$$name, which does not exist" >&2; \
	      exit 1; \
	    fi; \
	    case "$(AFXDP_OVS_PATCH):$$name" in \
	      tests:*/tests-*.patch | yes:*) ;; \
	      *) continue ;; \
	    esac; \
	    echo "  PATCH    $$name"; \
	    if ! patch -d $$tmp -p1 --forward --batch --no-backup-if-mismatch \
	         --fuzz=0 -r - < $$p > $$tmp/.afxdp-patch.log 2>&1; then \
	      cat $$tmp/.afxdp-patch.log >&2; \
	      echo "$@: $$p does not apply to $$src (Open vSwitch $$version; supported versions: $$supported); nothing was changed in $(OVS_BUILDDIR)" >&2; \
	      exit 1; \
	    fi; \
	  done; \
	  rm -f $$tmp/.afxdp-patch.log; \
	fi; \
	echo "$$id" > $$tmp/.afxdp-source; \
	mv $$tmp $(OVS_BUILDDIR)

# 'afxdp_list FILE VARIABLE SOURCE...' rewrites the block between our
# markers at the end of OVS's automake fragment FILE so that it adds
# SOURCE... to VARIABLE (no block without sources), and flags a rerun of
# autoreconf when FILE changed.
ovs-overlay: ovs-unpack
	@set -e; \
	cd $(OVS_BUILDDIR); \
	if test "$(AFXDP_OVS_PATCH)" = yes; then \
	  sh $(abs_top_srcdir)/patches/ovs-probe . > lib/afxdp-ovs-probes.h.new; \
	  if cmp -s lib/afxdp-ovs-probes.h.new lib/afxdp-ovs-probes.h; then \
	    rm -f lib/afxdp-ovs-probes.h.new; \
	  else \
	    echo "  PROBE    lib/afxdp-ovs-probes.h"; \
	    mv lib/afxdp-ovs-probes.h.new lib/afxdp-ovs-probes.h; \
	  fi; \
	fi; \
	for f in $(AFXDP_PROVIDER_FILES); do \
	  if test ! -f $(abs_top_srcdir)/$$f; then \
	    echo "$@: $(abs_top_srcdir)/$$f is missing; it must replace OVS's $$f" >&2; \
	    exit 1; \
	  fi; \
	done; \
	for f in $(AFXDP_USERSPACE_FILES) $(AFXDP_DOC_FILES); do \
	  if ! cmp -s $(abs_top_srcdir)/$$f $$f; then \
	    echo "  OVERLAY  $$f"; \
	    cp $(abs_top_srcdir)/$$f $$f; \
	  fi; \
	done; \
	$(PYTHON3) $(abs_top_srcdir)/patches/ovs-vswitch-xml \
	  $(abs_top_srcdir)/$(AFXDP_VSWITCH_XML) .; \
	afxdp_list () { \
	  file=$$1; var=$$2; shift 2; \
	  $(SED) '/^# ovs-afxdp: begin/,/^# ovs-afxdp: end/d' $$file > $$file.new; \
	  if test $$# -gt 0; then \
	    { echo '# ovs-afxdp: begin (written by the ovs-afxdp build; do not edit)'; \
	      echo 'if HAVE_AF_XDP'; \
	      echo "$$var += $$*"; \
	      echo 'endif'; \
	      echo '# ovs-afxdp: end'; } >> $$file.new; \
	  fi; \
	  if cmp -s $$file.new $$file; then \
	    rm -f $$file.new; \
	  else \
	    echo "  LIST     $$var in $$file"; \
	    mv $$file.new $$file; \
	    touch .afxdp-regen; \
	  fi; \
	}; \
	afxdp_autoreconf () { \
	  if ! $(AUTORECONF) "$$@" > .afxdp-autoreconf.log 2>&1; then \
	    cat .afxdp-autoreconf.log >&2; \
	    echo "$@: autoreconf failed in $(OVS_BUILDDIR)" >&2; \
	    exit 1; \
	  fi; \
	}; \
	afxdp_list lib/automake.mk lib_libopenvswitch_la_SOURCES \
	  $(AFXDP_EXTRA_FILES); \
	afxdp_list tests/automake.mk tests_ovstest_SOURCES \
	  $(AFXDP_TEST_FILES); \
	if test ! -f .afxdp-bootstrapped; then \
	  echo "  AUTORECONF $(OVS_BUILDDIR)"; \
	  afxdp_autoreconf --force --install; \
	  rm -f .afxdp-regen; \
	  touch .afxdp-bootstrapped; \
	elif test -f .afxdp-regen; then \
	  echo "  AUTORECONF $(OVS_BUILDDIR)"; \
	  afxdp_autoreconf --install; \
	  if test -f config.status; then \
	    ./config.status Makefile depfiles > /dev/null; \
	  fi; \
	  rm -f .afxdp-regen; \
	fi

# '$(call afxdp_ovs_configure,DIR,ARGS)' is a recipe that runs OVS's
# configure in the OVS tree DIR with ARGS, unless DIR was configured with
# exactly ARGS already (they are kept in DIR/.afxdp-configure).
afxdp_ovs_configure = \
	set -e; \
	cd $(1); \
	set -- $(2); \
	printf '%s\n' "$$@" > .afxdp-configure.new; \
	if test -f Makefile && test -f config.status && \
	   cmp -s .afxdp-configure.new .afxdp-configure; then \
	  rm -f .afxdp-configure.new; \
	  exit 0; \
	fi; \
	echo "  CONFIGURE $(1) $$*"; \
	rm -f .afxdp-configure; \
	./configure "$$@"; \
	mv .afxdp-configure.new .afxdp-configure

ovs-configure: ovs-overlay
	@$(call afxdp_ovs_configure,$(OVS_BUILDDIR),$(OVS_CONFIGURE_ARGS))

ovs-prepare: ovs-configure

ovs-build: ovs-prepare $(BPF_SKEL)
	+$(OVS_MAKE) all

install-exec-local:
	+$(OVS_MAKE) install

uninstall-local:
	+$(OVS_MAKE) uninstall

clean-local: ovs-clean
distclean-local: ovs-distclean
.PHONY: ovs-clean ovs-distclean
ovs-clean:
	+if test -f $(OVS_BUILDDIR)/Makefile; then $(OVS_MAKE) clean; fi
ovs-distclean:
	rm -rf $(OVS_BUILDDIR) $(OVS_BUILDDIR).tmp \
	  $(OVS_UPSTREAM_BUILDDIR) $(OVS_UPSTREAM_BUILDDIR).tmp

# A second OVS tree, $(OVS_UPSTREAM_BUILDDIR), from the same source but
# without our overlay: OVS's own AF_XDP provider, for comparing the two
# (make check-upstream-suite-compare in tests/automake.mk).  It is built
# only when asked for.  The unpack step is ovs-unpack's, run in a sub-make
# on the other tree; the configure arguments are ours less our include path.
OVS_UPSTREAM_TREE = $(AFXDP_OVS_TREE)-upstream
OVS_UPSTREAM_BUILDDIR = $(abs_top_builddir)/$(OVS_UPSTREAM_TREE)
OVS_UPSTREAM_CONFIGURE_ARGS = \
	--enable-afxdp \
	CC='$(CC)' \
	CFLAGS='$(OVS_CFLAGS)' \
	$(OVS_CONFIGURE_FLAGS)

.PHONY: ovs-upstream-build
ovs-upstream-build:
	+@$(MAKE) --no-print-directory ovs-unpack \
	  AFXDP_OVS_TREE='$(OVS_UPSTREAM_TREE)' AFXDP_OVS_PATCH=tests
	@$(call afxdp_ovs_configure,$(OVS_UPSTREAM_BUILDDIR),$(OVS_UPSTREAM_CONFIGURE_ARGS))
	+$(MAKE) -C $(OVS_UPSTREAM_BUILDDIR) $(OVS_MAKE_JOBS) all

# check-style: OVS's checkpatch.py on every userspace C file of ours (the
# fuzz harnesses of tests/fuzz/automake.mk too), clang-format on the BPF C
# and each BPF header compiled on its own (bpf/automake.mk), no include
# cycles (check-includes) and no source file over 1,200 lines
# (check-file-length).
.PHONY: check-style
check-style: ovs-unpack check-style-bpf check-bpf-headers check-includes \
		check-file-length
	@status=0; \
	for f in $(AFXDP_USERSPACE_FILES) $(AFXDP_FUZZ_FILES); do \
	  echo "  CHECKPATCH $$f"; \
	  $(PYTHON3) $(OVS_SRCDIR)/utilities/checkpatch.py -q -f \
	    $(srcdir)/$$f || status=1; \
	done; \
	if test $$status != 0; then \
	  echo "check-style: checkpatch.py found problems (see above)" >&2; \
	fi; \
	exit $$status

# check-file-length: one concept per file; a file that grows past 1,200
# lines holds more than one and is split (the generated BPF skeletons are
# not ours to split).
AFXDP_MAX_FILE_LINES = 1200
.PHONY: check-file-length
check-file-length:
	@echo "  LENGTH   lib/ bpf/ tests/ utilities/ vswitchd/ Documentation/"
	@status=0; \
	for f in $(srcdir)/lib/*.[ch] $(srcdir)/bpf/*.[ch] $(srcdir)/tests/*.[ch] \
	         $(srcdir)/tests/*.at $(srcdir)/tests/*.py $(srcdir)/tests/*.sh \
	         $(srcdir)/utilities/* $(srcdir)/vswitchd/* \
	         $(srcdir)/Documentation/*/*.rst $(srcdir)/Documentation/*/*/*.rst \
	         $(srcdir)/README.md $(srcdir)/NEWS; do \
	  case $$f in *.skel.h) continue ;; esac; \
	  test -f "$$f" || continue; \
	  grep -qI '' "$$f" || continue; \
	  n=`wc -l < "$$f"`; \
	  if test $$n -gt $(AFXDP_MAX_FILE_LINES); then \
	    echo "$$f: $$n lines, more than $(AFXDP_MAX_FILE_LINES): split it" >&2; \
	    status=1; \
	  fi; \
	done; \
	exit $$status

# check-includes: no headers of lib/ and bpf/ that include each other, and
# no modules that depend on each other, through their headers or through
# functions one declares and another defines (tests/afxdp-check-includes.py
# says how modules are told apart).
.PHONY: check-includes
check-includes:
	@echo "  INCLUDES lib/ bpf/"
	@$(PYTHON3) $(srcdir)/tests/afxdp-check-includes.py $(srcdir) || { \
	  echo "check-includes: include cycles (see above; --graph prints the module graph)" >&2; \
	  exit 1; }

# check-warnings: every userspace C file of ours (the fuzz harnesses, which
# are not in the OVS tree, from our source tree), compiled with the flags
# OVS's build uses plus our stricter warnings as errors: by gcc, to an
# object thrown away (gcc's -fsyntax-only skips the passes that find unused
# statics and uninitialized uses), then by clang, syntax only, with its
# thread-safety analysis of OVS's lock annotations.
AFXDP_WARNING_FLAGS = -Werror -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers
AFXDP_CLANG_WARNING_FLAGS = $(AFXDP_WARNING_FLAGS) -Wthread-safety \
	-Wno-unknown-warning-option

.PHONY: check-warnings
check-warnings: ovs-build
	@set -e; \
	cd $(OVS_BUILDDIR); \
	flags=`printf 'afxdp-print-flags:\n\t@echo $$(DEFS) $$(DEFAULT_INCLUDES) $$(INCLUDES) $$(AM_CPPFLAGS) $$(CPPFLAGS) $$(AM_CFLAGS) $$(CFLAGS)\n' | \
	  $(MAKE) -s --no-print-directory -f Makefile -f - afxdp-print-flags`; \
	status=0; \
	for f in $(filter %.c,$(AFXDP_USERSPACE_FILES)) $(AFXDP_FUZZ_FILES); do \
	  src=$$f; \
	  test -f $$src || src=$(abs_top_srcdir)/$$f; \
	  echo "  CC       $$f"; \
	  $(CC) $$flags $(AFXDP_WARNING_FLAGS) -c -o /dev/null $$src || status=1; \
	  echo "  CLANG    $$f"; \
	  $(CLANG) $$flags $(AFXDP_CLANG_WARNING_FLAGS) -fsyntax-only $$src || status=1; \
	done; \
	if test $$status != 0; then \
	  echo "check-warnings: warnings found (see above)" >&2; \
	fi; \
	exit $$status

# The OVS versions we support: a patch series each, the patches, and the
# probe of what a tree offers (Documentation/internals/build.rst).
EXTRA_DIST += patches/ovs-probe \
	$(patsubst $(srcdir)/%,%,$(wildcard $(srcdir)/patches/ovs-*/series \
	  $(srcdir)/patches/*/*.patch))
