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

"""Bounded-time traffic for the ovs-afxdp system tests and sandbox.

  tcp-server --port P --out FILE [--ready FILE] [--timeout S]
      Accepts one TCP connection, writes what it receives to FILE, prints
      the byte count.  Creates the --ready file once it listens, with the
      port in it (--port 0: one the kernel chose).

  tcp-client --host H --port P --in FILE [--timeout S]
             [--until FILE --gap MS] [--chunk BYTES --gap MS]
      Connects (retrying until the timeout), sends FILE, closes, prints the
      byte count and the throughput.  With --until, sends FILE again and
      again, in 64 kB writes MS milliseconds apart, until the --until file
      exists (checked between whole copies), so that traffic runs for as
      long as a test needs; the bytes received are then whole copies.
      With --chunk, sends FILE once in writes of BYTES, MS milliseconds
      apart, with TCP_NODELAY: a sender with TSO then hands its device one
      packet per write (a GSO packet of a few segments where BYTES is a
      few MSS).

  udp-recv --port P [--ready FILE] [--duration S] [--idle S] [--check]
      Counts UDP datagrams until --duration seconds passed or nothing came
      for --idle seconds after the first one; prints "received N datagrams
      from F flows".  With --check, also checks each payload against what
      udp-send puts in it and prints "corrupted N" (datagrams whose payload
      differs).  The --ready file holds the port, as for tcp-server.

  udp-send --host H --port P [--count N] [--flows F] [--sport S0]
           [--size B] [--rate PPS] [--duration S]
      Sends N datagrams (or, with --duration, as many as fit in S seconds)
      of B bytes of payload, round-robin from F source ports (F flows, so
      that RSS spreads them over queues), at most PPS per second (0: as
      fast as possible).  The source ports are S0, S0 + 1, ..., S0 + F - 1
      with --sport (so that OpenFlow rules can name each flow), otherwise
      ports the kernel chooses.  Prints the number sent.  A payload of 8 bytes or
      more starts with the datagram's sequence number (64 bits, network
      order), followed by bytes that count up from that number (mod 256),
      so that a byte changed, or a payload swapped with another, shows.

Every command gives up after its timeout and exits nonzero then.  Plain
Python 3, no scapy needed.
"""

import argparse
import errno
import os
import resource
import socket
import struct
import sys
import time

_SEQ = struct.Struct("!Q")
# SO_RCVBUFFORCE (<asm-generic/socket.h>), which Python names only on
# some builds.
_SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)


class _Payloads:
    """The payloads of udp-send: see the module's documentation."""

    def __init__(self, size):
        self.size = size
        body = max(size - _SEQ.size, 0)
        self.bodies = [bytes((k + i) & 0xFF for i in range(body))
                       for k in range(256)]

    def make(self, seq):
        if self.size < _SEQ.size:
            return bytes(i & 0xFF for i in range(self.size))
        return _SEQ.pack(seq) + self.bodies[seq & 0xFF]

    @staticmethod
    def intact(data):
        if len(data) < _SEQ.size:
            return data == bytes(i & 0xFF for i in range(len(data)))
        seq = _SEQ.unpack_from(data)[0]
        rest = data[_SEQ.size:]
        return all(b == (seq + i) & 0xFF for i, b in enumerate(rest))


def _family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _ready(path, sock):
    """Creates 'path' (if any) holding the port 'sock' is bound to: with
    --port 0 the kernel chose a free one."""
    if path:
        with open(path, "w") as f:
            f.write("%d\n" % sock.getsockname()[1])


def cmd_tcp_server(args):
    srv = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    srv.bind(("::", args.port))
    srv.listen(1)
    srv.settimeout(args.timeout)
    _ready(args.ready, srv)
    deadline = time.monotonic() + args.timeout
    try:
        conn, peer = srv.accept()
    except socket.timeout:
        sys.stderr.write("tcp-server: no connection within %ds\n"
                         % args.timeout)
        return 1
    total = 0
    with open(args.out, "wb") as out:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                sys.stderr.write("tcp-server: timeout after %d bytes\n"
                                 % total)
                return 1
            conn.settimeout(left)
            try:
                data = conn.recv(1 << 16)
            except socket.timeout:
                continue
            if not data:
                break
            out.write(data)
            total += len(data)
    conn.close()
    print("received %d bytes" % total)
    return 0


