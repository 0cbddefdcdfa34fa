"""Answers expiring IPv4 probes as an MPLS router does (RFC 4950 over RFC 4884), which no
Linux router does: the router namespace's own time exceeded is dropped by nftables (packets
without this helper's mark), and this sends its own.

    python3 mpls-router.py INTERFACE SOURCE

Runs as root in the router namespace. It reads the IPv4 packets arriving on INTERFACE
(AF_PACKET), and for each with TTL 1 sends, from SOURCE, an ICMP time exceeded (type 11,
code 0) whose length attribute is 32 words: the packet as it arrived, zero-padded to 128
bytes, then an extension structure (version 2, its checksum) with an MPLS label stack of
one entry (label 16, TC 0, S 1, TTL 1) and the incoming interface's information (RFC 5837:
ifIndex 3, 198.18.1.2, name "ge-0/0/0.0", MTU 1500). Prints `listening` when ready.
"""
import socket, struct, sys

interface, source = sys.argv[1], sys.argv[2]
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
listen = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0800))
listen.bind((interface, 0x0800))
send = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
send.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, MARK)
send.bind((source, 0))
print("listening", flush=True)
while True:
    packet, (_, _, kind, _, _) = listen.recvfrom(65535)
    if kind == socket.PACKET_OUTGOING or len(packet) < 20 or packet[8] != 1:
        continue
    header_length = (packet[0] & 0x0F) * 4
    total = struct.unpack("!H", packet[2:4])[0]
    quoted = packet[:min(total, len(packet), 128)]
    original = quoted + bytes(128 - len(quoted))
    rest = struct.pack("!BBH", 0, 32, 0) + original + STRUCTURE
    message = struct.pack("!BBH", 11, 0, checksum(struct.pack("!BBH", 11, 0, 0) + rest)) + rest
    send.sendto(message, (socket.inet_ntoa(packet[12:16]), 0))
