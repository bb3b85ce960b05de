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

"""Crafted Ethernet frames for the ovs-afxdp system tests.

  gen --src MAC --dst MAC [--mtu N] OUT.pcap
      Writes a set of test frames: every size from the 60-byte minimum to
      MTU + 14 (+ 4 when VLAN tagged) in steps, IPv4/UDP, IPv6/UDP, a local
      experimental EtherType, 802.1Q tagged, broadcast and multicast.
      Each frame carries a marker and its index in its payload.

  gen-actions --src MAC --dst MAC OUT.pcap
      Writes frames for the flow offload tests: for each UDP destination
      port 1001 to 1012, 8 IPv4/UDP frames of different sizes (60 to 1000
      bytes), 802.1Q tagged with VID 200 for port 1003 and VID 300 for
      port 1004, untagged otherwise; for ports 1013 and 1014, 8 IPv6/UDP
      frames (80 to 1200 bytes); marker and index in the payload.

  send --iface IFACE [--gap SECONDS] IN.pcap
      Sends the frames of IN.pcap on IFACE, in order, through a raw socket.

  compare SENT.pcap RECEIVED.pcap
      Checks that every frame of SENT.pcap appears in RECEIVED.pcap exactly
      once and byte for byte.  Received frames without the marker (the
      receiving host's own traffic) are ignored.  Prints a summary line and
      one line per problem; exits 0 when all frames arrived intact, 1 if not.

  malformed --src MAC --dst MAC [--oversize N] OUT.pcap
      Writes frames that are short or lie about their headers: an Ethernet
      header alone (14 bytes, the least the kernel sends), 15 to 59 bytes,
      IPv4, IPv6, 802.1Q, 802.1ad, ARP and TCP headers cut short, IPv4
      headers whose length fields claim more than there is.  They carry no
      marker.  With --oversize N, a single frame of N bytes instead.

  compare-exact SENT.pcap RECEIVED.pcap
      Like 'compare' for frames without a marker: each frame of SENT.pcap
      must appear in RECEIVED.pcap exactly as many times as in SENT.pcap.

  pseudo-equal --src MAC --dst MAC --from ADDR --to ADDR --port N
               [--count N] [--size N] OUT.pcap
      Writes 'count' (default 16) UDP datagrams (IPv4, or IPv6 when the
      addresses are) from ADDR to ADDR:N, each of 'size' payload bytes
      (default 200, a different pattern in each), whose checksum is
      complete and valid and yet equal to the folded sum of the
      pseudo-header alone, the value a sender that leaves the sum to
      offload puts there: the source port is chosen to make it so (one in
      65535 is).  Each checksum is checked against scapy's own.

  corrupt IN.pcap OUT.pcap
      Copies IN.pcap, flipping the last byte of frame 1, dropping frame 2
      and sending frame 3 twice (used by the unit tests to show that
      'compare' catches each).

Needs scapy (Debian's python3-scapy); run it with /usr/bin/python3.
"""

import argparse
import struct
import sys
import time

MARKER = b"AFXDP-TC"
ETHERTYPE_LOCAL = 0x88B5        # IEEE 802 "local experimental" EtherType.
BROADCAST = "ff:ff:ff:ff:ff:ff"
MULTICAST = "01:00:5e:01:02:03"


def _scapy():
    """Imports the scapy pieces we need (delayed: 'corrupt' and argument
    errors do not need them, and the import costs a fraction of a second)."""
    try:
        from scapy.layers.inet import IP, UDP
        from scapy.layers.inet6 import IPv6
        from scapy.layers.l2 import Dot1Q, Ether
        from scapy.packet import Raw
        from scapy.utils import rdpcap, wrpcap
    except ImportError as e:
        sys.stderr.write("afxdp-frames: scapy is not available (%s); "
                         "install python3-scapy\n" % e)
        sys.exit(77)
    return Ether, Dot1Q, IP, IPv6, UDP, Raw, rdpcap, wrpcap


def _payload(index, length):
    """Marker, 4-byte big-endian index, then a byte pattern that depends on
    the index, 'length' bytes in all (at least the marker and index)."""
    head = MARKER + struct.pack("!I", index)
    fill = bytes((index * 7 + i) & 0xFF for i in range(length - len(head)))
    return head + fill


def _sized(header, index, size):
    """Completes the scapy 'header' with a payload so that the frame is
    exactly 'size' bytes long, or returns None if that is too short."""
    room = size - len(bytes(header))
    if room < len(MARKER) + 4:
        return None
    return header / _payload(index, room)


