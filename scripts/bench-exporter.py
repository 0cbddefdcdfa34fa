#!/usr/bin/env python3
"""`make bench`, the exporter part: reach-exporter beside Debian's blackbox_exporter 0.23, prober by
prober, in one run (scripts/bench-exporter.sh builds the namespaces and starts the targets, then
runs this in the client namespace; PROBERS=dns,grpc chooses among icmp, tcp, tcp+tls, http, https,
dns and grpc).

Two private network namespaces (rch-bench-exp-PID-client and -far, a veth pair, 198.18.0.2/24 on
the client, 198.18.0.1/24 on far; traffic only between the two). The targets, started once in far
(this script's `serve` mode, but for dnsmasq and grpcio): the kernel answers ICMP echo; a banner
server on 2525 ("220 bench.test ready", then closed); the same over TLS on 2526; HTTP on 8080 and
HTTPS on 8443 (200, three bytes); the certificate (ECDSA P-256, for 198.18.0.1) from a CA made at
run time with the openssl command; dnsmasq on 53 (bench.test A 198.18.0.1); grpcio's health
service on 50051 (Tests/ReachIntegrationTests/Helpers/grpc-health-server.py).

For each prober, one blackbox.yml holding its one module, given unchanged to both exporters, run
fresh in the client namespace on loopback as root (ICMP over raw sockets for both):
  icmp     prober: icmp                                        198.18.0.1
  tcp      tcp: query_response: [expect: "^220 "]              198.18.0.1:2525
  tcp+tls  tcp: {tls: true, tls_config: {ca_file}}             198.18.0.1:2526
  http     prober: http                                        http://198.18.0.1:8080/
  https    http: {tls_config: {ca_file}}                       https://198.18.0.1:8443/
  dns      dns: {query_name: bench.test, query_type: A}        198.18.0.1
  grpc     grpc: {preferred_ip_protocol: ip4}                  198.18.0.1:50051
A module reach-exporter refuses at load (its --config.check) is said in one line and measured on
blackbox_exporter alone: no figure stands for reach there, and its target is missed.
Both exporters take WARMUP probes, then ROUNDS rounds of PROBES probes each, the exporter that goes
first alternating (ABBA, scripts/benchlib.py): /probe asked by CONCURRENCY client threads over
keep-alive connections, every answer read whole and discarded alike, and checked: a probe counts
only when the answer is 200 with probe_success 1 (else it is lost, so a failing prober cannot look
cheap).

Figures per prober and exporter: CPU seconds per 1,000 probes (utime + stime of the exporter's
process from /proc/PID/stat, before and after a round) and wall seconds per round, each the median
over the rounds with its range; the median probe_duration_seconds; peak RSS (VmHWM) over the
prober's whole run. Then reach / blackbox: CPU as the paired ratio over the rounds with its 95%
interval, peak RSS as a plain ratio. Targets per prober: reach's CPU per probe at most blackbox's
(the whole interval), peak RSS at most blackbox's, no probe lost by either exporter. And the
footprint: reach-exporter as `make install` and the .deb leave it (a stripped copy) at most
17.5 MB, beside the size of Debian's blackbox_exporter as installed.
Exit: 0 every target met, 1 one missed, 77 skipped (not root), 2 the benchmark failed.
Environment: EXPORTER (default .build-exporter/release/reach-exporter), PROBERS (all), PROBES
(1000), ROUNDS (5), WARMUP (200), CONCURRENCY (8).
"""
import http.client
import http.server
import os
import shutil
import socketserver
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

EXPORTER = os.environ.get("EXPORTER", ".build-exporter/release/reach-exporter")
PROBES = int(os.environ.get("PROBES", "1000"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))
WARMUP = int(os.environ.get("WARMUP", "200"))
CONCURRENCY = int(os.environ.get("CONCURRENCY", "8"))
FAR = "198.18.0.1"
PORTS = {"reach-exporter": 10115, "blackbox_exporter": 19115}
# name -> (the module's body under `bench:`, the target); {ca} is the run's CA certificate.
PROBERS = {
    "icmp": ("prober: icmp\n", FAR),
    "tcp": ("prober: tcp\n    tcp:\n      query_response:\n        - expect: \"^220 \"\n", f"{FAR}:2525"),
    "tcp+tls": ("prober: tcp\n    tcp:\n      tls: true\n      tls_config:\n        ca_file: {ca}\n", f"{FAR}:2526"),
    "http": ("prober: http\n", f"http://{FAR}:8080/"),
    "https": ("prober: http\n    http:\n      tls_config:\n        ca_file: {ca}\n", f"https://{FAR}:8443/"),
    "dns": ("prober: dns\n    dns:\n      query_name: bench.test\n      query_type: A\n", FAR),
    "grpc": ("prober: grpc\n    grpc:\n      preferred_ip_protocol: ip4\n", f"{FAR}:50051"),
}
BANNER = b"220 bench.test ready\r\n"


