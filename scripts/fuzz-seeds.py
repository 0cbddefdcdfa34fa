#!/usr/bin/env python3
"""Writes the seed corpus of `make fuzz` (Fuzz/corpus/<target>/) from real captures.

netlink:      every datagram of Tests/ReachCoreTests/Fixtures/CapturedReply.swift (kernel
              replies captured in namespaces by Tests/Fixtures/capture-netlink-fixtures.py).
dbus:         every message of Tests/ReachCoreTests/Fixtures/CapturedDBus.swift (a dbus-daemon
              and python-dbusmock, captured by Tests/Fixtures/capture-dbus-fixtures.py), alone
              and all in one stream after the bus's SASL "OK" line.
command-line: the words people pass as targets and durations (README and reach(1) examples).
probe-spec:   the --probe forms of README and reach(1).
icmp-extensions: ICMP multi-part messages (RFC 4884) carrying MPLS label stacks (RFC 4950)
              and interface information (RFC 5837), built from the RFCs' layouts (no Linux
              router sends them), whole and as a UDP socket's error queue returns them.
http:         responses captured from Python's http.server on 127.0.0.1 (a file, a directory
              redirect, a 404 page, and handlers answering 204, a portal's 302, a 200 with
              the expected text, a chunked body), to the request reach sends, each read in
              pieces of 256 bytes (the first byte of a seed) and of 1 byte.

The ICMP seeds need root: Fuzz/capture-icmp-seeds.py.

Run from the repository root: python3 scripts/fuzz-seeds.py
"""
import http.server
import os
import re
import socket
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")


def write(target, name, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as seed:
        seed.write(data)


def hex_bytes(block):
    """Bytes of one hex(\"\"\" ... \"\"\") fixture: `//` starts a comment, blanks are for reading."""
    digits = "".join(line.split("//", 1)[0].replace(" ", "") for line in block.splitlines())
    return bytes.fromhex(digits)


def netlink():
    path = os.path.join(ROOT, "Tests", "ReachCoreTests", "Fixtures", "CapturedReply.swift")
    source = open(path).read()
    for fixture in re.finditer(r"static let (\w+): \[\[UInt8\]\] = \[(.*?)\n    \]", source, re.S):
        name, body = fixture.groups()
        for index, block in enumerate(re.findall(r'hex\("""(.*?)"""\)', body, re.S)):
            write("netlink", f"{name}-{index}", hex_bytes(block))


def dbus():
    path = os.path.join(ROOT, "Tests", "ReachCoreTests", "Fixtures", "CapturedDBus.swift")
    source = open(path).read()
    stream = b"OK 0123456789abcdef0123456789abcdef\r\n"
    for name, block in re.findall(r'static let (\w+): \[UInt8\] = hex\("""(.*?)"""\)', source, re.S):
        message = hex_bytes(block)
        write("dbus", name, message)
        stream += message
    write("dbus", "stream", stream)


COMMAND_LINE_WORDS = [
    "198.18.0.2", "203.0.113.7", "127.0.0.1", "0.0.0.0", "255.255.255.255",
    "2001:db8::1", "::1", "::", "fe80::1%lo", "fe80::1%1", "::ffff:198.51.100.1",
    "2001:db8:0:0:0:0:0:1", "localhost", "example.com", "example.com.", "host-1.example.org",
    "xn--bcher-kva.example", "5", "1.5s", "300ms", "2m", "0", "0.5", "86400",
]


def command_line():
    for word in COMMAND_LINE_WORDS:
        write("command-line", word, word.encode())


PROBE_SPECS = [
    "icmp:198.18.0.2", "icmp:2001:db8::2", "icmp:gateway.example", "tcp:198.18.0.2:443",
    "tcp:[2001:db8::2]:80", "tcp:db.example:5432", "http://198.18.0.2/generate_204",
    "http://connectivity-check.example/", "http://[2001:db8::2]:8080/hotspot-detect.html",
    "http://portal.example:8080/check?x=1", "https://example.com/",
]


def probe_spec():
    for index, spec in enumerate(PROBE_SPECS):
        write("probe-spec", f"spec-{index:02}", spec.encode())


class CheckHandler(http.server.SimpleHTTPRequestHandler):
    """http.server's own file handler, and the answers a connectivity check meets."""
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path == "/generate_204":
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/portal":
            self.send_response(302)
            self.send_header("Location", "http://198.18.0.2:8080/login?redirect=generate_204")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/success.txt":
            body = b"success\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in (b"<html><body>Sign in to ", b"the hotspot", b"</body></html>"):
                self.wfile.write(b"%x;ext=1\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\nX-Trailer: done\r\n\r\n")
        else:
            super().do_GET()

    def log_message(self, *arguments):
        pass


def http_responses():
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "index.html"), "w") as page:
            page.write("<html><body>It works</body></html>\n")
        os.mkdir(os.path.join(root, "hotspot"))
        handler = lambda *arguments: CheckHandler(*arguments, directory=root)  # noqa: E731
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_address[1]
        try:
            for name, path in [("file", "/index.html"), ("directory-redirect", "/hotspot"), ("not-found", "/missing"),
                               ("no-content", "/generate_204"), ("portal-redirect", "/portal"),
                               ("expected-text", "/success.txt"), ("chunked", "/chunked")]:
                # The request NetworkProbeRunner sends.
                request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: reach/1\r\n"
                           "Accept: */*\r\nConnection: close\r\n\r\n")
                with socket.create_connection(("127.0.0.1", port)) as connection:
                    connection.sendall(request.encode())
                    response = b""
                    while chunk := connection.recv(65536):
                        response += chunk
                write("http", f"{name}", bytes([255]) + response)
                write("http", f"{name}-bytewise", bytes([0]) + response)
        finally:
            server.shutdown()


