#! /usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Include cycles among our modules: part of "make check-style".

Usage: afxdp-check-includes.py [--graph] SRCDIR

Reads lib/*.[ch] and bpf/*.[ch] under SRCDIR (only our files: a header
that is not there, OVS's or the system's, is not followed) and fails, naming
them, if any headers include each other in a cycle, or any modules depend
on each other in a cycle.  --graph prints the module graph too.

Modules.  A file belongs to the module its name gives: lib/X.c, lib/X.h and
lib/X-private.h are module X; a .c file with no header of its own belongs
to the longest leading part of its name that has one (lib/afxdp-offload-
dpif.c is module afxdp-offload), else to its own name (lib/afxdp-rxtx.c).
Module A depends on module B when:
  - a file of A includes a header of B, except where a .c file includes a
    header that declares a function the .c file defines: it implements
    that header (lib/afxdp-rxtx.c implements part of lib/netdev-afxdp.h),
    which the next rule covers;
  - a header of A declares a function that a .c file of B defines: A's
    users call into B.
So a .c file that includes a header of a module that includes the .c
file's own header is a cycle, and so is a header that declares a function
of another module that includes it.

Declarations and definitions are found by OVS's coding style (a function
definition's name starts its line), which checkpatch.py enforces; BPF C
(bpf/) takes part in the header graph only.
"""

import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT_RE = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
DEFINITION_RE = re.compile(r'^([A-Za-z_]\w*)\s*\(', re.M)
IDENT_RE = re.compile(r'[A-Za-z_]\w*')


def strip_comments(text):
    return COMMENT_RE.sub(' ', text)


def declarations(text):
    """Names of the functions declared, not defined, at the top level of
    header 'text'."""
    text = strip_comments(text)
    text = re.sub(r'^\s*#.*?(?<!\\)$', ' ', text, flags=re.M | re.S)
    names = set()
    depth = 0
    stmt = ''
    for c in text:
        if c == '{':
            depth += 1
            stmt = ''
        elif c == '}':
            depth -= 1
            stmt = ''
        elif depth == 0:
            if c == ';':
                s = ' '.join(stmt.split())
                m = re.match(r'(?:extern\s+)?[A-Za-z_][\w\s\*]*?\b'
                             r'([A-Za-z_]\w*)\s*\(', s)
                if (m and not s.startswith(('typedef', 'struct {'))
                        and '=' not in s.split('(')[0]):
                    names.add(m.group(1))
                stmt = ''
            else:
                stmt += c
    return names


def provided(text):
    """Names that header 'text' gives its includers: functions, macros
    (less its guard), struct, union and enum tags it defines, enum
    constants and typedefs."""
    text = strip_comments(text)
    names = declarations(text)
    names |= set(re.findall(r'^\s*#\s*define\s+(\w+)', text, re.M))
    names -= set(re.findall(r'^\s*#\s*ifndef\s+(\w+)', text, re.M))
    names |= set(re.findall(r'\b(?:struct|union|enum)\s+(\w+)\s*\{', text))
    names |= set(re.findall(r'\btypedef\b[^;]*?(\w+)\s*;', text))
    names |= set(re.findall(r'\b(?:static\s+)?inline\b[^;{(]*?\b(\w+)\s*\(',
                            text))
    for body in re.findall(r'\benum\b[^;{]*\{([^}]*)\}', text):
        names |= set(re.findall(r'(?:^|,)\s*([A-Za-z_]\w*)', body))
    return names


def definitions(text):
    return set(DEFINITION_RE.findall(strip_comments(text)))


def main(argv):
    graph = '--graph' in argv
    args = [a for a in argv if a != '--graph']
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    srcdir = args[0]

    files = {}
    for d in ('lib', 'bpf'):
        for name in sorted(os.listdir(os.path.join(srcdir, d))):
            if (name.endswith(('.c', '.h')) and not name.endswith('.skel.h')
                    and not name.startswith('.')):
                with open(os.path.join(srcdir, d, name)) as f:
                    files['%s/%s' % (d, name)] = f.read()

    def resolve(inc, frm):
        for cand in (os.path.join(os.path.dirname(frm), inc), inc):
            if cand in files:
                return cand
        return None

    includes = {f: [r for r in (resolve(i, f)
                                for i in INCLUDE_RE.findall(t)) if r]
                for f, t in files.items()}

    def stem(f):
        base = os.path.basename(f)
        for suffix in ('.bpf.c', '.bpf.h', '.c', '.h'):
            if base.endswith(suffix):
                base = base[:-len(suffix)]
                break
        if base.endswith('-private'):
            base = base[:-len('-private')]
        return '%s/%s' % (os.path.dirname(f), base)

    header_stems = {stem(f) for f in files if f.endswith('.h')}

    def module(f):
        s = stem(f)
        parts = s.split('-')
        for n in range(len(parts), 0, -1):
            cand = '-'.join(parts[:n])
            if cand in header_stems:
                return cand
        return s

    status = 0

    # Headers including each other (through any number of headers).
    hdr_edges = {f: {i for i in inc if i.endswith('.h')}
                 for f, inc in includes.items() if f.endswith('.h')}
    for cycle in cycles(hdr_edges):
        print('header include cycle: %s' % ' -> '.join(cycle + cycle[:1]))
        status = 1

    # Modules depending on each other.
    declared = {}
    for f, t in files.items():
        if f.startswith('lib/') and f.endswith('.h'):
            for name in declarations(t):
                declared.setdefault(name, set()).add(f)
    defined = {}
    for f, t in files.items():
        if f.startswith('lib/') and f.endswith('.c'):
            for name in definitions(t):
                if name in declared:
                    defined.setdefault(f, set()).add(name)

    why = {}

    def edge(a, b, reason):
        if a != b:
            why.setdefault(a, {}).setdefault(b, reason)

    tokens = {f: set(IDENT_RE.findall(strip_comments(t)))
              for f, t in files.items()}
    for f, inc in includes.items():
        for h in inc:
            # What 'f' takes from 'h', other than prototypes of its own
            # functions.
            used = (tokens[f] & provided(files[h])) - defined.get(f, set())
            if f.endswith('.h') or used or not provided(files[h]):
                edge(module(f), module(h), '%s includes %s (%s)'
                     % (f, h, ', '.join(sorted(used)[:3]) or 'all'))
    for f, names in defined.items():
        for name in sorted(names):
            for h in declared[name]:
                edge(module(h), module(f),
                     '%s declares %s(), defined in %s' % (h, name, f))

    mod_edges = {a: set(bs) for a, bs in why.items()}
    for cycle in cycles(mod_edges):
        print('module dependency cycle: %s'
              % ' -> '.join(cycle + cycle[:1]))
        members = components(mod_edges)[cycle[0]]
        for a in sorted(members):
            for b in sorted(mod_edges.get(a, ()) & members):
                print('    %s -> %s: %s' % (a, b, why[a][b]))
        status = 1

    if graph:
        for a in sorted(why):
            for b in sorted(why[a]):
                print('%s -> %s  (%s)' % (a, b, why[a][b]))
    return status


def components(edges):
    """Maps each node of a cycle in graph 'edges' to its strongly connected
    component."""
    comp = {}
    for cycle in cycles(edges):
        reach = set(cycle)
        changed = True
        while changed:
            changed = False
            for v in list(edges):
                if v not in reach and edges[v] & reach and \
                        reaches(edges, cycle[0], v):
                    reach.add(v)
                    changed = True
        for v in reach:
            comp[v] = reach
    return comp


def reaches(edges, a, b):
    seen, todo = {a}, [a]
    while todo:
        v = todo.pop()
        if v == b:
            return True
        for w in edges.get(v, ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return False


def cycles(edges):
    """One cycle (a list of nodes) for each strongly connected component of
    more than one node of the graph 'edges' (node -> set of nodes)."""
    index, low, stack, on_stack, sccs = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                sccs.append(set(scc))

    for v in sorted(edges):
        if v not in index:
            visit(v)

    result = []
    for scc in sccs:
        # A shortest cycle through the component's first node.
        start = min(scc)
        prev = {start: None}
        queue = [start]
        found = None
        while queue and not found:
            v = queue.pop(0)
            for w in sorted(edges.get(v, ())):
                if w == start:
                    found = v
                    break
                if w in scc and w not in prev:
                    prev[w] = v
                    queue.append(w)
        path = []
        while found is not None:
            path.append(found)
            found = prev[found]
        result.append(path[::-1])
    return result


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
