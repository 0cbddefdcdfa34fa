"""An HTTP proxy for the exporter's proxy_url: CONNECT tunnels (RFC 9110, 9.3.6) and
absolute-form requests (RFC 9112, 3.2.2), relayed as they come.

    python3 connect-proxy.py ADDRESS PORT [--tls CERT KEY] [--auth USER:PASSWORD] NAME=ADDRESS...

Listens on ADDRESS (IPv4 or IPv6) PORT; with --tls, inside TLS (an https:// proxy). With
--auth, a request without that Basic Proxy-Authorization (RFC 9110, 11.7.2) is answered
407. NAME=ADDRESS pairs are names only the proxy resolves (skip_resolve_phase_with_proxy);
other names go to the system's resolver.
CONNECT to port 8444 is refused with 403, so a test can tell the proxy is on the way.
Prints `listening` when ready and `proxied METHOD TARGET` for each request.
"""
import base64, select, socket, ssl, sys, threading

arguments = sys.argv[3:]
tls = None
credentials = None
while arguments and arguments[0].startswith("--"):
    if arguments[0] == "--tls":
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(arguments[1], arguments[2])
        arguments = arguments[3:]
    elif arguments[0] == "--auth":
        credentials = b"Basic " + base64.b64encode(arguments[1].encode())
        arguments = arguments[2:]
    else:
        sys.exit("connect-proxy.py: unknown option " + arguments[0])
names = dict(pair.split("=", 1) for pair in arguments)
family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
server = socket.socket(family, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind((sys.argv[1], int(sys.argv[2])))
server.listen(64)
print("listening", flush=True)


def authorized(head):
    if credentials is None:
        return True
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"proxy-authorization" and value.strip() == credentials:
            return True
    return False


def pump(client, upstream):
    """Relays both ways in one thread: an SSL socket is not to be read and written from two."""
    sockets = [client, upstream]
    try:
        while True:
            readable, _, _ = select.select(sockets, [], [])
            for source in readable:
                sink = upstream if source is client else client
                while True:
                    data = source.recv(65536)
                    if not data:
                        return
                    sink.sendall(data)
                    if not (isinstance(source, ssl.SSLSocket) and source.pending()):
                        break
    except OSError:
        pass
    finally:
        client.close()
        upstream.close()


def split(authority, default):
    if authority.startswith("["):
        host, _, port = authority[1:].partition("]")
        port = port.lstrip(":")
    else:
        host, _, port = authority.partition(":")
    return names.get(host, host), int(port or default)


def serve(client):
    if tls is not None:
        try:
            client = tls.wrap_socket(client, server_side=True)
        except (OSError, ssl.SSLError):
            client.close()
            return
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = client.recv(4096)
        if not chunk:
            client.close()
            return
        head += chunk
    method, target = head.split(b" ")[:2]
    print("proxied", method.decode(), target.decode(), flush=True)
    if not authorized(head):
        client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
        client.close()
        return
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
    pump(client, upstream)


def serve_or_close(client):
    try:
        serve(client)
    except OSError as error:
        print("failed", error, flush=True)
        client.close()


while True:
    connection, _ = server.accept()
    threading.Thread(target=serve_or_close, args=(connection,), daemon=True).start()