def internet_checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def extension_structure(*objects):
    """RFC 4884 section 7: version 2, the checksum over the whole structure, the objects."""
    body = b"".join(objects)
    checksum = internet_checksum(b"\x20\0\0\0" + body)
    return b"\x20\0" + checksum.to_bytes(2, "big") + body


def extension_object(class_number, class_type, data):
    return (4 + len(data)).to_bytes(2, "big") + bytes([class_number, class_type]) + data


def icmp_extensions():
    """Seeds of Fuzz/Targets/ICMPExtensionsFuzzTarget.swift: flags, stripped headers, probe
    data length, the kernel's offset (0xffff: none), then the bytes."""
    mpls = extension_object(1, 1, ((16 << 12) | (1 << 8) | 1).to_bytes(4, "big"))
    name = b"ge-0/0/0.0"
    interface = extension_object(2, 0x0f, (3).to_bytes(4, "big") + b"\0\x01\0\0" + bytes([192, 0, 2, 1])
                                 + bytes([12]) + name + b"\0" + (1500).to_bytes(4, "big"))
    outgoing6 = extension_object(2, 0x84, b"\0\x02\0\0" + bytes.fromhex("20010db8000000000000000000000001"))
    structures = {"mpls": extension_structure(mpls), "interface": extension_structure(interface),
                  "both": extension_structure(mpls, outgoing6)}
    # traceroute's UDP probe (IPv4 and UDP headers, 32 bytes from 0x40), padded to 128.
    probe = bytes.fromhex("4500003c123400000111 0000 c6336401c6336409 8235829b00280000") + bytes(range(0x40, 0x60))
    original = probe + bytes(128 - len(probe))
    for name, structure in structures.items():
        write("icmp-extensions", f"structure-{name}", b"\0\0\0\xff\xff" + structure)
        message = bytes([11, 0, 0, 0, 0, 32, 0, 0]) + original + structure
        write("icmp-extensions", f"v4-message-{name}", b"\0\0\0\xff\xff" + message)
        write("icmp-extensions", f"v4-queue-{name}", bytes([0, 28, 32, 0xff, 0xff]) + original[28:] + structure)
        message6 = bytes([3, 0, 0, 0, 16, 0, 0, 0]) + bytes(128) + structure
        write("icmp-extensions", f"v6-message-{name}", b"\x01\0\0\xff\xff" + message6)


if __name__ == "__main__":
    icmp_extensions()
    netlink()
    dbus()
    command_line()
    probe_spec()
    http_responses()