class Threading(socketserver.ThreadingMixIn):
    """A thread per connection, TLS (when a context is set) shaken hands on that thread."""

    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True
    context = None

    def finish_request(self, request, client_address):
        try:
            if self.context is not None:
                request = self.context.wrap_socket(request, server_side=True)
            super().finish_request(request, client_address)
        except OSError:
            pass

    def handle_error(self, request, client_address):
        pass


class BannerServer(Threading, socketserver.TCPServer):
    pass


class WebServer(Threading, http.server.HTTPServer):
    pass


class Banner(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.sendall(BANNER)


class Web(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"ok\n")

    def log_message(self, *arguments):
        pass


def serve(workdir):
    """The far namespace's TCP and HTTP targets, plain and TLS; prints "listening", serves until killed."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(f"{workdir}/server.crt", f"{workdir}/server.key")
    servers = []
    for kind, handler, port, tls in [(BannerServer, Banner, 2525, False), (BannerServer, Banner, 2526, True),
                                     (WebServer, Web, 8080, False), (WebServer, Web, 8443, True)]:
        server = kind((FAR, port), handler)
        server.context = context if tls else None
        servers.append(server)
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print("listening", flush=True)
    threading.Event().wait()


def load(port, module, target, count):
    """`count` probes through /probe, CONCURRENCY at a time; per probe (answered with
    probe_success 1, probe_duration_seconds), and the wall seconds."""
    path = f"/probe?module={module}&target={target}"
    jobs = iter(range(count))
    lock = threading.Lock()
    results = []

    def worker():
        connection = None
        while True:
            with lock:
                if next(jobs, None) is None:
                    return
            outcome = (False, None)
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
                connection.request("GET", path, headers={"X-Prometheus-Scrape-Timeout-Seconds": "5"})
                response = connection.getresponse()
                body = response.read().decode()
                success, duration = False, None
                for line in body.splitlines():
                    if line.startswith("probe_success "):
                        success = response.status == 200 and float(line.split()[1]) == 1
                    elif line.startswith("probe_duration_seconds "):
                        duration = float(line.split()[1])
                outcome = (success, duration)
            except (OSError, http.client.HTTPException):
                connection = None
            with lock:
                results.append(outcome)

    threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
    begin = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, time.monotonic() - begin


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def wait_port(port, process):
    for _ in range(200):
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited ({process.returncode}) before listening on {port}")
        if subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True).stdout.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def start(name, config):
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    if name == "reach-exporter":
        argv = [EXPORTER, "--listen", f"127.0.0.1:{PORTS[name]}", "--allow", "198.18.0.0/15", "--config", config]
    else:
        argv = ["prometheus-blackbox-exporter", f"--config.file={config}", f"--web.listen-address=127.0.0.1:{PORTS[name]}"]
    process = subprocess.Popen(argv, **quiet)
    wait_port(PORTS[name], process)
    return process


def refusal(config):
    """reach-exporter's one line when it refuses the file at load, else None."""
    check = subprocess.run([EXPORTER, "--allow", "198.18.0.0/15", "--config", config, "--config.check"],
                           capture_output=True, text=True)
    if check.returncode == 0:
        return None
    lines = [line for line in (check.stderr + check.stdout).splitlines() if line.strip()]
    return lines[-1] if lines else f"exit {check.returncode}"


def load_average():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def spread(values, spec):
    return f"{statistics.median(values):{spec}} ({min(values):{spec}}-{max(values):{spec}})"


def bench(report, prober, workdir):
    """One prober: both exporters fresh on its one module; figures and targets."""
    body, target = PROBERS[prober]
    module = "bench"
    config = f"{workdir}/{prober}.yml"
    with open(config, "w") as file:
        file.write(f"modules:\n  {module}:\n    {body.format(ca=f'{workdir}/ca.crt')}")
    refused = refusal(config)
    names = ["blackbox_exporter"] if refused else ["reach-exporter", "blackbox_exporter"]
    if refused:
        report.line(f"{prober:<8} reach-exporter refuses the module at load, measured on blackbox_exporter alone: {refused}")
    processes = {}
    try:
        for name in names:
            processes[name] = start(name, config)
        time.sleep(0.5)

        def measure(name):
            before = cpu_seconds(processes[name].pid)
            results, wall = load(PORTS[name], module, target, PROBES)
            answered = sum(1 for success, _ in results if success)
            return {"cpu": cpu_seconds(processes[name].pid) - before, "wall": wall, "answered": answered,
                    "durations": [duration for _, duration in results if duration is not None]}

        for name in names + names[::-1]:
            load(PORTS[name], module, target, WARMUP // 2)
        if len(names) == 2:
            rounds = benchlib.alternate({name: (lambda name=name: measure(name)) for name in names}, ROUNDS, warmup=0)
        else:
            rounds = {names[0]: [measure(names[0]) for _ in range(ROUNDS)]}
        rss = {name: peak_rss_mib(process.pid) for name, process in processes.items()}
    finally:
        for process in processes.values():
            process.terminate()
        for process in processes.values():
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    per_thousand, lost = {}, {}
    for name in names:
        outcomes = rounds[name]
        lost[name] = sum(PROBES - outcome["answered"] for outcome in outcomes)
        per_thousand[name] = [outcome["cpu"] / max(outcome["answered"], 1) * 1000 for outcome in outcomes]
        durations = [duration * 1000 for outcome in outcomes for duration in outcome["durations"]]
        report.line(f"{prober:<8} {name:<18} {spread(per_thousand[name], '.3f'):>22} {spread([o['wall'] for o in outcomes], '.2f'):>19} "
                    f"{statistics.median(durations) if durations else float('nan'):>9.3f} {rss[name]:>8.1f} {lost[name]:>5}")
    if refused:
        report.target(f"{prober}: reach-exporter runs the module", False, "refused at load")
        report.target(f"{prober}: no probe lost by blackbox_exporter", lost["blackbox_exporter"] == 0, f"{lost['blackbox_exporter']} lost")
        return
    cpu = benchlib.ratio_interval(per_thousand["reach-exporter"], per_thousand["blackbox_exporter"])
    rss_ratio = rss["reach-exporter"] / rss["blackbox_exporter"]
    report.line(f"{prober:<8} reach / blackbox: CPU per probe {cpu.format('.2f')}; peak RSS {rss_ratio:.2f}")
    report.target(f"{prober}: reach-exporter CPU per probe <= blackbox_exporter's", benchlib.at_most(cpu, 1.0),
                  f"{cpu.estimate:.2f} x, at most {cpu.high:.2f}")
    report.target(f"{prober}: reach-exporter peak RSS <= blackbox_exporter's", rss_ratio <= 1,
                  f"{rss['reach-exporter']:.1f} against {rss['blackbox_exporter']:.1f} MiB, {rss_ratio:.2f} x")
    report.target(f"{prober}: no probe lost by either exporter", lost["reach-exporter"] == 0 and lost["blackbox_exporter"] == 0,
                  f"reach-exporter {lost['reach-exporter']}, blackbox_exporter {lost['blackbox_exporter']}")


def footprint(report):
    """reach-exporter stripped, as installed, beside Debian's blackbox_exporter."""
    with tempfile.TemporaryDirectory() as work:
        copy = os.path.join(work, "reach-exporter")
        shutil.copyfile(EXPORTER, copy)
        subprocess.run(["strip", copy], check=True)
        size = os.path.getsize(copy)
    blackbox = os.path.getsize(shutil.which("prometheus-blackbox-exporter"))
    report.line(f"binary: reach-exporter {size / 1e6:.2f} MB stripped; blackbox_exporter {blackbox / 1e6:.2f} MB as Debian installs it")
    report.target("reach-exporter stripped <= 17.5 MB", size <= 17.5e6, f"{size / 1e6:.2f} MB")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        serve(sys.argv[2])
        return 0
    if len(sys.argv) != 3 or sys.argv[1] != "inside":
        sys.exit("usage: bench-exporter.py inside|serve WORKDIR (scripts/bench-exporter.sh runs it)")
    workdir = sys.argv[2]
    report = benchlib.Report("bench-exporter")
    chosen = [name.strip() for name in os.environ.get("PROBERS", ",".join(PROBERS)).split(",") if name.strip()]
    unknown = [name for name in chosen if name not in PROBERS]
    if unknown or not chosen:
        report.fail(f"PROBERS: unknown {', '.join(unknown) or '(none chosen)'}; choose among {', '.join(PROBERS)}")
    report.line(f"bench-exporter: per prober, {PROBES} probes a round, {ROUNDS} rounds ABBA after {WARMUP} each, "
                f"{CONCURRENCY} at a time; medians (range) over the rounds; load average {load_average()}")
    report.line(f"{'prober':<8} {'exporter':<18} {'CPU s / 1,000 probes':>22} {'wall s / round':>19} "
                f"{'probe ms':>9} {'RSS MiB':>8} {'lost':>5}")
    for prober in chosen:
        bench(report, prober, workdir)
    footprint(report)
    report.line(f"load average at the end: {load_average()}")
    return report.finish()


if __name__ == "__main__":
    sys.exit(benchlib.main(main))
