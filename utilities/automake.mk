# Helper scripts.  None is installed: they drive the build and tests from
# the source tree.

EXTRA_DIST += \
	utilities/ovs-afxdp-deps \
	utilities/ovs-afxdp-quickstart \
	$(patsubst $(srcdir)/%,%,$(wildcard $(srcdir)/utilities/ovs-afxdp-sandbox))

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
