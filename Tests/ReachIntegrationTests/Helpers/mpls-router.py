"""Answers expiring probes as an MPLS router does (RFC 4950 over RFC 4884), which no Linux
router does: the router namespace's own time exceeded is dropped by nftables (packets
without this helper's mark), and this sends its own.

    python3 mpls-router.py INTERFACE SOURCE SOURCE6

Runs as root in the router namespace. It reads the packets arriving on INTERFACE
(AF_PACKET), and for each IPv4 one with TTL 1 sends, from SOURCE, an ICMP time exceeded
(type 11, code 0) whose length attribute (the sixth byte) is 32 words; for each IPv6 one
with hop limit 1, from SOURCE6, an ICMPv6 time exceeded (type 3, code 0) whose length
attribute (the fifth byte) is 16 64-bit words (RFC 4884 sections 4.1 and 4.2): the packet
as it arrived, zero-padded to 128 bytes, then an extension structure (version 2, its
checksum) with an MPLS label stack of one entry (label 16, TC 0, S 1, TTL 1) and the
incoming interface's information (RFC 5837: ifIndex 3, 198.18.1.2, name "ge-0/0/0.0",
MTU 1500). Prints `listening` when ready.
"""
import socket, struct, sys

interface, source, source6 = sys.argv[1], sys.argv[2], sys.argv[3]
MARK = 0x4242  # SO_MARK, so the namespace's nftables rule lets these through


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def extensions():
    mpls = struct.pack("!HBB", 8, 1, 1) + struct.pack("!I", (16 << 12) | (1 << 8) | 1)
    name = b"ge-0/0/0.0"
    info = (struct.pack("!I", 3) + struct.pack("!HH", 1, 0) + socket.inet_aton("198.18.1.2")
            + bytes([12]) + name + b"\0" + struct.pack("!I", 1500))
    interface_object = struct.pack("!HBB", 4 + len(info), 2, 0x0F) + info
    body = mpls + interface_object
    value = checksum(b"\x20\0\0\0" + body)
    return b"\x20\0" + struct.pack("!H", value) + body


STRUCTURE = extensions()
listen = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0003))  # ETH_P_ALL
listen.bind((interface, 0x0003))
send = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
send.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, MARK)
send.bind((source, 0))
# The kernel fills in an ICMPv6 raw socket's checksum (it needs the pseudo-header).
send6 = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
send6.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, MARK)
send6.bind((source6, 0))
print("listening", flush=True)


def original(packet, length):
    quoted = packet[:min(length, len(packet), 128)]
    return quoted + bytes(128 - len(quoted))


while True:
    packet, (_, protocol, kind, _, _) = listen.recvfrom(65535)
    if kind == socket.PACKET_OUTGOING:
        continue
    if protocol == 0x0800 and len(packet) >= 20 and packet[8] == 1:
        rest = struct.pack("!BBH", 0, 32, 0) + original(packet, struct.unpack("!H", packet[2:4])[0]) + STRUCTURE
        message = struct.pack("!BBH", 11, 0, checksum(struct.pack("!BBH", 11, 0, 0) + rest)) + rest
        send.sendto(message, (socket.inet_ntoa(packet[12:16]), 0))
    elif protocol == 0x86DD and len(packet) >= 40 and packet[7] == 1:
        rest = struct.pack("!BBH", 16, 0, 0) + original(packet, 40 + struct.unpack("!H", packet[4:6])[0]) + STRUCTURE
        send6.sendto(struct.pack("!BBH", 3, 0, 0) + rest, (socket.inet_ntop(socket.AF_INET6, packet[8:24]), 0))
