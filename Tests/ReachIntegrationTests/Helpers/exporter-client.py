#!/usr/bin/env python3
"""HTTP clients for the exporter tests, run inside a test namespace.

  exporter-client.py get URL [NAME:VALUE]...   one GET; prints {"status", "body", "content_type", "seconds"} as JSON
  exporter-client.py post URL                  one POST with an empty body; the same
  exporter-client.py hostile HOST PORT         the hostile clients; prints their outcomes as JSON

The hostile cases (the exporter runs with --header-timeout 2s, --concurrency 2, --queue 2):
a malformed request line, binary bytes, 20 KiB of headers, a head just over 8 KiB in one write,
a client sending a byte a second,
an idle connection, 1,000 connections at once, a burst of probes beyond the queue, a
target outside --allow and an unknown module. Each case is bounded in time; all stop by
themselves.
"""
import json
import resource
import select
import selectors
import socket
import sys
import threading
import time
import urllib.error
import urllib.request


def get(url, headers, method="GET"):
    request = urllib.request.Request(url, headers=headers, method=method, data=b"" if method == "POST" else None)
    start = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = {"status": response.status, "body": response.read().decode("utf-8", "replace"),
                      "content_type": response.headers.get("Content-Type")}
    except urllib.error.HTTPError as error:
        answer = {"status": error.code, "body": error.read().decode("utf-8", "replace")}
    answer["seconds"] = time.monotonic() - start
    return answer


def exchange(host, port, payload, timeout=10.0, pause=0.0):
    """Sends payload (all at once, or a byte every `pause` seconds); returns (status line, seconds)."""
    start = time.monotonic()
    with socket.create_connection((host, port), timeout=timeout) as connection:
        try:
            if pause:
                for byte in payload:
                    # Stop sending once the server has answered (or closed).
                    if select.select([connection], [], [], 0)[0]:
                        break
                    connection.sendall(bytes([byte]))
                    select.select([connection], [], [], pause)
            else:
                connection.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        received = b""
        try:
            while b"\r\n" not in received:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                received += chunk
        except (ConnectionResetError, socket.timeout):
            pass
    line = received.split(b"\r\n", 1)[0].decode("latin-1")
    return line, round(time.monotonic() - start, 3)


def status_of(line):
    parts = line.split(" ")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def many_connections(host, port, count):
    """Opens `count` connections, then sends a request on each; the statuses seen."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, count + 64), hard), hard))
    # Each connection asks at once (a loaded machine may take longer than the header limit
    # to open them all) and is left open: the answers wait in the sockets until all are open,
    # then the exporter closes each once idle for its header limit.
    sockets = []
    request = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
    for _ in range(count):
        connection = socket.create_connection((host, port), timeout=10)
        connection.sendall(request)
        connection.setblocking(False)
        sockets.append(connection)
    selector = selectors.DefaultSelector()
    buffers = {}
    for connection in sockets:
        selector.register(connection, selectors.EVENT_READ)
        buffers[connection] = b""
    open_count = count
    # Done when every connection has closed; the deadline only ends a hang. A loaded machine
    # running the sanitizer build (load average 8-10) took over 30 s for the 1,000 answers.
    deadline = time.monotonic() + 120
    while open_count and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=1):
            connection = key.fileobj
            try:
                chunk = connection.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                buffers[connection] += chunk
            else:
                selector.unregister(connection)
                open_count -= 1
    statuses = {}
    for connection in sockets:
        status = status_of(buffers[connection].split(b"\r\n", 1)[0].decode("latin-1"))
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        connection.close()
    return statuses


def probe_burst(host, port, count):
    """`count` probes at once of an address that never answers (3.5 s each); the statuses seen."""
    results = []
    lock = threading.Lock()

    def one():
        line, _ = exchange(host, port, b"GET /probe?target=198.18.0.99&module=icmp&timeout=4 HTTP/1.1\r\nHost: x\r\n"
                           b"Connection: close\r\n\r\n", timeout=15)
        with lock:
            results.append(status_of(line))
    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = {}
    for status in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    return statuses


def hostile(host, port):
    outcome = {}
    slow = {}

    def slow_client():
        slow["line"], slow["seconds"] = exchange(host, port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", pause=1.0)

    def idle_client():
        slow["idle"], slow["idle_seconds"] = exchange(host, port, b"")

    # The two slow ones run while the rest goes on.
    threads = [threading.Thread(target=slow_client), threading.Thread(target=idle_client)]
    for thread in threads:
        thread.start()
    outcome["malformed"] = exchange(host, port, b"GARBAGE\r\n\r\n")[0]
    outcome["binary"] = exchange(host, port, b"\x00\xff\x01\x02 / HTTP/1.1\r\n\r\n")[0]
    outcome["huge_headers"] = exchange(host, port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n")[0]
    # Just over the 8 KiB limit, in one write: the whole head may arrive in one read.
    outcome["head_over_limit"] = exchange(host, port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 8200 + b"\r\n\r\n")[0]
    outcome["outside_allow"] = exchange(host, port, b"GET /probe?target=8.8.8.8&module=icmp HTTP/1.1\r\nHost: x\r\n\r\n")[0]
    outcome["unknown_module"] = exchange(host, port, b"GET /probe?target=198.18.0.1&module=dns HTTP/1.1\r\nHost: x\r\n\r\n")[0]
    outcome["post"] = exchange(host, port, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")[0]
    outcome["connections"] = many_connections(host, port, 1000)
    outcome["probe_burst"] = probe_burst(host, port, 20)
    for thread in threads:
        thread.join()
    outcome.update(slow)
    outcome["after"] = exchange(host, port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")[0]
    return outcome


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "get":
        headers = dict(argument.split(":", 1) for argument in sys.argv[3:])
        print(json.dumps(get(sys.argv[2], headers)))
    elif len(sys.argv) == 3 and sys.argv[1] == "post":
        print(json.dumps(get(sys.argv[2], {}, method="POST")))
    elif len(sys.argv) == 4 and sys.argv[1] == "hostile":
        print(json.dumps(hostile(sys.argv[2], int(sys.argv[3]))))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
