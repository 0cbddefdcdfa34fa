#!/usr/bin/env python3
"""`make bench`, continuous probes: reach-exporter beside smokeping_prober 0.6.1 (root).

Builds two namespaces: a client, and a far end that owns 198.18.64.0/18 (a `local` route) with
the kernel's echo answers off (net.ipv4.icmp_echo_ignore_all) and scripts/smokeping-responder.c
answering every echo request after holding it HOLD_MS (21 ms), recording the hold it applied
(from the request's kernel receive stamp to the reply's sendto). Each exporter runs alone in
the client namespace, on a file of `targets:` at a 1 s interval, scraped at SETTLE seconds and
again SECONDS later; CPU is the exporter's user+system time between the two scrapes
(/proc/PID/stat), peak memory its VmHWM.

1. 1,000 targets at 1 s, smokeping_prober then reach-exporter: targets reach's CPU at most
   0.1x smokeping_prober's, reach's peak RSS at most its; for reach, every target counted in
   every interval (requests and responses each up by at least SECONDS - 1) and the mean round
   trip within 0.5 ms of the mean hold the responder recorded. smokeping_prober's figures are
   printed beside.
2. 10,000 targets at 1 s, reach-exporter: every target counted every interval, the mean
   round trip within 0.5 ms of the recorded hold.
3. Exact loss: 1,000 targets at 1 s, the responder dropping every fifth request of each
   address: for every target, responses = requests - dropped within one in flight, the
   drops being the 1st, 6th, 11th... request.
Environment: EXPORTER (.build-exporter/release/reach-exporter, as make bench passes it), SMOKEPING_PROBER
(.build/smokeping/usr/bin/prometheus-smokeping-prober), SECONDS (60), SETTLE (10), HOLD_MS (21),
PARTS ("1,2,3").
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPORTER = os.path.abspath(os.environ.get("EXPORTER", f"{ROOT}/.build-exporter/release/reach-exporter"))
SMOKEPING = os.environ.get("SMOKEPING_PROBER", f"{ROOT}/.build/smokeping/usr/bin/prometheus-smokeping-prober")
SECONDS = int(os.environ.get("SECONDS", "60"))
SETTLE = int(os.environ.get("SETTLE", "10"))
HOLD_MS = float(os.environ.get("HOLD_MS", "21"))
PARTS = os.environ.get("PARTS", "1,2,3").split(",")
NS = f"rch-bench-smoke-{os.getpid()}"
SAMPLE = re.compile(r'^(smokeping_\w+)\{host="([^"]*)",ip="[^"]*"(?:,le="[^"]*")?\} (\S+)$')


def sh(*argv):
    subprocess.run(argv, check=True, capture_output=True)


def in_client(argv):
    return ["ip", "netns", "exec", f"{NS}-c"] + argv


def build_namespaces():
    for side in "cf":
        sh("ip", "netns", "add", f"{NS}-{side}")
        sh("ip", "-n", f"{NS}-{side}", "link", "set", "lo", "up")
    sh("ip", "link", "add", "c0", "netns", f"{NS}-c", "type", "veth", "peer", "name", "f0", "netns", f"{NS}-f")
    sh("ip", "-n", f"{NS}-c", "addr", "add", "198.18.0.2/24", "dev", "c0")
    sh("ip", "-n", f"{NS}-f", "addr", "add", "198.18.0.1/24", "dev", "f0")
    for side, link in (("c", "c0"), ("f", "f0")):
        sh("ip", "-n", f"{NS}-{side}", "link", "set", link, "up")
    sh("ip", "-n", f"{NS}-c", "route", "add", "198.18.64.0/18", "via", "198.18.0.1")
    # The far end owns every address of 198.18.64.0/18 (AnyIP), and the kernel answers no echo.
    sh("ip", "-n", f"{NS}-f", "route", "add", "local", "198.18.64.0/18", "dev", "lo")
    sh("ip", "netns", "exec", f"{NS}-f", "sysctl", "-qw", "net.ipv4.icmp_echo_ignore_all=1")


def remove_namespaces():
    for side in "cf":
        subprocess.run(["ip", "netns", "delete", f"{NS}-{side}"], capture_output=True)


def addresses(count):
    return [f"198.18.{64 + i // 250}.{i % 250 + 1}" for i in range(count)]


class Responder:
    """The far end for one run; `report()` stops it and reads what it held."""

    def __init__(self, binary, scratch, drop_every=0):
        self.path = f"{scratch}/responder-{time.monotonic_ns()}"
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", f"{NS}-f", binary, str(int(HOLD_MS * 1000)), str(drop_every), self.path],
            stdout=subprocess.PIPE, text=True)
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("the responder did not start")

    def report(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        with open(self.path) as file:
            return {key: int(value) for key, value in (pair.split("=") for pair in file.read().split())}


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_kib(pid):
    return next(int(line.split()[1]) for line in open(f"/proc/{pid}/status") if line.startswith("VmHWM:"))


def measure(argv, port, scratch, drop_every=0, binary=None):
    """One exporter's run: its CPU seconds and peak RSS over the window, the two scrapes, and
    the responder's report."""
    responder = Responder(binary, scratch, drop_every)
    log = open(f"{scratch}/exporter-{port}.log", "w")
    process = subprocess.Popen(in_client(argv), stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, process, log.name)
        time.sleep(SETTLE)
        first, cpu_first = scrape_in_client(port), cpu_seconds(process.pid)
        time.sleep(SECONDS)
        last, cpu_last = scrape_in_client(port), cpu_seconds(process.pid)
        rss = peak_rss_kib(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)
        held = responder.report()
    return {"cpu": cpu_last - cpu_first, "rss": rss, "first": first, "last": last, "held": held}


