#!/usr/bin/env python3
"""`make bench`, the watch part: `reach watch` beside `ip monitor` in one run.

In a private network namespace (rch-watch-bench-PID: a veth pair v0/v1, 198.18.0.2/24 on v0,
a default route via 198.18.0.1; no packet is sent anywhere):

  latency   50 carrier changes (v1 down / up, which take v0's carrier): the time from writing
            the change to a long-lived `ip -batch -` to the line on each tool's stdout that
            reports it: `reach watch -4`'s verdict line (not reachable / reachable via) and
            `ip monitor link dev v0`'s line for v0 with NO-CARRIER / LOWER_UP (not v1's own
            event, which comes first); both tools run at once, each on its own pipe. Median,
            90th percentile and the paired difference per change with its 95% interval
            (scripts/benchlib.py). Target: the whole interval at most 1 ms.
  idle      10 s with nothing changing: voluntary + involuntary context switches over all of
            reach's threads, and CPU time (schedstat). Target: zero wake-ups.
  flaps     1000 down/up flaps: resident memory growth (target < 1 MiB) and open file
            descriptors (target: no growth).
Exit: 0 every target met, 1 one missed, 77 skipped (not root), 2 the benchmark failed.
Environment: REACH (default .build/release/reach), CHANGES (50), FLAPS (1000), IDLE (10).
"""
import os
import re
import statistics
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

REACH = os.environ.get("REACH", ".build/release/reach")
CHANGES = int(os.environ.get("CHANGES", "50"))
FLAPS = int(os.environ.get("FLAPS", "1000"))
IDLE = float(os.environ.get("IDLE", "10"))
NS = f"rch-watch-bench-{os.getpid()}"


def ip(*words):
    subprocess.run(["ip", "-n", NS, *words], check=True)