def gen_frames(src, dst, mtu):
    """Returns the list of (description, frame bytes) of the test set."""
    Ether, Dot1Q, IP, IPv6, UDP, Raw, _, _ = _scapy()
    max_untagged = mtu + 14
    max_tagged = mtu + 18
    sizes = sorted(set([60, 61, 63, 64, 65, 100, 127, 128, 129, 255, 256,
                        511, 512, 513, 1000, 1023, 1024, 1280, 1400,
                        max_untagged - 1, max_untagged]))
    sizes = [s for s in sizes if s <= max_untagged]
    specs = []

    def ipv4(d=dst):
        return (Ether(src=src, dst=d) / IP(src="10.1.1.1", dst="10.1.1.2")
                / UDP(sport=4000, dport=4001))

    def ipv6():
        return (Ether(src=src, dst=dst)
                / IPv6(src="fc00::1", dst="fc00::2")
                / UDP(sport=4000, dport=4001))

    def local(d=dst):
        return Ether(src=src, dst=d, type=ETHERTYPE_LOCAL)

    def tagged(vid, prio):
        return (Ether(src=src, dst=dst) / Dot1Q(vlan=vid, prio=prio)
                / IP(src="10.1.1.1", dst="10.1.1.2")
                / UDP(sport=4000, dport=4001))

    for size in sizes:
        specs.append(("ipv4/udp %d" % size, ipv4, size))
    for size in (78, 128, 1024, max_untagged):
        specs.append(("ipv6/udp %d" % size, ipv6, size))
    for size in (60, 300, max_untagged):
        specs.append(("ethertype 0x88b5 %d" % size, local, size))
    for size in (64, 65, 128, 1000, max_tagged - 1, max_tagged):
        specs.append(("802.1q vid 10 %d" % size,
                      lambda: tagged(10, 5), size))
    specs.append(("802.1q vid 4094 %d" % 200, lambda: tagged(4094, 0), 200))
    for size in (60, 342, max_untagged):
        specs.append(("broadcast %d" % size, lambda: local(BROADCAST), size))
        specs.append(("broadcast ipv4/udp %d" % size,
                      lambda: (Ether(src=src, dst=BROADCAST)
                               / IP(src="10.1.1.1", dst="255.255.255.255")
                               / UDP(sport=4000, dport=4001)), size))
    specs.append(("multicast 128", lambda: local(MULTICAST), 128))

    frames = []
    for index, (desc, build, size) in enumerate(specs):
        pkt = _sized(build(), index, size)
        if pkt is None:
            continue
        data = bytes(pkt)
        assert len(data) == size, (desc, len(data))
        frames.append((desc, data))
    return frames


def gen_action_frames(src, dst):
    """Returns the list of (description, frame bytes) of the offload test
    set (see gen-actions)."""
    Ether, Dot1Q, IP, IPv6, UDP, _, _, _ = _scapy()
    tags = {1003: 200, 1004: 300}
    sizes = (60, 64, 100, 128, 300, 512, 777, 1000)
    sizes6 = (80, 100, 128, 300, 512, 777, 1000, 1200)
    frames = []
    for port in range(1001, 1015):
        v6 = port >= 1013
        for size in sizes6 if v6 else sizes:
            index = len(frames)
            hdr = Ether(src=src, dst=dst)
            if port in tags:
                hdr = hdr / Dot1Q(vlan=tags[port], prio=2)
            if v6:
                hdr = hdr / IPv6(src="fc00::1", dst="fc00::2", hlim=64, tc=8)
            else:
                hdr = hdr / IP(src="10.1.1.1", dst="10.1.1.2", ttl=64, tos=8)
            hdr = hdr / UDP(sport=5000 + index, dport=port)
            data = bytes(_sized(hdr, index, size))
            assert len(data) == size, (port, size, len(data))
            frames.append(("udp %d, %d bytes" % (port, size), data))
    return frames


def cmd_gen_actions(args):
    Ether, _, _, _, _, _, _, wrpcap = _scapy()
    frames = gen_action_frames(args.src, args.dst)
    wrpcap(args.out, [Ether(data) for _, data in frames])
    print("%d frames written to %s" % (len(frames), args.out))
    return 0


def cmd_gen(args):
    Ether, _, _, _, _, _, _, wrpcap = _scapy()
    frames = gen_frames(args.src, args.dst, args.mtu)
    wrpcap(args.out, [Ether(data) for _, data in frames])
    print("%d frames, %d to %d bytes, written to %s"
          % (len(frames), min(len(d) for _, d in frames),
             max(len(d) for _, d in frames), args.out))
    return 0


def _read(path):
    """Returns the frames of pcap 'path' as a list of bytes."""
    _, _, _, _, _, _, rdpcap, _ = _scapy()
    return [bytes(p) for p in rdpcap(path)]


