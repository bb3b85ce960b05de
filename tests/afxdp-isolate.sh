#! /bin/bash
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

# afxdp-isolate.sh COMMAND [ARG...]
#
# Runs COMMAND in fresh network, mount and PID namespaces, so that the
# system tests never see or change the host's interfaces, named network
# namespaces, XDP programs or Open vSwitch daemons:
#
#   - a private network namespace with only 'lo' (up);
#   - all mounts private, a fresh sysfs (so /sys/class/net shows our
#     namespace), a fresh bpffs on /sys/fs/bpf for libxdp;
#   - a private tmpfs on /run/netns, so 'ip netns add' names never collide
#     with other users of the machine, and on /run/openvswitch, so a stray
#     ovs-vsctl without OVS_RUNDIR cannot reach a host daemon;
#   - a PID namespace: when COMMAND ends, every process it left behind
#     (e.g. a daemon of a test that was interrupted) is killed by the kernel.
#
# The exit status is COMMAND's.  Needs root (CAP_SYS_ADMIN).

set -u

if test $# = 0; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi

if test "${AFXDP_ISOLATED:-}" != inner; then
    AFXDP_ISOLATED=inner exec unshare --net --mount --pid --fork \
        --mount-proc -- "$0" "$@"
    echo "$0: unshare failed" >&2
    exit 1
fi

# From here on we are PID 1 of the new PID namespace.
setup() {
    mount --make-rprivate / &&
    mount -t sysfs sysfs /sys &&
    { mount -t bpf bpf /sys/fs/bpf ||
      echo "$0: warning: cannot mount bpffs on /sys/fs/bpf" >&2; } &&
    mkdir -p /run/netns /run/openvswitch &&
    mount -t tmpfs -o mode=0755 tmpfs /run/netns &&
    mount -t tmpfs -o mode=0755 tmpfs /run/openvswitch &&
    ip link set lo up
}
if ! setup; then
    echo "$0: cannot set up the isolated environment" >&2
    exit 1
fi
unset AFXDP_ISOLATED

# Run COMMAND as a child and stay around as PID 1: bash reaps every orphan
# that is reparented to us (daemons that detached), so that 'kill -0' on a
# daemon that exited does not keep succeeding on a zombie.
"$@" &
child=$!
trap 'kill -TERM $child 2>/dev/null' INT TERM HUP
while :; do
    wait $child
    status=$?
    # 'wait' returns early (status > 128) when a trapped signal arrives.
    kill -0 $child 2>/dev/null || break
done
exit $status
