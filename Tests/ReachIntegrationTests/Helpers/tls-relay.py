#!/usr/bin/env python3
"""TLS in front of a TCP server: each connection's TLS handshake is taken with CERT and
KEY (PEM), then its bytes are relayed to UPSTREAM_ADDRESS UPSTREAM_PORT and back, so a
DNS server over TCP answers DNS over TLS (RFC 7858) as well.

  tls-relay.py ADDRESS PORT CERT KEY UPSTREAM_ADDRESS UPSTREAM_PORT

Each connection is served on a thread of its own and for 30 s at most. Prints "listening"
once it accepts.
"""
import select
import socket
import ssl
import sys
import threading


def relay(client, context, upstream):
    client.settimeout(30)
    try:
        secure = context.wrap_socket(client, server_side=True)
        with socket.create_connection(upstream, timeout=30) as server:
            ends = {secure: server, server: secure}
            while True:
                readable, _, _ = select.select(list(ends), [], [], 30)
                if not readable:
                    return
                for end in readable:
                    data = end.recv(65536)
                    if not data:
                        return
                    ends[end].sendall(data)
    except (OSError, ssl.SSLError):
        pass
    finally:
        client.close()


def main():
    address, port, certificate, key, upstream_address, upstream_port = sys.argv[1:7]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address, int(port)))
    listener.listen(64)
    print("listening", flush=True)
    upstream = (upstream_address, int(upstream_port))
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=relay, args=(connection, context, upstream), daemon=True).start()


if __name__ == "__main__":
    main()
