#! /usr/bin/python3
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

"""Finds address ranges unmapped twice in an strace log.

  afxdp-strace-unmap.py TRACE

TRACE is the output of 'strace -f -o TRACE -e trace=mmap,munmap,mremap'
on a process.  A munmap() that covers a page already unmapped by an
earlier munmap(), with no mmap() or mremap() mapping it again in between,
unmaps twice: the second call succeeds all the same and takes away
whatever another thread mapped there in the meantime.

Prints one line per such call and exits 1 if there is any; otherwise prints
how many calls it read and exits 0.  Exits 2 if the trace has no mmap()
with MAP_SHARED of a socket or no munmap() at all (a trace that saw
nothing proves nothing).
"""

import re
import sys

PAGE = 4096

# "PID name(args) = result", after joining unfinished and resumed lines.
CALL = re.compile(r'^(\d+)\s+(mmap|munmap|mremap)\((.*)\)\s+=\s+(\S+)')
UNFINISHED = re.compile(r'^(\d+)\s+(.*) <unfinished \.\.\.>$')
RESUMED = re.compile(r'^(\d+)\s+<\.\.\. (\w+) resumed>(.*)$')


def pages(addr, length):
    first = addr // PAGE
    last = (addr + length + PAGE - 1) // PAGE
    return range(first, last)


def calls(lines):
    """Yields (lineno, pid, name, args, result) for each complete call."""
    pending = {}
    for lineno, line in enumerate(lines, 1):
        line = line.rstrip('\n')
        m = UNFINISHED.match(line)
        if m:
            pending[m.group(1)] = (lineno, m.group(2))
            continue
        m = RESUMED.match(line)
        if m:
            start = pending.pop(m.group(1), None)
            if start is None:
                continue
            lineno, head = start[0], start[1]
            line = '%s %s%s' % (m.group(1), head, m.group(3))
        m = CALL.match(line)
        if m:
            args = [a.strip() for a in m.group(3).split(',')]
            yield lineno, m.group(1), m.group(2), args, m.group(4)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write('usage: %s TRACE\n' % sys.argv[0])
        sys.exit(2)
    with open(sys.argv[1]) as f:
        lines = f.readlines()

    unmapped = {}           # Page -> line of the munmap() that freed it.
    n_calls = n_munmap = n_shared = 0
    twice = []
    for lineno, pid, name, args, result in calls(lines):
        n_calls += 1
        if name == 'mmap':
            if not result.startswith('0x'):
                continue
            if 'MAP_SHARED' in args[3] and args[4] != '-1':
                n_shared += 1
            for p in pages(int(result, 16), int(args[1], 0)):
                unmapped.pop(p, None)
        elif name == 'mremap':
            if not result.startswith('0x'):
                continue
            for p in pages(int(args[0], 16), int(args[1], 0)):
                unmapped[p] = lineno
            for p in pages(int(result, 16), int(args[2], 0)):
                unmapped.pop(p, None)
        elif result == '0':
            n_munmap += 1
            addr, length = int(args[0], 16), int(args[1], 0)
            again = sorted({unmapped[p] for p in pages(addr, length)
                            if p in unmapped})
            if again:
                twice.append('line %d: thread %s: munmap(%#x, %d) unmaps '
                             'again what line(s) %s unmapped'
                             % (lineno, pid, addr, length,
                                ', '.join(map(str, again))))
            for p in pages(addr, length):
                unmapped[p] = lineno

    for t in twice:
        print(t)
    if twice:
        sys.exit(1)
    if not n_shared or not n_munmap:
        print('%d calls, %d shared mappings of a file or socket, %d munmap: '
              'the trace saw nothing' % (n_calls, n_shared, n_munmap))
        sys.exit(2)
    print('%d calls, %d munmap, no range unmapped twice'
          % (n_calls, n_munmap))


if __name__ == '__main__':
    main()