class Lines:
    """A child's stdout, read on a thread, each line stamped (monotonic ns) as it arrives."""

    def __init__(self, argv):
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        self.lines = []
        self.lock = threading.Lock()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        pending = b""
        fd = self.process.stdout.fileno()
        while True:
            chunk = os.read(fd, 65536)
            now = time.monotonic_ns()
            if not chunk:
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                with self.lock:
                    self.lines.append((now, line.decode(errors="replace")))

    def first_after(self, start, pattern=".", timeout=2.0):
        """The first line at or after `start` that `pattern` (a regular expression) finds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                for stamp, line in self.lines:
                    if stamp >= start and re.search(pattern, line):
                        return stamp, line
            time.sleep(0.0005)
        return None

    def count(self):
        with self.lock:
            return len(self.lines)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=5)


def tasks(pid):
    return [f"/proc/{pid}/task/{task}" for task in os.listdir(f"/proc/{pid}/task")]


def switches(pid):
    total = 0
    for task in tasks(pid):
        for line in open(f"{task}/status"):
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total


def cpu_ns(pid):
    return sum(int(open(f"{task}/schedstat").read().split()[0]) for task in tasks(pid))


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    report = benchlib.Report("bench-watch")
    benchlib.require_root(report, "network namespaces")
    if not os.access(REACH, os.X_OK):
        report.fail(f"{REACH} is missing; run: make build")
    subprocess.run(["ip", "netns", "add", NS], check=True)
    children = []
    try:
        # No IPv6 duplicate address detection: its late RTM_NEWADDR is a real change, not idle.
        subprocess.run(["ip", "netns", "exec", NS, "sysctl", "-q", "-w", "net.ipv6.conf.all.accept_dad=0",
                        "net.ipv6.conf.default.accept_dad=0"], check=True)
        ip("link", "set", "lo", "up")
        ip("link", "add", "v0", "type", "veth", "peer", "name", "v1")
        ip("link", "set", "v1", "up")
        ip("link", "set", "v0", "up")
        ip("addr", "add", "198.18.0.2/24", "dev", "v0")
        ip("route", "add", "default", "via", "198.18.0.1")
        time.sleep(0.2)

        reach = Lines(["ip", "netns", "exec", NS, REACH, "watch", "-4"])
        monitor = Lines(["ip", "-n", NS, "monitor", "link", "dev", "v0"])
        children += [reach, monitor]
        changer = subprocess.Popen(["ip", "-n", NS, "-batch", "-"], stdin=subprocess.PIPE, bufsize=0)
        if reach.first_after(0) is None:
            report.fail("reach watch printed nothing")
        pid = reach.process.pid  # `ip netns exec` execs reach: this is reach's pid
        time.sleep(0.3)

        reach_ms, monitor_ms = [], []
        for index in range(CHANGES):
            state = "down" if index % 2 == 0 else "up"
            start = time.monotonic_ns()
            changer.stdin.write(f"link set v1 {state}\n".encode())
            # The line each tool prints for v0's carrier: reach's verdict, ip's v0 line.
            got_reach = reach.first_after(start, "not reachable" if state == "down" else "reachable via")
            got_monitor = monitor.first_after(start, r"^\d+: v0@v1: <" + ("NO-CARRIER," if state == "down" else r"[^>]*LOWER_UP"))
            if got_reach is None or got_monitor is None:
                report.fail(f"no line for change {index} (reach {got_reach}, ip monitor {got_monitor})")
            reach_ms.append((got_reach[0] - start) / 1e6)
            monitor_ms.append((got_monitor[0] - start) / 1e6)
            time.sleep(0.05)
        if CHANGES % 2:
            changer.stdin.write(b"link set v1 up\n")
        time.sleep(1.0)

        before = (switches(pid), cpu_ns(pid))
        time.sleep(IDLE)
        after = (switches(pid), cpu_ns(pid))

        rss_before, fds_before, lines_before = rss_kib(pid), fds(pid), reach.count()
        for _ in range(FLAPS):
            changer.stdin.write(b"link set v1 down\n")
            time.sleep(0.001)
            changer.stdin.write(b"link set v1 up\n")
            time.sleep(0.001)
        time.sleep(1.0)
        rss_after, fds_after, lines_after = rss_kib(pid), fds(pid), reach.count()
        changer.stdin.close()
        changer.wait(timeout=10)

        median_reach, median_monitor = statistics.median(reach_ms), statistics.median(monitor_ms)
        report.line(f"watch latency, change to line on stdout, median of {CHANGES} (90th percentile):")
        report.line(f"  reach watch -4         {median_reach:7.3f} ms ({percentile(reach_ms, 0.9):.3f})")
        report.line(f"  ip monitor link dev v0 {median_monitor:7.3f} ms ({percentile(monitor_ms, 0.9):.3f})")
        difference = benchlib.difference_interval(reach_ms, monitor_ms)
        report.line(f"  reach - ip monitor, paired per change: {difference.format('+.3f', ' ms')}")
        report.beside("reach prints a verdict (it asks for the route and the link's facts); ip prints the kernel's message")
        report.target("watch latency <= ip monitor + 1 ms", benchlib.at_most(difference, 1.0), f"at most {difference.high:+.3f} ms")
        wakeups, cpu = after[0] - before[0], (after[1] - before[1]) / 1e6
        report.line(f"watch idle {IDLE:g} s: {wakeups} context switches, {cpu:.3f} ms CPU")
        report.target("watch idle: no wake-up", wakeups == 0, f"{wakeups} context switches")
        growth = rss_after - rss_before
        report.line(f"watch after {FLAPS} flaps ({lines_after - lines_before} lines): RSS {rss_before} -> {rss_after} KiB "
                    f"({growth:+d} KiB), fds {fds_before} -> {fds_after}")
        report.target(f"watch after {FLAPS} flaps: RSS growth < 1024 KiB", growth < 1024, f"{growth:+d} KiB")
        report.target(f"watch after {FLAPS} flaps: no descriptor more", fds_after <= fds_before, f"{fds_before} -> {fds_after}")
        return report.finish()
    finally:
        for child in children:
            try:
                child.stop()
            except Exception:
                child.process.kill()
        subprocess.run(["ip", "netns", "delete", NS], check=False)


if __name__ == "__main__":
    sys.exit(benchlib.main(main))
