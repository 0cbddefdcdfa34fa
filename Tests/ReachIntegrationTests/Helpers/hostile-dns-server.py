"""A DNS server that answers in ways a prober must survive, on ADDRESS port 53:

    python3 hostile-dns-server.py ADDRESS

Over UDP, a query for a name starting with "loop" gets a response whose answer's name is a
compression pointer to itself (RFC 1035, 4.1.4 allows no such thing); any other query gets
first a response with another ID (a late answer to some earlier query, to be skipped), then
its own: one A record, 198.18.0.6, TTL 60. Over TCP, every query is answered with another
ID. Prints `listening` when ready.
"""
import socket
import struct
import sys
import threading

ADDRESS = sys.argv[1]


def question_end(query):
    offset = 12
    while query[offset]:
        offset += 1 + query[offset]
    return offset + 5


def answer(query, ident, loop=False):
    question = query[12:question_end(query)]
    header = struct.pack(">HHHHHH", ident, 0x8180, 1, 1, 0, 0)
    if loop:
        record = struct.pack(">HHHIH", 0xC000 | 12 + len(question), 1, 1, 60, 4) + bytes([198, 18, 0, 6])
    else:
        record = struct.pack(">HHHIH", 0xC00C, 1, 1, 60, 4) + bytes([198, 18, 0, 6])
    return header + question + record


def serve_udp(sock):
    while True:
        query, peer = sock.recvfrom(512)
        ident = struct.unpack(">H", query[:2])[0]
        if query[13:17] == b"loop":
            sock.sendto(answer(query, ident, loop=True), peer)
        else:
            sock.sendto(answer(query, ident ^ 0xFFFF), peer)
            sock.sendto(answer(query, ident), peer)


def serve_tcp(listener):
    while True:
        connection, _ = listener.accept()
        with connection:
            length = struct.unpack(">H", connection.recv(2))[0]
            query = b""
            while len(query) < length:
                query += connection.recv(length - len(query))
            response = answer(query, struct.unpack(">H", query[:2])[0] ^ 0xFFFF)
            connection.sendall(struct.pack(">H", len(response)) + response)


udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind((ADDRESS, 53))
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind((ADDRESS, 53))
tcp.listen(16)
threading.Thread(target=serve_tcp, args=(tcp,), daemon=True).start()
print("listening", flush=True)
serve_udp(udp)
