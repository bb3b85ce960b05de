# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The ovs-afxdp authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# afxdp-bench-lib.sh: shell functions shared by the bash benchmarks
# (ovs-afxdp-bench-overlay, ovs-afxdp-bench-node), which source it.

# afxdp_bench_upstream_tree DIR
#
# Prints the OVS tree that runs OVS's own AF_XDP provider:
# $OVS_UPSTREAM_BUILDDIR if it holds a built ovs-vswitchd, else DIR, made
# of links to Debian's programs in the layout of a build tree.
afxdp_bench_upstream_tree() {
    local t=$1 p
    if test -n "${OVS_UPSTREAM_BUILDDIR:-}" &&
       test -x "$OVS_UPSTREAM_BUILDDIR/vswitchd/ovs-vswitchd"; then
        echo "$OVS_UPSTREAM_BUILDDIR"
        return
    fi
    mkdir -p "$t/vswitchd" "$t/ovsdb" "$t/utilities"
    ln -sf /usr/sbin/ovs-vswitchd "$t/vswitchd/ovs-vswitchd"
    ln -sf /usr/share/openvswitch/vswitch.ovsschema "$t/vswitchd/vswitch.ovsschema"
    ln -sf /usr/sbin/ovsdb-server "$t/ovsdb/ovsdb-server"
    ln -sf /usr/bin/ovsdb-tool "$t/ovsdb/ovsdb-tool"
    for p in ovs-vsctl ovs-appctl ovs-ofctl; do
        ln -sf /usr/bin/$p "$t/utilities/$p"
    done
    echo "$t"
}