def cmd_send(args):
    import socket
    frames = _read(args.pcap)
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((args.iface, 0))
    for data in frames:
        sock.send(data)
        if args.gap:
            time.sleep(args.gap)
    sock.close()
    print("sent %d frames on %s" % (len(frames), args.iface))
    return 0


def _index_of(data):
    """Index carried by a frame of ours, or None for a foreign frame."""
    pos = data.find(MARKER)
    if pos < 0 or pos + len(MARKER) + 4 > len(data):
        return None
    return struct.unpack("!I", data[pos + len(MARKER):
                                   pos + len(MARKER) + 4])[0]


def compare(sent, received):
    """Compares lists of frames.  Returns the number of sent frames received
    exactly once and intact, and a list of problem strings."""
    problems = []
    intact = 0
    by_index = {}
    for data in sent:
        by_index[_index_of(data)] = data
    seen = {}
    for data in received:
        index = _index_of(data)
        if index is None:
            continue
        seen.setdefault(index, []).append(data)
    for index, want in sorted(by_index.items()):
        got = seen.get(index, [])
        if not got:
            problems.append("frame %d (%d bytes): missing" % (index,
                                                             len(want)))
            continue
        if len(got) == 1 and got[0] == want:
            intact += 1
            continue
        if len(got) > 1:
            problems.append("frame %d: received %d times" % (index,
                                                            len(got)))
        for data in got:
            if data == want:
                continue
            if len(data) != len(want):
                problems.append("frame %d: %d bytes sent, %d received"
                                % (index, len(want), len(data)))
            else:
                off = next(i for i in range(len(data))
                           if data[i] != want[i])
                problems.append("frame %d (%d bytes): differs at offset %d"
                                " (sent %02x, received %02x)"
                                % (index, len(want), off, want[off],
                                   data[off]))
    for index in sorted(set(seen) - set(by_index)):
        problems.append("frame %d: received but never sent" % index)
    return intact, problems


def cmd_compare(args):
    sent = _read(args.sent)
    received = _read(args.received)
    intact, problems = compare(sent, received)
    print("%d frames sent, %d received intact" % (len(sent), intact))
    for p in problems:
        print(p)
    return 1 if problems else 0


def cmd_malformed(args):
    Ether, _, IP, _, _, _, _, wrpcap = _scapy()
    from scapy.layers.inet import TCP

    def eth(ethertype):
        return bytes(Ether(dst=args.dst, src=args.src, type=ethertype))

    if args.oversize:
        frames = [eth(ETHERTYPE_LOCAL) + bytes(args.oversize - 14)]
    else:
        tcp = bytes(Ether(dst=args.dst, src=args.src) / IP(dst="10.1.1.2")
                    / TCP(dataofs=15))
        frames = [eth(ETHERTYPE_LOCAL)]
        frames += [eth(ETHERTYPE_LOCAL) + bytes(range(n)) for n in (1, 16, 45)]
        frames += [
            eth(0x0800) + b"\x45\x00\x00",                 # IPv4, 3 bytes.
            eth(0x0800) + bytes(IP(dst="10.1.1.2", ihl=15))[:20],
            eth(0x0800) + bytes(IP(dst="10.1.1.2", len=1000)),
            eth(0x86DD) + b"\x60" + bytes(19),               # IPv6, 20 bytes.
            eth(0x8100) + b"\x00\x05",                      # 802.1Q, 2 bytes.
            eth(0x88A8) + b"\x00\x05\x81\x00\x00",          # 802.1ad.
            eth(0x0806) + bytes(8),                         # ARP, 8 bytes.
            tcp[:54],                                       # TCP, 20 bytes.
        ]
    wrpcap(args.out, [Ether(f) for f in frames])
    print("%d frames of %d to %d bytes" % (len(frames), min(map(len, frames)),
                                           max(map(len, frames))))
    return 0


def cmd_compare_exact(args):
    sent = _read(args.sent)
    received = _read(args.received)
    problems = []
    for i, frame in enumerate(sent):
        want, got = sent.count(frame), received.count(frame)
        if want != got:
            problems.append("frame %d (%d bytes): received %d times, sent %d"
                            % (i, len(frame), got, want))
    print("%d frames sent, %d received as sent"
          % (len(sent), len(sent) - len(problems)))
    for p in problems:
        print(p)
    return 1 if problems else 0


