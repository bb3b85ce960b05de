#! /bin/sh
# SPDX-License-Identifier: Apache-2.0
# Generates configure and Makefile.in from configure.ac and Makefile.am.
# Needed once after a git clone; release tarballs ship the results.
set -e
cd "$(dirname "$0")"
for tool in autoreconf automake; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "boot.sh: $tool not found; run utilities/ovs-afxdp-deps" >&2
        exit 1
    fi
done
autoreconf --install --force
