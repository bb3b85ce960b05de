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

"""What the benchmarks utilities/ovs-afxdp-bench (UDP frames per second)
and utilities/ovs-afxdp-bench-tcp (iperf3) share: the topology, running
commands, our OVS or Debian's in a private directory, the switch's CPU
time, and running inside tests/afxdp-isolate.sh.

  generator ns (bngen)        switch (private ns)         sink ns (bnsink)
  bn-gen <--veth--> bn-in  [variant under test]  bn-out <--veth--> bn-sink

The traffic's ends run on GEN_CPU, the switch on SWITCH_CPU.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

GEN_CPU = 0
SWITCH_CPU = 1

NS_GEN = 'bngen'
NS_SINK = 'bnsink'
DEV_GEN = 'bn-gen'
DEV_IN = 'bn-in'
DEV_OUT = 'bn-out'
DEV_SINK = 'bn-sink'
BRIDGE = 'bnbr'
MAC = {DEV_GEN: '02:62:6e:00:00:01', DEV_SINK: '02:62:6e:00:00:02',
       DEV_IN: '02:62:6e:00:01:01', DEV_OUT: '02:62:6e:00:01:02'}
IP_GEN = '10.250.0.1'
IP_SINK = '10.250.0.2'

STEP_TIMEOUT = 60
ISOLATED_ENV = 'OVS_AFXDP_BENCH_ISOLATED'


class BenchError(Exception):
    pass


def say(msg):
    print('== %s' % msg, flush=True)


def note(msg):
    print('   %s' % msg, flush=True)


def run(args, check=True, timeout=STEP_TIMEOUT, env=None, quiet=False):
    """Runs ARGS and returns its stdout.  With CHECK, a failure raises
    BenchError with the command and its stderr."""
    try:
        p = subprocess.run(args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise BenchError('%s: timed out after %d s' % (' '.join(args),
                                                       timeout))
    except OSError as e:
        raise BenchError('%s: %s' % (args[0], e))
    if check and p.returncode != 0:
        raise BenchError('%s: exit status %d: %s'
                         % (' '.join(args), p.returncode, p.stderr.strip()))
    if not quiet and p.returncode != 0 and p.stderr.strip():
        note('(%s: %s)' % (args[0], p.stderr.strip()))
    return p.stdout


def in_ns(ns, args):
    """ARGS run in network namespace NS (None: our own)."""
    return ['ip', 'netns', 'exec', ns] + args if ns else args


def pinned(cpu, args):
    return ['taskset', '-c', str(cpu)] + args


# ---------------------------------------------------------------------------
# The topology.
# ---------------------------------------------------------------------------

def sysfs_write(dev, name, value):
    with open('/sys/class/net/%s/%s' % (dev, name), 'w') as f:
        f.write(value)


def sysfs_read(dev, name):
    with open('/sys/class/net/%s/%s' % (dev, name)) as f:
        return f.read().strip()



def setup_topology():
    """Creates the two namespaces and veth pairs, addressed, with static
    neighbours.  The switch side stays in our own (private) namespace,
    whose sysfs is mounted on /sys.  The offloads of the veths are the
    kernel's defaults; each benchmark sets what it needs."""
    say('topology: %s %s <-> %s [switch] %s <-> %s %s'
        % (NS_GEN, DEV_GEN, DEV_IN, DEV_OUT, DEV_SINK, NS_SINK))
    for ns in (NS_GEN, NS_SINK):
        run(['ip', 'netns', 'add', ns])
        run(['ip', '-n', ns, 'link', 'set', 'lo', 'up'])
    for ns, outer, inner in ((NS_GEN, DEV_GEN, DEV_IN),
                             (NS_SINK, DEV_SINK, DEV_OUT)):
        run(['ip', 'link', 'add', inner, 'address', MAC[inner], 'type',
             'veth', 'peer', 'name', outer, 'address', MAC[outer],
             'netns', ns])
        run(['ip', 'link', 'set', inner, 'up'])
        run(['ip', '-n', ns, 'link', 'set', outer, 'up'])
    run(['ip', '-n', NS_GEN, 'addr', 'add', IP_GEN + '/24', 'dev', DEV_GEN])
    run(['ip', '-n', NS_SINK, 'addr', 'add', IP_SINK + '/24', 'dev',
         DEV_SINK])
    run(['ip', '-n', NS_GEN, 'neigh', 'replace', IP_SINK, 'lladdr',
         MAC[DEV_SINK], 'dev', DEV_GEN, 'nud', 'permanent'])
    run(['ip', '-n', NS_SINK, 'neigh', 'replace', IP_GEN, 'lladdr',
         MAC[DEV_GEN], 'dev', DEV_SINK, 'nud', 'permanent'])


