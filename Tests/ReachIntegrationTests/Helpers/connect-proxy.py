"""An HTTP proxy for the exporter's proxy_url: CONNECT tunnels (RFC 9110, 9.3.6) and
absolute-form requests (RFC 9112, 3.2.2), relayed as they come.

    python3 connect-proxy.py ADDRESS PORT NAME=ADDRESS...

Listens on ADDRESS (IPv4 or IPv6) PORT. NAME=ADDRESS pairs are names only the proxy
resolves (skip_resolve_phase_with_proxy); other names go to the system's resolver.
CONNECT to port 8444 is refused with 403, so a test can tell the proxy is on the way.
Prints `listening` when ready and `proxied METHOD TARGET` for each request.
"""
import socket, sys, threading

names = dict(pair.split("=", 1) for pair in sys.argv[3:])
family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
server = socket.socket(family, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind((sys.argv[1], int(sys.argv[2])))
server.listen(64)
print("listening", flush=True)


def relay(source, sink):
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        sink.close()


def split(authority, default):
    if authority.startswith("["):
        host, _, port = authority[1:].partition("]")
        port = port.lstrip(":")
    else:
        host, _, port = authority.partition(":")
    return names.get(host, host), int(port or default)


def serve(client):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = client.recv(4096)
        if not chunk:
            client.close()
            return
        head += chunk
    method, target = head.split(b" ")[:2]
    print("proxied", method.decode(), target.decode(), flush=True)
    if method == b"CONNECT":
        host, port = split(target.decode(), 443)
        if port == 8444:
            client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            client.close()
            return
        upstream = socket.create_connection((host, port))
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        rest = head.split(b"\r\n\r\n", 1)[1]
    else:
        # Forwarded in origin-form (RFC 9112, 3.2.1), as a proxy does.
        authority, _, path = target.split(b"//", 1)[1].partition(b"/")
        upstream = socket.create_connection(split(authority.decode(), 80))
        rest = head.replace(target, b"/" + path, 1)
    upstream.sendall(rest)
    threading.Thread(target=relay, args=(upstream, client), daemon=True).start()
    relay(client, upstream)


while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
