"""The HTTP server of the probe tests' "internet", or of a captive portal.

    python3 probe-http-server.py MODE LOCATION OK_TEXT PORT...

A threading http.server on each PORT, IPv6 and IPv4 alike (one socket on ::, not
IPV6_V6ONLY: IPv4 clients appear as ::ffff:a.b.c.d).

    MODE ok      /generate_204: 204; /ok: 200 with <html>OK_TEXT</html>; anything else 404
    MODE portal  every URL: 302 to LOCATION

Prints `listening` when every port is bound, and a line per request:
`request CLIENT PATH HOST` (HOST: the Host header as sent). Runs until its standard
input closes (the harness closes it, or stops the process).
"""
import http.server, socket, sys, threading
MODE, LOCATION, OK_TEXT = sys.argv[1], sys.argv[2], sys.argv[3]
LOG_LOCK = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        # One write per line under a lock: print() from two threads can interleave.
        with LOG_LOCK:
            sys.stdout.write("request %s %s %s\n" % (self.client_address[0], self.path, self.headers.get("Host")))
            sys.stdout.flush()
        if MODE == "portal":
            self.reply(302, ("<a href='%s'>log in</a>" % LOCATION).encode(), [("Location", LOCATION)])
        elif self.path == "/generate_204":
            self.reply(204, b"")
        elif self.path == "/ok":
            self.reply(200, ("<html>%s</html>" % OK_TEXT).encode())
        else:
            self.reply(404, b"not here")

    def reply(self, code, body, headers=()):
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        if code != 204:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if code != 204:
            self.wfile.write(body)

    def log_message(self, *args):
        pass

class Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # IPv4 too
        super().server_bind()

for port in sys.argv[4:]:
    server = Server(("::", int(port)), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
print("listening", flush=True)
sys.stdin.read()  # until the test closes our stdin or ends
