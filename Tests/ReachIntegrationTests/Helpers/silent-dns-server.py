"""A DNS server that reads every query and never answers: a resolver pointed at it waits
for its whole timeout.

    python3 silent-dns-server.py ADDRESS

Binds UDP port 53 on ADDRESS (IPv4 or IPv6), prints `listening` when ready, and a
`dropped N bytes from PEER` line for each query it drops.
"""
import socket, sys

family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
sock = socket.socket(family, socket.SOCK_DGRAM)
sock.bind((sys.argv[1], 53))
print("listening", flush=True)
while True:
    data, peer = sock.recvfrom(4096)
    print("dropped", len(data), "bytes from", peer[0], flush=True)
