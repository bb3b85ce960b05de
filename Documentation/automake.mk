# SPDX-License-Identifier: Apache-2.0
# Documentation is plain reStructuredText, read in the tree or on the web;
# nothing is generated from it.  Every .rst under Documentation/ ships.

EXTRA_DIST += \
	$(sort $(patsubst $(srcdir)/%,%,$(wildcard \
	  $(srcdir)/Documentation/*.rst \
	  $(srcdir)/Documentation/*/*.rst \
	  $(srcdir)/Documentation/*/*/*.rst)))