def teardown_topology():
    for ns in (NS_GEN, NS_SINK):
        subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)
    for dev in (DEV_IN, DEV_OUT, BRIDGE):
        subprocess.run(['ip', 'link', 'del', dev], stderr=subprocess.DEVNULL)


def xdp_attached(dev):
    """True if DEV in our namespace has an XDP program attached."""
    out = run(['ip', '-d', 'link', 'show', 'dev', dev], check=False)
    return re.search(r'\bprog/xdp', out) is not None


def ensure_no_xdp():
    """Removes XDP programs a variant left on the switch's veths, which
    would change the next variant's path."""
    for dev in (DEV_IN, DEV_OUT):
        if xdp_attached(dev):
            note('%s: removing an XDP program left behind' % dev)
            for mode in ('xdp', 'xdpgeneric', 'xdpdrv'):
                run(['ip', 'link', 'set', 'dev', dev, mode, 'off'],
                    check=False, quiet=True)


# ---------------------------------------------------------------------------
# The traffic: afxdp-bench-xdp's generator and sink.
# ---------------------------------------------------------------------------

def gen_args(opts, duration, rate=0, window=None):
    """The generator's command line: DURATION seconds at RATE frames/s (0:
    as fast as it can), counting separately in WINDOW (from, to)."""
    args = [opts.tool, 'gen', DEV_GEN, '--size', str(opts.size),
            '--flows', str(opts.flows), '--duration', '%.3f' % duration,
            '--rate', '%d' % rate, '--src-mac', MAC[DEV_GEN],
            '--dst-mac', MAC[DEV_SINK], '--src-ip', IP_GEN,
            '--dst-ip', IP_SINK, '--batch', str(opts.gen_batch)]
    if window:
        args += ['--window', '%.3f,%.3f' % window]
    return in_ns(NS_GEN, pinned(GEN_CPU, args))


class Tool(object):
    """A long-running afxdp-bench-xdp command (sink, redirect) that answers
    on its stdout and ends when its stdin closes."""

    def __init__(self, args):
        self.args = args
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     universal_newlines=True)
        line = self.proc.stdout.readline().strip()
        if line != 'ready':
            self.close()
            raise BenchError('%s did not start' % ' '.join(args))

    def ask(self):
        self.proc.stdin.write('\n')
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


class Sink(Tool):
    def __init__(self, tool):
        Tool.__init__(self, in_ns(NS_SINK, [tool, 'sink', DEV_SINK]))

    def packets(self):
        m = re.match(r'packets=(\d+) bytes=(\d+)$', self.ask())
        if not m:
            raise BenchError('the sink did not answer')
        return int(m.group(1))


# ---------------------------------------------------------------------------
# Open vSwitch, ours or Debian's, in a private directory.
# ---------------------------------------------------------------------------

