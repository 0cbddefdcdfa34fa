"""Fires malformed and forged ICMP at a running `reach ping`, from the address it pings.

    python3 hostile-icmp-sender.py TARGET IDENTIFIER

Runs as root in the far namespace, whose address 198.18.1.2 reach pings from TARGET with
echo identifier IDENTIFIER. Through a raw IPPROTO_RAW socket (the IP header written here,
source 198.18.1.2) it sends, 10 ms apart: truncated messages, errors quoting too little or
no IPv4 header, replies and errors for sequences never sent, errors about another pinger's
probe or another target, a UDP quote, a timestamp request, an unknown type, an echo request
with reach's identifier, five echo replies with a bad checksum (sequence 1), and a reply
behind IP options; then 3,000 echo replies for another identifier in about 1.5 s.
Prints `sent N` at the end.
"""
import socket, struct, sys, time
target, ours = sys.argv[1], int(sys.argv[2])
other = (ours + 1) % 65536

def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF

def icmp(kind, code, rest, good=True):
    header = struct.pack("!BBH", kind, code, 0) + rest
    value = checksum(header) if good else (checksum(header) ^ 0x5555)
    return struct.pack("!BBH", kind, code, value) + rest

def echo(identifier, sequence, kind=0, good=True, payload=bytes(range(56))):
    return icmp(kind, 0, struct.pack("!HH", identifier, sequence) + payload, good)

def ip_header(source, destination, ihl=5, protocol=1, total=84):
    first = 0x40 | ihl
    header = struct.pack("!BBHHHBBH4s4s", first, 0, total, 1, 0, 64, protocol, 0,
                         socket.inet_aton(source), socket.inet_aton(destination))
    return header + b"\0" * ((ihl - 5) * 4)

def error(kind, code, quoted):
    return icmp(kind, code, b"\0\0\0\0" + quoted)

probe = lambda identifier, sequence: echo(identifier, sequence, kind=8)
ours_quoted = lambda sequence: ip_header(target, "198.18.1.2") + probe(ours, sequence)
packets = [
    b"\0\0\0",                                                                   # truncated: 3 bytes
    b"\0",                                                                       # truncated: 1 byte
    echo(ours, 1)[:6],                                                           # an echo reply cut inside its header
    error(3, 1, b"\x45\0"),                                                      # an error quoting 2 bytes
    error(3, 1, b"\x4f" + b"\0" * 30),                                           # quoting an IHL of 60 with 31 bytes
    error(3, 1, b"\x60" + b"\0" * 40),                                           # quoting no IPv4 header
    echo(ours, 60000),                                                           # a reply to a probe never sent
    echo(ours, 0),                                                               # sequence 0: never sent
    error(3, 1, ours_quoted(50000)),                                             # error for a probe never sent
    error(11, 0, ours_quoted(60001)),                                            # time exceeded, never sent
    error(3, 1, ip_header(target, "198.18.1.2") + probe(other, 1)),              # another pinger's probe
    error(3, 1, ip_header(target, "203.0.113.9") + probe(ours, 1)),              # ours, to another target
    error(3, 3, ip_header(target, "198.18.1.2", protocol=17) + probe(ours, 1)),  # a UDP quote
    icmp(13, 0, b"\0" * 16),                                                     # a timestamp request
    icmp(200, 7, b"\0" * 8),                                                     # an unknown type
    echo(ours, 2, kind=8),                                                       # an echo request with our identifier
] + [echo(ours, 1, good=False)] * 5                                              # bad checksum: counted as corrupted
# IPPROTO_RAW: we write the IP header ourselves, so the kernel sends even a 1-byte ICMP
# message as it is (it fills in the header checksum and total length).
sender = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)

def send(message, ihl=5):
    sender.sendto(ip_header("198.18.1.2", target, ihl=ihl, total=ihl * 4 + len(message)) + message, (target, 0))

for packet in packets:
    send(packet)
    time.sleep(0.01)
send(echo(ours, 61000), ihl=7)  # IP options before a reply never asked for
# A flood of echo replies for another identifier: 3,000 in about 1.5 s.
for sequence in range(3000):
    send(echo(other, sequence % 65536 + 1))
    if sequence % 100 == 99:
        time.sleep(0.05)
print("sent", len(packets) + 3001, flush=True)
