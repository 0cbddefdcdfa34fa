#!/usr/bin/env python3
"""Captures real ICMP and ICMPv6 packets as the seed corpus of the `icmp` fuzz target.

Not run by `make fuzz`: it made Fuzz/corpus/icmp/ and remakes it on demand (root):

    sudo python3 Fuzz/capture-icmp-seeds.py

It builds three network namespaces of its own (rch-harden-fz-a, -r, -b: a host, a router,
a target; test ranges only) and, from the host, sends the echo requests `reach ping` sends
(identifier 0x1234, iputils' 56-byte payload 00 01 02 ...) over raw and datagram sockets,
and records what came back: echo replies, and the router's errors (host unreachable,
administratively prohibited, time exceeded, packet too big) as raw sockets deliver them
(IPv4 with its IP header) and as the error queue of a datagram socket delivers them (the
probe that failed, with the ICMP type and code from sock_extended_err). The namespaces
are deleted even on failure.

Each seed is one input in the format of Fuzz/Targets/ICMPFuzzTarget.swift:
    flags (bit 0 IPv6, bit 1 raw socket), identifier (2 bytes), target address (4 or 16),
    then records: 0, length (2), datagram | 1, type, code, info (4), length (2), probe from the error queue
"""
import json
import os
import select
import socket
import struct
import subprocess
import sys

HOST, ROUTER, TARGET = "rch-harden-fz-a", "rch-harden-fz-r", "rch-harden-fz-b"
IDENTIFIER = 0x1234
PAYLOAD = bytes(range(56))
# <linux/in.h>, <linux/in6.h>, <linux/socket.h>: not all in Python's socket module.
IP_MTU_DISCOVER, IP_RECVERR, IPV6_MTU_DISCOVER, IPV6_RECVERR, MSG_ERRQUEUE = 10, 11, 23, 25, 0x2000
CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "icmp")


def run(*words):
    subprocess.run(words, check=True)


def netns(namespace, *words):
    run("ip", "netns", "exec", namespace, *words)


def build():
    for namespace in (HOST, ROUTER, TARGET):
        run("ip", "netns", "add", namespace)
        netns(namespace, "ip", "link", "set", "lo", "up")
    run("ip", "link", "add", "fz-a0", "netns", HOST, "type", "veth", "peer", "fz-r0", "netns", ROUTER)
    run("ip", "link", "add", "fz-r1", "netns", ROUTER, "type", "veth", "peer", "fz-b0", "netns", TARGET)
    for namespace, link, v4, v6 in [(HOST, "fz-a0", "198.18.0.1/24", "2001:db8:1::1/64"),
                                    (ROUTER, "fz-r0", "198.18.0.254/24", "2001:db8:1::fe/64"),
                                    (ROUTER, "fz-r1", "198.51.100.254/24", "2001:db8:2::fe/64"),
                                    (TARGET, "fz-b0", "198.51.100.2/24", "2001:db8:2::2/64")]:
        netns(namespace, "ip", "addr", "add", v4, "dev", link)
        netns(namespace, "ip", "-6", "addr", "add", v6, "dev", link, "nodad")
        netns(namespace, "ip", "link", "set", link, "up")
    netns(ROUTER, "ip", "link", "set", "fz-r1", "mtu", "1280")
    netns(TARGET, "ip", "link", "set", "fz-b0", "mtu", "1280")
    netns(HOST, "ip", "route", "add", "default", "via", "198.18.0.254")
    netns(HOST, "ip", "-6", "route", "add", "default", "via", "2001:db8:1::fe")
    netns(TARGET, "ip", "route", "add", "default", "via", "198.51.100.254")
    netns(TARGET, "ip", "-6", "route", "add", "default", "via", "2001:db8:2::fe")
    for setting in ["net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1", "net.ipv4.icmp_ratelimit=0",
                    "net.ipv6.icmp.ratelimit=0"]:
        netns(ROUTER, "sysctl", "-qw", setting)
    netns(HOST, "sysctl", "-qw", "net.ipv4.ping_group_range=0 0")
    netns(ROUTER, "ip", "route", "add", "unreachable", "203.0.113.0/25")
    netns(ROUTER, "ip", "route", "add", "prohibit", "203.0.113.128/25")
    netns(ROUTER, "ip", "-6", "route", "add", "unreachable", "2001:db8:99::/48")
    netns(ROUTER, "ip", "-6", "route", "add", "prohibit", "2001:db8:98::/48")


def clean():
    for namespace in (HOST, ROUTER, TARGET):
        subprocess.run(["ip", "netns", "delete", namespace], stderr=subprocess.DEVNULL)


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def echo_request(v6, sequence, payload=PAYLOAD):
    kind = 128 if v6 else 8
    header = struct.pack("!BBHHH", kind, 0, 0, IDENTIFIER, sequence)
    if v6:
        return header + payload  # the kernel fills in the ICMPv6 checksum
    return struct.pack("!BBHHH", kind, 0, checksum(header + payload), IDENTIFIER, sequence) + payload


def wait_readable(sock, errors=False):
    poll = select.poll()
    poll.register(sock, select.POLLERR if errors else select.POLLIN)
    return poll.poll(3000)