def cmd_tcp_client(args):
    with open(args.infile, "rb") as f:
        data = f.read()
    deadline = time.monotonic() + args.timeout
    while True:
        sock = socket.socket(_family(args.host), socket.SOCK_STREAM)
        sock.settimeout(max(deadline - time.monotonic(), 0.1))
        try:
            sock.connect((args.host, args.port))
            break
        except OSError as e:
            sock.close()
            if time.monotonic() >= deadline:
                sys.stderr.write("tcp-client: cannot connect: %s\n" % e)
                return 1
            time.sleep(0.2)
    start = time.monotonic()
    sent = 0
    try:
        while True:
            if args.chunk:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                for i in range(0, len(data), args.chunk):
                    sock.sendall(data[i:i + args.chunk])
                    time.sleep(args.gap / 1000.0)
            elif args.until:
                for i in range(0, len(data), 1 << 16):
                    sock.sendall(data[i:i + (1 << 16)])
                    time.sleep(args.gap / 1000.0)
            else:
                sock.sendall(data)
            sent += len(data)
            if (not args.until or os.path.exists(args.until)
                    or time.monotonic() >= deadline):
                break
        sock.shutdown(socket.SHUT_WR)
        # Wait for the server to close, so that "sent" means "received".
        while sock.recv(4096):
            pass
    except OSError as e:
        sys.stderr.write("tcp-client: %s\n" % e)
        return 1
    elapsed = max(time.monotonic() - start, 1e-6)
    sock.close()
    print("sent %d bytes in %.2f s (%.1f Mbit/s)"
          % (sent, elapsed, sent * 8 / elapsed / 1e6))
    return 0


def cmd_udp_recv(args):
    sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    # 4 MB, also past net.core.rmem_max where allowed (root): a receiver
    # descheduled for a while on a busy machine must not drop datagrams,
    # jumbo ones (20 of them fill rmem_max's default) least of all.
    try:
        sock.setsockopt(socket.SOL_SOCKET, _SO_RCVBUFFORCE, 4 << 20)
    except PermissionError:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.bind(("::", args.port))
    _ready(args.ready, sock)
    deadline = time.monotonic() + args.duration
    count = 0
    corrupted = 0
    flows = set()
    while True:
        now = time.monotonic()
        if now >= deadline:
            break
        sock.settimeout(min(deadline - now, args.idle) if count
                        else deadline - now)
        try:
            data, peer = sock.recvfrom(65536)
        except socket.timeout:
            if count:
                break
            continue
        count += 1
        flows.add(peer[:2])
        if args.check and not _Payloads.intact(data):
            corrupted += 1
    print("received %d datagrams from %d flows" % (count, len(flows)))
    if args.check:
        print("corrupted %d" % corrupted)
    return 0


def cmd_udp_send(args):
    # A socket per flow: thousands of flows need more descriptors than
    # the usual soft limit (1024).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if args.flows + 64 > soft and soft != resource.RLIM_INFINITY:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    socks = []
    for i in range(args.flows):
        s = socket.socket(_family(args.host), socket.SOCK_DGRAM)
        s.bind(("", args.sport + i if args.sport else 0))
        socks.append(s)
    payloads = _Payloads(args.size)
    dst = (args.host, args.port)
    start = time.monotonic()
    end = start + args.duration if args.duration else None
    sent = 0
    i = 0
    while end is not None or sent < args.count:
        now = time.monotonic()
        if end is not None and now >= end:
            break
        if args.rate:
            ahead = sent / args.rate - (now - start)
            if ahead > 0:
                time.sleep(ahead)
        try:
            socks[i % len(socks)].sendto(payloads.make(sent), dst)
            sent += 1
        except OSError as e:
            if e.errno not in (errno.ENOBUFS, errno.EAGAIN,
                               errno.ECONNREFUSED):
                raise
        i += 1
        if end is None and time.monotonic() - start > args.timeout:
            sys.stderr.write("udp-send: timeout\n")
            return 1
    print("sent %d datagrams from %d flows" % (sent, len(socks)))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("tcp-server")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ready")
    p.add_argument("--timeout", type=float, default=60)
    p.set_defaults(func=cmd_tcp_server)

    p = sub.add_parser("tcp-client")
    p.add_argument("--host", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--in", dest="infile", required=True)
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--until")
    p.add_argument("--gap", type=float, default=10)
    p.add_argument("--chunk", type=int, default=0)
    p.set_defaults(func=cmd_tcp_client)

    p = sub.add_parser("udp-recv")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ready")
    p.add_argument("--duration", type=float, default=30)
    p.add_argument("--idle", type=float, default=2)
    p.add_argument("--check", action="store_true")
    p.set_defaults(func=cmd_udp_recv)

    p = sub.add_parser("udp-send")
    p.add_argument("--host", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--flows", type=int, default=1)
    p.add_argument("--sport", type=int, default=0)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--rate", type=float, default=0)
    p.add_argument("--duration", type=float, default=0)
    p.add_argument("--timeout", type=float, default=60)
    p.set_defaults(func=cmd_udp_send)

    args = parser.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