class OVS(object):
    """An ovsdb-server and ovs-vswitchd of their own, with both switch
    veths as afxdp ports of bridge br0 and a flow each way."""

    def __init__(self, name, paths, rundir, port_options, other_config=(),
                 wrapper=()):
        self.name = name
        # A command that runs ovs-vswitchd (valgrind for
        # ovs-afxdp-bench-instructions), or none.
        self.wrapper = list(wrapper)
        self.wrapped = None
        self.other_config = list(other_config)
        self.paths = paths
        self.rundir = rundir
        self.env = dict(os.environ)
        for var in ('OVS_RUNDIR', 'OVS_LOGDIR', 'OVS_DBDIR',
                    'OVS_SYSCONFDIR', 'OVS_PKGDATADIR'):
            self.env[var] = rundir
        self.port_options = port_options

    def tool(self, name, args, **kwargs):
        return run([self.paths[name], '--timeout=%d' % STEP_TIMEOUT] + args,
                   env=self.env, **kwargs)

    def vsctl(self, *args, **kwargs):
        return self.tool('ovs-vsctl', list(args), **kwargs)

    def appctl(self, *args, **kwargs):
        return self.tool('ovs-appctl', list(args), **kwargs)

    def start(self, verbose):
        """Starts the daemons and sets up the bridge; VERBOSE: say in
        detail what is in effect."""
        if os.path.exists(self.rundir):
            shutil.rmtree(self.rundir)
        os.makedirs(self.rundir)
        db = os.path.join(self.rundir, 'conf.db')
        run([self.paths['ovsdb-tool'], 'create', db, self.paths['schema']])
        run(pinned(SWITCH_CPU, [
            self.paths['ovsdb-server'], '--detach', '--no-chdir',
            '--pidfile', '--log-file', '-vconsole:off',
            '--remote=punix:' + os.path.join(self.rundir, 'db.sock'), db]),
            env=self.env)
        self.vsctl('--no-wait', 'init')
        self.vsctl('--no-wait', 'set', 'Open_vSwitch', '.',
                   'other_config:pmd-cpu-mask=0x%x' % (1 << SWITCH_CPU),
                   *self.other_config)
        vswitchd = [self.paths['ovs-vswitchd'], '--no-chdir', '--pidfile',
                    '--log-file', '-vconsole:off', '--disable-system']
        if not self.wrapper:
            run(pinned(SWITCH_CPU, vswitchd + ['--detach']), env=self.env)
        else:
            # Not detached: the wrapper's process stays the daemon's
            # (callgrind_control finds valgrind by the PID it started
            # with, which a fork would change).
            self.wrapped = subprocess.Popen(
                pinned(SWITCH_CPU, self.wrapper + vswitchd), env=self.env,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            self.wait_pidfile('ovs-vswitchd')
        if verbose:
            version = run([self.paths['ovs-vswitchd'], '--version'])
            note('%s: %s (%s)' % (self.name, self.paths['ovs-vswitchd'],
                                  version.splitlines()[0]))
        self.vsctl('add-br', 'br0', '--', 'set', 'bridge', 'br0',
                   'datapath_type=netdev', 'fail_mode=secure')
        for ofport, dev in ((1, DEV_IN), (2, DEV_OUT)):
            self.vsctl('add-port', 'br0', dev, '--', 'set', 'interface',
                       dev, 'type=afxdp', 'ofport_request=%d' % ofport,
                       *self.port_options)
        for dev in (DEV_IN, DEV_OUT):
            error = self.vsctl('get', 'interface', dev, 'error').strip()
            if error != '[]':
                raise BenchError('%s: port %s: %s (see %s/ovs-vswitchd.log)'
                                 % (self.name, dev, error, self.rundir))
        ofctl = [self.paths['ovs-ofctl']]
        run(ofctl + ['del-flows', 'br0'], env=self.env)
        run(ofctl + ['add-flow', 'br0', 'in_port=1,actions=output:2'],
            env=self.env)
        run(ofctl + ['add-flow', 'br0', 'in_port=2,actions=output:1'],
            env=self.env)
        if not verbose:
            return
        note('%s: files in %s' % (self.name, self.rundir))
        if self.port_options:
            note('%s: ports with %s' % (self.name,
                                        ' '.join(self.port_options)))
        if self.other_config:
            note('%s: %s' % (self.name, ' '.join(self.other_config)))
        for line in self.appctl('dpif-netdev/pmd-rxq-show').splitlines():
            if 'port:' in line:
                note('  %s' % re.sub(r'\s+', ' ', line.strip()))
        status = self.vsctl('get', 'interface', DEV_IN, 'status').strip()
        note('  %s status: %s' % (DEV_IN, status))

    def wait_pidfile(self, daemon):
        """Waits for DAEMON's pidfile (a minute at most)."""
        path = os.path.join(self.rundir, daemon + '.pid')
        for _ in range(STEP_TIMEOUT * 10):
            if os.path.exists(path):
                return
            if self.wrapped.poll() is not None:
                break
            time.sleep(0.1)
        raise BenchError('%s: %s did not start (see %s)'
                         % (self.name, daemon, self.rundir))

    def stop(self):
        """Stops both daemons, ovs-vswitchd with --cleanup so that it
        removes its XDP programs."""
        for daemon, args in (('ovs-vswitchd', ['exit', '--cleanup']),
                             ('ovsdb-server', ['exit'])):
            pidfile = os.path.join(self.rundir, daemon + '.pid')
            try:
                with open(pidfile) as f:
                    pid = int(f.read())
            except (OSError, ValueError):
                continue
            self.appctl('-t', daemon, *args, check=False, quiet=True)
            wrapped = self.wrapped if daemon == 'ovs-vswitchd' else None
            for _ in range(300 if wrapped else 100):
                if wrapped:
                    if wrapped.poll() is not None:
                        break
                    time.sleep(0.1)
                    continue
                try:
                    os.kill(pid, 0)
                except OSError:
                    break
                time.sleep(0.1)
            else:
                note('%s: %s did not exit, killing it' % (self.name, daemon))
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def clear_stats(self):
        self.appctl('dpif-netdev/pmd-stats-clear')

    def pmd_cpu_ns(self):
        """Nanoseconds the PMD thread has spent on a CPU so far (from
        /proc/PID/task/TID/schedstat: time it ran, not time it was
        preempted by other work), or None when it cannot be found."""
        try:
            with open(os.path.join(self.rundir, 'ovs-vswitchd.pid')) as f:
                pid = int(f.read())
            taskdir = '/proc/%d/task' % pid
            for tid in os.listdir(taskdir):
                with open(os.path.join(taskdir, tid, 'comm')) as f:
                    if not f.read().startswith('pmd'):
                        continue
                with open(os.path.join(taskdir, tid, 'schedstat')) as f:
                    return int(f.read().split()[0])
        except (OSError, ValueError):
            pass
        return None

    def pmd_stats(self):
        """Returns (packets, processing cycles, busy %) of the PMD thread
        on SWITCH_CPU since the last clear_stats()."""
        out = self.appctl('dpif-netdev/pmd-stats-show')
        block = None
        for part in re.split(r'\n(?=\S)', out):
            if re.search(r'pmd thread .*core_id %d:' % SWITCH_CPU, part):
                block = part
        if block is None:
            return None
        m_pkts = re.search(r'packets received: (\d+)', block)
        m_proc = re.search(r'processing cycles: (\d+) \(([\d.]+)%\)', block)
        if not m_pkts:
            # OVS 3.7+: pmd-stats-show is pmd-perf-show, which gives the
            # busy cycles per packet and the busy share of used cycles.
            m_rx = re.search(r'Rx packets: +(\d+) .*?([\d.]+) cycles/pkt',
                             block)
            m_used = re.search(r'Used TSC cycles: +\d+ +\(\s*([\d.]+) %',
                               block)
            m_busy = re.search(r'busy iterations: +\d+ +\(\s*([\d.]+) %',
                               block)
            if m_rx and m_used and m_busy:
                pkts = int(m_rx.group(1))
                return (pkts, int(pkts * float(m_rx.group(2))),
                        float(m_used.group(1)) * float(m_busy.group(1))
                        / 100)
        if not m_pkts or not m_proc:
            return (int(m_pkts.group(1)) if m_pkts else 0, 0, 0.0)
        return (int(m_pkts.group(1)), int(m_proc.group(1)),
                float(m_proc.group(2)))


def ovs_paths(which, builddir, snapshot=None):
    """Program and schema paths of our OVS (the build tree, or SNAPSHOT of
    it) or Debian's."""
    if which == 'ours' and snapshot:
        return snapshot
    # The reference: OVS's own provider of the same OVS version, from the
    # tree "make bench" built from the same source (OVS_UPSTREAM_BUILDDIR),
    # or Debian's packaged OVS when ours is Debian's version (3.1).
    ovs = (os.environ.get('OVS_BUILDDIR') or os.path.join(builddir, 'ovs')
           if which == 'ours' else os.environ.get('OVS_UPSTREAM_BUILDDIR'))
    if ovs:
        return {
            'ovs-vswitchd': os.path.join(ovs, 'vswitchd/ovs-vswitchd'),
            'ovsdb-server': os.path.join(ovs, 'ovsdb/ovsdb-server'),
            'ovsdb-tool': os.path.join(ovs, 'ovsdb/ovsdb-tool'),
            'ovs-vsctl': os.path.join(ovs, 'utilities/ovs-vsctl'),
            'ovs-appctl': os.path.join(ovs, 'utilities/ovs-appctl'),
            'ovs-ofctl': os.path.join(ovs, 'utilities/ovs-ofctl'),
            'schema': os.path.join(ovs, 'vswitchd/vswitch.ovsschema'),
        }
    return {
        'ovs-vswitchd': '/usr/sbin/ovs-vswitchd',
        'ovsdb-server': '/usr/sbin/ovsdb-server',
        'ovsdb-tool': '/usr/bin/ovsdb-tool',
        'ovs-vsctl': '/usr/bin/ovs-vsctl',
        'ovs-appctl': '/usr/bin/ovs-appctl',
        'ovs-ofctl': '/usr/bin/ovs-ofctl',
        'schema': '/usr/share/openvswitch/vswitch.ovsschema',
    }


def missing_paths(paths):
    return [p for p in paths.values() if not os.path.exists(p)]


def snapshot_ours(opts):
    """Copies our OVS programs and schema into the run directory and uses
    the copies, so that a rebuild of the tree during the run (make by
    someone else) changes nothing under our feet."""
    paths = ovs_paths('ours', opts.builddir)
    bindir = os.path.join(opts.rundir, 'bin')
    copies = {}
    for name, path in paths.items():
        copies[name] = os.path.join(bindir, os.path.basename(path))
        shutil.copy2(path, copies[name])
    opts.ours_paths = copies
    note('ours: programs copied from %s to %s'
         % (os.path.dirname(os.path.dirname(paths['ovs-vswitchd'])),
            bindir))


# ---------------------------------------------------------------------------
# The switch: each variant's OVS or bridge, and its device settings, set up
# and torn down around its measurements.
# ---------------------------------------------------------------------------

class Switch(object):
    """What a variant sets up on the switch's side: an OVS (self.ovs), a
    Linux bridge, programs with a close() method (self.tools), sysfs
    settings of the veths (restored by teardown).  REP is the repetition,
    from 0; the first says in detail what was set up."""

    def __init__(self, name, opts, rep):
        self.name = name
        self.opts = opts
        self.rep = rep
        self.verbose = rep == 0
        self.ovs = None
        self.bridge = False
        self.tools = []
        self.sysfs_saved = {}

    def start_ovs(self, which, options, other_config, rundir_name=None):
        """Starts OVS WHICH ('ours' or 'upstream') with both veths as afxdp
        ports with OPTIONS, and OTHER_CONFIG."""
        ensure_no_xdp()
        self.ovs = OVS(self.name, ovs_paths(which, self.opts.builddir,
                                            self.opts.ours_paths),
                       os.path.join(self.opts.rundir, rundir_name or '%s-%d'
                                    % (self.name, self.rep + 1)),
                       options, other_config,
                       getattr(self.opts, 'vswitchd_wrapper', ()))
        self.ovs.start(self.verbose)

    def start_bridge(self):
        """Makes bridge BRIDGE of both veths."""
        ensure_no_xdp()
        run(['ip', 'link', 'add', BRIDGE, 'type', 'bridge',
             'forward_delay', '0', 'stp_state', '0'])
        self.bridge = True
        for dev in (DEV_IN, DEV_OUT):
            run(['ip', 'link', 'set', dev, 'master', BRIDGE])
        run(['ip', 'link', 'set', BRIDGE, 'up'])

    def set_sysfs(self, dev, name, value):
        """Writes VALUE to DEV's sysfs attribute NAME until teardown."""
        self.sysfs_saved.setdefault((dev, name), sysfs_read(dev, name))
        try:
            sysfs_write(dev, name, value)
        except OSError as e:
            raise BenchError('%s: cannot set %s to %s: %s'
                             % (dev, name, value, e))

    def set_threaded_napi(self, devs):
        """Runs the NAPI of DEVS in kernel threads rather than in the
        softirq of the CPU that sent to them (GEN_CPU, or the switch's
        own): a thread runs where the scheduler finds room, which is the
        switch's CPU, as the other one is busy with the traffic's ends.
        A veth has a NAPI only with an XDP program or GRO."""
        for dev in devs:
            self.set_sysfs(dev, 'threaded', '1')

    def teardown(self):
        # Device settings first, while the devices still have their NAPI
        # instances: a veth has none without an XDP program or GRO, and
        # "threaded" written then would not reach the NAPI made later.
        for (dev, name), value in self.sysfs_saved.items():
            try:
                sysfs_write(dev, name, value)
                if sysfs_read(dev, name) != value:
                    note('%s: %s stays %s, not %s' % (
                        dev, name, sysfs_read(dev, name), value))
            except OSError as e:
                note('%s: cannot restore %s: %s' % (dev, name, e))
        self.sysfs_saved = {}
        if self.ovs:
            self.ovs.stop()
            self.ovs = None
        for tool in self.tools:
            tool.close()
        self.tools = []
        if self.bridge:
            for dev in (DEV_IN, DEV_OUT):
                run(['ip', 'link', 'set', dev, 'nomaster'], check=False)
            run(['ip', 'link', 'del', BRIDGE], check=False, quiet=True)
            self.bridge = False
        ensure_no_xdp()


# ---------------------------------------------------------------------------
# CPU time.
# ---------------------------------------------------------------------------

def cpu_times():
    """Busy and total jiffies of each CPU, from /proc/stat."""
    times = {}
    with open('/proc/stat') as f:
        for line in f:
            m = re.match(r'cpu(\d+) (.*)', line)
            if m:
                v = [int(x) for x in m.group(2).split()]
                idle = v[3] + (v[4] if len(v) > 4 else 0)
                times[int(m.group(1))] = (sum(v) - idle, sum(v))
    return times


def cpu_busy(t0, t1):
    """{cpu: % busy} between cpu_times() T0 and T1."""
    busy = {}
    for cpu in t1:
        b0, a0 = t0.get(cpu, (0, 0))
        busy[cpu] = 100.0 * (t1[cpu][0] - b0) / max(t1[cpu][1] - a0, 1)
    return busy


def other_load():
    """How busy each CPU is over one second before we start, that is,
    with work that is not ours (a string such as "cpu0 3%, cpu1 97%")."""
    t0 = cpu_times()
    time.sleep(1)
    busy = cpu_busy(t0, cpu_times())
    return ', '.join('cpu%d %.0f%%' % (cpu, busy[cpu])
                     for cpu in sorted(busy))


def loadavg():
    """The 1, 5 and 15 minute load averages, as a string."""
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


# ---------------------------------------------------------------------------
# Directories, preflight, isolation.
# ---------------------------------------------------------------------------

def find_dirs(opts, rundir_name):
    """Sets opts.srcdir, opts.builddir (--builddir, $abs_top_builddir, the
    directory above $OVS_BUILDDIR, or the source directory), opts.tool
    (afxdp-bench-xdp there) and opts.rundir (RUNDIR_NAME there)."""
    srcdir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    builddir = opts.builddir or os.environ.get('abs_top_builddir')
    if not builddir and os.environ.get('OVS_BUILDDIR'):
        builddir = os.path.dirname(os.environ['OVS_BUILDDIR'].rstrip('/'))
    opts.srcdir = srcdir
    opts.builddir = os.path.abspath(builddir or srcdir)
    opts.tool = os.path.join(opts.builddir, 'utilities/afxdp-bench-xdp')
    opts.rundir = os.path.join(opts.builddir, rundir_name)


def preflight(prog, opts, ovs_variants):
    """Drops the chosen variants whose OVS (OVS_VARIANTS[variant][0])
    is not there, saying why, and fails when nothing is left; makes a
    fresh opts.rundir with our OVS programs copied into it."""
    if (os.cpu_count() or 1) < 2:
        sys.exit('%s: needs 2 CPUs (traffic on %d, switch on %d)'
                 % (prog, GEN_CPU, SWITCH_CPU))
    for v in list(opts.variants):
        if v in ovs_variants:
            missing = missing_paths(ovs_paths(ovs_variants[v][0],
                                              opts.builddir))
            if missing:
                print('%s: skipping %s: %s not found'
                      % (prog, v, ', '.join(missing)))
                opts.variants.remove(v)
    if not opts.variants:
        sys.exit('%s: no variant can run' % prog)
    if os.path.exists(opts.rundir):
        shutil.rmtree(opts.rundir)
    os.makedirs(os.path.join(opts.rundir, 'bin'))
    opts.ours_paths = None
    if any(ovs_variants.get(v, ('',))[0] == 'ours' for v in opts.variants):
        snapshot_ours(opts)


def isolate(prog, opts, script_path, argv):
    """Runs SCRIPT_PATH with ARGV again inside tests/afxdp-isolate.sh."""
    script = os.path.join(opts.srcdir, 'tests', 'afxdp-isolate.sh')
    env = dict(os.environ)
    env[ISOLATED_ENV] = '1'
    env['abs_top_builddir'] = opts.builddir
    args = [script, sys.executable, os.path.abspath(script_path)] + argv
    print('%s: running in private namespaces (%s)' % (prog, script),
          flush=True)
    child = subprocess.Popen(args, env=env)

    # afxdp-isolate.sh passes SIGTERM on to us inside, where it ends the
    # run early and cleanly.
    def stop(signo, frame):
        child.send_signal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:
            stop(None, None)


def start_root(prog, opts, script_path, argv):
    """Checks that we are root; outside the private namespaces, runs the
    benchmark inside them and returns its exit status; inside, returns
    None, and SIGTERM ends the run early and cleanly (the cleanup in the
    finally clauses runs, not interrupted by further signals)."""
    if os.geteuid() != 0:
        sys.exit('%s: needs root (XDP programs, AF_XDP sockets, network '
                 'namespaces)' % prog)
    if os.environ.get(ISOLATED_ENV) != '1':
        return isolate(prog, opts, script_path, argv)

    def on_sigterm(signo, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print('%s: terminated, cleaning up' % prog, flush=True)
        sys.exit(143)
    signal.signal(signal.SIGTERM, on_sigterm)
    return None


def parse_variants(parser, opts, known):
    """opts.variants (comma-separated) as a list without repeats, each one
    of KNOWN."""
    variants = []
    for v in opts.variants.split(','):
        if v and v not in variants:
            variants.append(v)
    for v in variants:
        if v not in known:
            parser.error('unknown variant %s (known: %s)'
                         % (v, ', '.join(known)))
    opts.variants = variants


def run_rounds(prog, opts, results, start, measure_variant, stop):
    """Sets up the topology, calls START(), then MEASURE_VARIANT(name, rep)
    for each repetition of each variant of opts.variants, round robin, so
    that background load that comes and goes (this is a shared machine)
    weighs on every variant alike; a variant whose RESULTS entry is not a
    list (an error string) is not run again.  STOP() and the teardown of
    the topology run whatever happens.  Returns None, with the load
    averages before and after in opts.load_before and opts.load_after and
    the start time in opts.started, or the exit status of a failed run."""
    say('CPU use by other work on this machine, before we start: %s'
        % other_load())
    opts.load_before = loadavg()
    opts.started = time.monotonic()
    try:
        setup_topology()
        start()
        for rep in range(opts.reps):
            for name in opts.variants:
                if isinstance(results.get(name, []), list):
                    measure_variant(name, rep)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print('%s: interrupted, cleaning up' % prog, flush=True)
        return 130
    except BenchError as e:
        print('%s: %s' % (prog, e))
        return 1
    finally:
        stop()
        teardown_topology()
    opts.load_after = loadavg()
    return None
