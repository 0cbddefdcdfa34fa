"""An OAuth 2.0 token endpoint (RFC 6749, 4.4: client credentials) and a resource behind it.

    python3 oauth2-server.py ADDRESS PORT

POST /token with HTTP Basic "reach:s3cret" (RFC 6749, 2.3.1), grant_type
client_credentials, scope "probe read" and audience=lab answers a bearer token; anything
else 401. GET /resource answers 200 to that token, 401 to anything else.
Prints `listening` when ready and `served METHOD PATH` for each request.
"""
import base64, http.server, json, socket, sys, urllib.parse

TOKEN = "tok-7Yq"


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, status, body=b"", kind="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        print("served POST", self.path, flush=True)
        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode())
        basic = "Basic " + base64.b64encode(b"reach:s3cret").decode()
        good = (self.path == "/token" and self.headers.get("Authorization") == basic
                and form == {"grant_type": ["client_credentials"], "scope": ["probe read"], "audience": ["lab"]})
        if good:
            self.answer(200, json.dumps({"access_token": TOKEN, "token_type": "bearer", "expires_in": 60}).encode(), "application/json")
        else:
            self.answer(401, b'{"error": "invalid_client"}', "application/json")

    def do_GET(self):
        print("served GET", self.path, flush=True)
        self.answer(200 if self.headers.get("Authorization") == "Bearer " + TOKEN else 401, b"resource\n")

    def log_message(self, *arguments):
        pass


class Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET


server = Server((sys.argv[1], int(sys.argv[2])), Handler)
print("listening", flush=True)
server.serve_forever()
