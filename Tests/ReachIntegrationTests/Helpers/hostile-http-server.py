"""An HTTP/1.1 server with well-behaved and hostile paths, for connectivity probes that
must survive malformed, endless and slow answers.

    python3 hostile-http-server.py ADDRESS [PORT CERTIFICATE KEY]

Listens on ADDRESS (IPv4 or IPv6) port 8080, or PORT over TLS with the PEM certificate
and key given, every connection on a thread of its own:

    /generate_204     204 No Content at once
    /slow             the status line, then the blank line 2 s later (a 204)
    /garbage          bytes that are no HTTP response
    /huge-chunk       a chunked 200 whose chunk size is 7fffffffffffffff
    /endless-body     a chunked 200 whose chunks never end
    /endless-size     a chunked 200 whose chunk-size line never ends
    /endless-headers  a status line, then header lines forever
    /drip             a 200 with a 100-byte body, one byte every 100 ms
    /silent           nothing, the connection held open for 30 s
    anything else     the connection closed at once (the tests use /close)

Prints `listening` when ready and `served PATH` for each request.
"""
import socket, ssl, sys, threading, time
family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
server = socket.socket(family, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind((sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8080))
server.listen(64)
if len(sys.argv) > 2:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[3], sys.argv[4])
    # The handshake on each connection's own thread, so one stalled client stalls no other.
    server = context.wrap_socket(server, server_side=True, do_handshake_on_connect=False)
print("listening", flush=True)

def forever(connection, piece, pause=0.0):
    while True:
        connection.sendall(piece)
        if pause:
            time.sleep(pause)

def serve(connection):
    try:
        if isinstance(connection, ssl.SSLSocket):
            connection.do_handshake()
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = connection.recv(4096)
            if not chunk:
                return
            request += chunk
        path = request.split(b" ")[1].decode()
        print("served", path, flush=True)
        chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        if path == "/generate_204":
            connection.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
        elif path == "/slow":
            connection.sendall(b"HTTP/1.1 204 No Content\r\n")
            time.sleep(2)
            connection.sendall(b"\r\n")
        elif path == "/garbage":
            connection.sendall(bytes(range(256)) * 4)
        elif path == "/huge-chunk":
            connection.sendall(chunked + b"7fffffffffffffff\r\nabc")
            time.sleep(30)
        elif path == "/endless-body":
            connection.sendall(chunked)
            forever(connection, b"1;" + b"e" * 1000 + b"\r\nx\r\n")
        elif path == "/endless-size":
            connection.sendall(chunked)
            forever(connection, b"0" * 65536)
        elif path == "/endless-headers":
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            forever(connection, b"X-Filler: " + b"y" * 100 + b"\r\n")
        elif path == "/drip":
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
            forever(connection, b"z", 0.1)
        elif path == "/silent":
            time.sleep(30)
    except OSError:
        pass
    finally:
        connection.close()

while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