def wait_for_port(port, process, log_path):
    """Until the exporter serves (smokeping_prober starts its pingers one by one first)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[4]} exited: {open(log_path).read()[-2000:]}")
        probe = subprocess.run(in_client(["python3", "-c", SCRAPER, str(port)]), capture_output=True)
        if probe.returncode == 0:
            return
        time.sleep(0.5)
    raise RuntimeError(f"nothing serves port {port}: {open(log_path).read()[-2000:]}")


def scrape_in_client(port):
    """A scrape from inside the client namespace (the exporters listen there)."""
    output = subprocess.run(in_client(["python3", "-c", SCRAPER, str(port)]), check=True, capture_output=True, text=True).stdout
    series = {}
    for line in output.splitlines():
        match = SAMPLE.match(line)
        if match and ',le="' not in line:
            series.setdefault(match.group(2), {})[match.group(1)] = float(match.group(3))
    return series


SCRAPER = "import sys,urllib.request;print(urllib.request.urlopen(f'http://127.0.0.1:{sys.argv[1]}/metrics',timeout=30).read().decode())"


def accuracy(run, count):
    """Targets counted every interval, and the mean round trip less the mean hold, in ms."""
    first, last = run["first"], run["last"]
    short = 0
    requests = responses = total = 0.0
    for host in addresses(count):
        before, after = first.get(host, {}), last.get(host, {})
        sent = after.get("smokeping_requests_total", 0) - before.get("smokeping_requests_total", 0)
        answered = after.get("smokeping_response_duration_seconds_count", 0) - before.get("smokeping_response_duration_seconds_count", 0)
        total += after.get("smokeping_response_duration_seconds_sum", 0) - before.get("smokeping_response_duration_seconds_sum", 0)
        requests += sent
        responses += answered
        if sent < SECONDS - 1 or answered < SECONDS - 1:
            short += 1
    mean_ms = total / responses * 1000 if responses else float("inf")
    return short, mean_ms - run["held"]["hold_mean_ns"] / 1e6, mean_ms


def write_targets(scratch, count):
    path = f"{scratch}/targets-{count}.yml"
    with open(path, "w") as file:
        file.write("targets:\n- interval: 1s\n  hosts:\n" + "".join(f"  - {host}\n" for host in addresses(count)))
    return path


def part_side_by_side(report, scratch, binary):
    targets = write_targets(scratch, 1000)
    theirs = measure([SMOKEPING, f"--config.file={targets}", "--web.listen-address=127.0.0.1:19374", "--privileged"],
                     19374, scratch, binary=binary)
    mine = measure([EXPORTER, "--smokeping", f"--config.file={targets}", "--listen", "127.0.0.1:19375"], 19375, scratch, binary=binary)
    short, off, mean = accuracy(mine, 1000)
    their_short, their_off, their_mean = accuracy(theirs, 1000)
    report.line(f"1,000 targets at 1 s for {SECONDS} s: reach-exporter CPU {mine['cpu']:.2f} s, peak RSS {mine['rss']} KiB, "
                f"mean round trip {mean:.3f} ms; smokeping_prober CPU {theirs['cpu']:.2f} s, peak RSS {theirs['rss']} KiB, "
                f"mean round trip {their_mean:.3f} ms, {their_short} targets short of an answer an interval")
    report.target("1,000 targets: reach CPU <= 0.1x smokeping_prober's", mine["cpu"] <= 0.1 * theirs["cpu"],
                  f"{mine['cpu'] / max(theirs['cpu'], 1e-9):.3f}x")
    report.target("1,000 targets: reach peak RSS <= smokeping_prober's", mine["rss"] <= theirs["rss"],
                  f"{mine['rss']} KiB beside {theirs['rss']} KiB")
    report.target("1,000 targets: every target counted every interval", short == 0, f"{short} short")
    report.target("1,000 targets: mean round trip within 0.5 ms of the hold", abs(off) <= 0.5, f"{off:+.3f} ms")


def part_ten_thousand(report, scratch, binary):
    targets = write_targets(scratch, 10000)
    mine = measure([EXPORTER, "--smokeping", f"--config.file={targets}", "--listen", "127.0.0.1:19376"], 19376, scratch, binary=binary)
    short, off, mean = accuracy(mine, 10000)
    report.line(f"10,000 targets at 1 s for {SECONDS} s: reach-exporter CPU {mine['cpu']:.2f} s "
                f"({mine['cpu'] / SECONDS * 100:.1f}% of a core), peak RSS {mine['rss']} KiB, mean round trip {mean:.3f} ms")
    report.target("10,000 targets: every target counted every interval", short == 0, f"{short} short")
    report.target("10,000 targets: mean round trip within 0.5 ms of the hold", abs(off) <= 0.5, f"{off:+.3f} ms")


def part_loss(report, scratch, binary):
    targets = write_targets(scratch, 1000)
    mine = measure([EXPORTER, "--smokeping", f"--config.file={targets}", "--listen", "127.0.0.1:19377"], 19377, scratch,
                   drop_every=5, binary=binary)
    wrong = 0
    for host in addresses(1000):
        counts = mine["last"].get(host, {})
        requests = int(counts.get("smokeping_requests_total", 0))
        answered = int(counts.get("smokeping_response_duration_seconds_count", 0))
        expected = requests - (requests + 4) // 5
        if not expected - 1 <= answered <= expected:
            wrong += 1
    report.line(f"loss: the responder dropped {mine['held']['dropped']} of {mine['held']['requests']} requests")
    report.target("loss exact per target (within one in flight)", wrong == 0, f"{wrong} of 1,000 targets off")


def main():
    report = benchlib.Report("bench-smokeping")
    benchlib.require_root(report, "namespaces")
    for tool in ("ip", "cc"):
        if not shutil.which(tool):
            report.fail(f"{tool} missing (scripts/install-deps.sh test)")
    for binary in (EXPORTER, SMOKEPING):
        if not os.access(binary, os.X_OK):
            report.fail(f"no {binary} (make build; scripts/install-deps.sh test)")
    scratch = tempfile.mkdtemp(prefix="rch-bench-smoke.")
    responder = f"{scratch}/smokeping-responder"
    subprocess.run(["cc", "-O2", "-o", responder, f"{ROOT}/scripts/smokeping-responder.c"], check=True)
    build_namespaces()
    try:
        if "1" in PARTS:
            part_side_by_side(report, scratch, responder)
        if "2" in PARTS:
            part_ten_thousand(report, scratch, responder)
        if "3" in PARTS:
            part_loss(report, scratch, responder)
    finally:
        remove_namespaces()
        shutil.rmtree(scratch, ignore_errors=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(benchlib.main(main))