def capture_raw(v6, target, sequence, hops=64, payload=PAYLOAD):
    """Sends one echo request on a raw socket, returns the first ICMP packet about it."""
    family, proto = (socket.AF_INET6, socket.IPPROTO_ICMPV6) if v6 else (socket.AF_INET, socket.IPPROTO_ICMP)
    with socket.socket(family, socket.SOCK_RAW, proto) as sock:
        if v6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, hops)
        else:
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, hops)
        sock.sendto(echo_request(v6, sequence, payload), (target, 0))
        while wait_readable(sock):
            data = sock.recv(65536)
            icmp = data if v6 else data[(data[0] & 0x0F) * 4:]
            if icmp[0] in (8, 128, 133, 134, 135, 136, 143):  # our own request, neighbour discovery, MLD
                continue
            return data
    raise RuntimeError(f"no answer to a raw echo request to {target}")


def capture_datagram(v6, target, sequence, hops=64, payload=PAYLOAD):
    """Sends one echo request on a datagram socket bound to the identifier: returns
    ("reply", bytes) or ("error", type, code, info, the probe from the error queue)."""
    family, proto = (socket.AF_INET6, socket.IPPROTO_ICMPV6) if v6 else (socket.AF_INET, socket.IPPROTO_ICMP)
    with socket.socket(family, socket.SOCK_DGRAM, proto) as sock:
        sock.bind(("::" if v6 else "0.0.0.0", IDENTIFIER))
        # PMTUDISC_PROBE (3): DF set, the path MTU the raw probe taught not applied, so the
        # oversized probe reaches the router again and brings its error.
        if v6:
            sock.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVERR, 1)
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, hops)
            sock.setsockopt(socket.IPPROTO_IPV6, IPV6_MTU_DISCOVER, 3)
        else:
            sock.setsockopt(socket.IPPROTO_IP, IP_RECVERR, 1)
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, hops)
            sock.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, 3)
        sock.sendto(echo_request(v6, sequence, payload), (target, 0))
        events = wait_readable(sock, errors=True) + wait_readable(sock)
        for _, event in events:
            if event & select.POLLERR:
                data, ancillary, _, _ = sock.recvmsg(65536, 512, MSG_ERRQUEUE)
                for _, _, extended in ancillary:
                    # struct sock_extended_err: errno u32, origin u8, type u8, code u8, pad u8, info u32, data u32
                    _, origin, kind, code, _, info = struct.unpack_from("=IBBBBI", extended)
                    return ("error", kind, code, info, data)
            if event & select.POLLIN:
                return ("reply", sock.recv(65536))
    raise RuntimeError(f"no answer to a datagram echo request to {target}")


def seed(v6, raw, target, records):
    header = bytes([(1 if v6 else 0) | (2 if raw else 0)]) + struct.pack("!H", IDENTIFIER)
    header += socket.inet_pton(socket.AF_INET6 if v6 else socket.AF_INET, target)
    return header + b"".join(records)


def datagram_record(data):
    return b"\0" + struct.pack("!H", len(data)) + data


def queued_record(kind, code, info, data):
    return bytes([1, kind, code]) + struct.pack("!IH", info, len(data)) + data


def capture_all():
    """Runs in the host namespace; prints {name: hex} as JSON."""
    seeds = {}
    cases = [  # name, IPv6, target, hop limit, payload
        ("reply", False, "198.51.100.2", 64, PAYLOAD),
        ("host-unreachable", False, "203.0.113.7", 64, PAYLOAD),
        ("prohibited", False, "203.0.113.130", 64, PAYLOAD),
        ("ttl-exceeded", False, "198.51.100.2", 1, PAYLOAD),
        ("frag-needed", False, "198.51.100.2", 64, bytes(range(256)) * 5),
        ("reply", True, "2001:db8:2::2", 64, PAYLOAD),
        ("no-route", True, "2001:db8:99::7", 64, PAYLOAD),
        ("prohibited", True, "2001:db8:98::7", 64, PAYLOAD),
        ("hop-limit", True, "2001:db8:2::2", 1, PAYLOAD),
        ("packet-too-big", True, "2001:db8:2::2", 64, bytes(range(256)) * 5),
    ]
    for sequence, (name, v6, target, hops, payload) in enumerate(cases, start=1):
        family = "v6" if v6 else "v4"
        raw = capture_raw(v6, target, sequence, hops, payload)
        seeds[f"{family}-raw-{name}"] = seed(v6, True, target, [datagram_record(raw)]).hex()
        answer = capture_datagram(v6, target, sequence, hops, payload)
        if answer[0] == "reply":
            record = datagram_record(answer[1])
        else:
            record = queued_record(*answer[1:])
        seeds[f"{family}-datagram-{name}"] = seed(v6, False, target, [record]).hex()
    print(json.dumps(seeds))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--in-namespace":
        capture_all()
        return
    clean()
    try:
        build()
        output = subprocess.run(["ip", "netns", "exec", HOST, sys.executable, os.path.abspath(__file__), "--in-namespace"],
                                check=True, stdout=subprocess.PIPE, text=True).stdout
    finally:
        clean()
    os.makedirs(CORPUS, exist_ok=True)
    for name, data in json.loads(output).items():
        with open(os.path.join(CORPUS, name), "wb") as out:
            out.write(bytes.fromhex(data))
        print(f"{name}: {len(data) // 2} bytes")


if __name__ == "__main__":
    main()