def _sum16(data):
    """The ones' complement sum of 'data' in 16-bit big-endian words (an
    odd last byte padded with zero), folded to 16 bits, 0 for nothing."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def _pseudo_equal(ip_layer, ip_src, ip_dst, dport, payload):
    """Returns the UDP datagram (scapy layer) from 'ip_src' to
    'ip_dst':'dport' with 'payload' whose valid checksum equals the folded
    pseudo-header sum (see 'pseudo-equal'), or None if no source port
    gives one."""
    import socket
    from scapy.layers.inet import UDP

    family = socket.AF_INET6 if ":" in ip_src else socket.AF_INET
    length = 8 + len(payload)
    src = socket.inet_pton(family, ip_src)
    dst = socket.inet_pton(family, ip_dst)
    pseudo = _sum16(src + dst + struct.pack("!HH", 17, length))
    # The checksum field C = pseudo makes the datagram valid when the
    # ones' complement sum of pseudo-header, header and payload is 0xffff
    # (negative zero): pseudo + sport + dport + length + C + payload.
    rest = _sum16(struct.pack("!HHHH", pseudo, dport, length, pseudo)
                  + payload)
    sport = 0xFFFF - rest          # sport + rest = 0xffff.
    if sport == 0:
        sport = 0xFFFF             # 0 and 0xffff are the same sum.
    udp = UDP(sport=sport, dport=dport, len=length, chksum=pseudo)
    # Cross-check with scapy: the checksum it computes itself.
    mine = bytes(ip_layer / udp / payload)
    theirs = bytes(ip_layer / UDP(sport=sport, dport=dport) / payload)
    if mine != theirs or pseudo == 0:
        return None
    return udp


def cmd_pseudo_equal(args):
    Ether, _, IP, IPv6, _, Raw, _, wrpcap = _scapy()
    ip = (IPv6(src=args.ip_from, dst=args.ip_to) if ":" in args.ip_from
          else IP(src=args.ip_from, dst=args.ip_to))
    frames = []
    for i in range(args.count):
        payload = bytes((i * 13 + k) & 0xFF for k in range(args.size))
        udp = _pseudo_equal(ip, args.ip_from, args.ip_to, args.port, payload)
        if udp is None:
            sys.stderr.write("afxdp-frames: no source port gives datagram "
                             "%d a checksum equal to its pseudo-header "
                             "sum\n" % i)
            return 1
        frames.append(Ether(src=args.src, dst=args.dst) / ip / udp
                      / Raw(payload))
    wrpcap(args.out, frames)
    print("%d UDP datagrams of %d bytes, checksum equal to the "
          "pseudo-header sum" % (len(frames), args.size))
    return 0


def cmd_corrupt(args):
    Ether, _, _, _, _, _, _, wrpcap = _scapy()
    frames = _read(args.pcap)
    if len(frames) < 4:
        sys.stderr.write("need at least 4 frames\n")
        return 1
    victim = bytearray(frames[1])
    victim[-1] ^= 0xFF
    out = [frames[0], bytes(victim), frames[3]] + frames[3:]
    wrpcap(args.out, [Ether(d) for d in out])
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("gen")
    p.add_argument("--src", required=True)
    p.add_argument("--dst", required=True)
    p.add_argument("--mtu", type=int, default=1500)
    p.add_argument("out")
    p.set_defaults(func=cmd_gen)

    p = sub.add_parser("gen-actions")
    p.add_argument("--src", required=True)
    p.add_argument("--dst", required=True)
    p.add_argument("out")
    p.set_defaults(func=cmd_gen_actions)

    p = sub.add_parser("send")
    p.add_argument("--iface", required=True)
    p.add_argument("--gap", type=float, default=0.002)
    p.add_argument("pcap")
    p.set_defaults(func=cmd_send)

    p = sub.add_parser("compare")
    p.add_argument("sent")
    p.add_argument("received")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("malformed")
    p.add_argument("--src", required=True)
    p.add_argument("--dst", required=True)
    p.add_argument("--oversize", type=int, default=0)
    p.add_argument("out")
    p.set_defaults(func=cmd_malformed)

    p = sub.add_parser("compare-exact")
    p.add_argument("sent")
    p.add_argument("received")
    p.set_defaults(func=cmd_compare_exact)

    p = sub.add_parser("pseudo-equal")
    p.add_argument("--src", required=True)
    p.add_argument("--dst", required=True)
    p.add_argument("--from", dest="ip_from", required=True)
    p.add_argument("--to", dest="ip_to", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, default=16)
    p.add_argument("--size", type=int, default=200)
    p.add_argument("out")
    p.set_defaults(func=cmd_pseudo_equal)

    p = sub.add_parser("corrupt")
    p.add_argument("pcap")
    p.add_argument("out")
    p.set_defaults(func=cmd_corrupt)

    args = parser.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
