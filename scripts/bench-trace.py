#!/usr/bin/env python3
"""`make bench`, trace: reach trace beside traceroute 2.1.2 and mtr 0.95 (root), through
scripts/benchlib.py.

Five namespaces in a row (rch-bench-trace-PID-c, -r1, -r2, -r3, -f: a client, three routers,
a far host four hops away; 198.18.N.0/24 links), r2 silent (nftables drops the time exceeded
it sends), ICMP errors without rate limit; the measuring runs inside the client, both tools
writing to the same pipe, taking turns ABBA after the same warm-up.
  1. One pass to the far host: `reach trace -n -w 5,3,10` beside `traceroute -n -N 16
     -w 5,3,10` (traceroute's default waits, said alike), PASSES pairs: the paired ratio of
     wall times. Target: at most 1 over the whole interval; every run printed four hop lines,
     hop 2 all stars, hop 4 the far host.
  2. mtr's report: `reach trace -n --report -c 10 --interval I` beside `mtr -r -n -c 10 -i I`
     (the same interval), REPORTS pairs: the paired ratio of wall times. Target: at most 1 over
     the whole interval; every report listed four hops, hop 2 `???`.
Environment: REACH (.build/release/reach), PASSES (10), REPORTS (5), INTERVAL (0.2).
"""
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

REACH = os.path.abspath(os.environ.get("REACH", ".build/release/reach"))
PASSES = int(os.environ.get("PASSES", "10"))
REPORTS = int(os.environ.get("REPORTS", "5"))
INTERVAL = os.environ.get("INTERVAL", "0.2")
NS = f"rch-bench-trace-{os.getpid()}"
CHAIN = ["c", "r1", "r2", "r3", "f"]
FAR = "198.18.3.2"


def pass_lines(run):
    """The hop lines of a traceroute-style run: four, hop 2 stars, hop 4 the far host."""
    hops = [line for line in run.text.splitlines() if line[:3].strip().isdigit()]
    if len(hops) != 4 or hops[1].split()[1:] != ["*", "*", "*"] or FAR not in hops[3]:
        raise ValueError(f"{run.argv[0]}: unexpected hops {hops!r}")
    return run


def report_lines(run):
    """The rows of an mtr-style report: four hops, hop 2 ???."""
    rows = [line for line in run.text.splitlines() if ".|-- " in line]
    if len(rows) != 4 or "???" not in rows[1] or FAR not in rows[3]:
        raise ValueError(f"{run.argv[0]}: unexpected report {rows!r}")
    return run


def inside(report):
    benchlib.set_timer_slack()
    waits = ["-w", "5,3,10"]
    one = benchlib.alternate({
        "reach": lambda: pass_lines(benchlib.run([REACH, "trace", "-n"] + waits + [FAR])),
        "traceroute": lambda: pass_lines(benchlib.run(["traceroute", "-n", "-N", "16"] + waits + [FAR])),
    }, PASSES)
    ratio = benchlib.ratio_interval([r.wall_ms for r in one["reach"]], [r.wall_ms for r in one["traceroute"]])
    report.line(f"1. one pass, four hops, hop 2 silent, {PASSES} pairs: median reach "
                f"{statistics.median(r.wall_ms for r in one['reach']):.1f} ms, traceroute -N 16 "
                f"{statistics.median(r.wall_ms for r in one['traceroute']):.1f} ms; paired ratio {ratio.format('.3f')}")
    report.beside("reach also asks the kernel for hop 0 (a route lookup) before its first probe")
    report.target("one pass <= traceroute -N 16", benchlib.at_most(ratio, 1.0), f"ratio at most {ratio.high:.3f}")

    rounds = ["-c", "10"]
    reports = benchlib.alternate({
        "reach": lambda: report_lines(benchlib.run([REACH, "trace", "-n", "--report"] + rounds + ["--interval", INTERVAL, FAR])),
        "mtr": lambda: report_lines(benchlib.run(["mtr", "-r", "-n"] + rounds + ["-i", INTERVAL, FAR])),
    }, REPORTS)
    ratio = benchlib.ratio_interval([r.wall_ms for r in reports["reach"]], [r.wall_ms for r in reports["mtr"]])
    report.line(f"2. --report -c 10, {INTERVAL} s apart, {REPORTS} pairs: median reach "
                f"{statistics.median(r.wall_ms for r in reports['reach']):.1f} ms, mtr -r "
                f"{statistics.median(r.wall_ms for r in reports['mtr']):.1f} ms; paired ratio {ratio.format('.3f')}")
    report.beside("mtr waits its grace time (5 s) for late answers after the last round; reach ends when the last round settles")
    report.target("--report -c 10 <= mtr -r -c 10", benchlib.at_most(ratio, 1.0), f"ratio at most {ratio.high:.3f}")
    return report.finish()


def netns(name, *words):
    subprocess.run(["ip", "netns", "exec", f"{NS}-{name}"] + list(words), check=True, capture_output=True)


def build():
    for name in CHAIN:
        subprocess.run(["ip", "netns", "add", f"{NS}-{name}"], check=True)
        netns(name, "ip", "link", "set", "lo", "up")
        netns(name, "sysctl", "-qw", "net.ipv4.icmp_ratelimit=0", "net.ipv4.icmp_msgs_per_sec=100000",
              "net.ipv4.icmp_msgs_burst=100000", "net.ipv4.ip_forward=1")
    for n in range(4):
        left, right = CHAIN[n], CHAIN[n + 1]
        subprocess.run(["ip", "link", "add", f"e{n}r", "netns", f"{NS}-{left}", "type", "veth", "peer", f"e{n}l",
                        "netns", f"{NS}-{right}"], check=True)
        netns(left, "ip", "addr", "add", f"198.18.{n}.{2 if n == 0 else 1}/24", "dev", f"e{n}r")
        netns(right, "ip", "addr", "add", f"198.18.{n}.{1 if n == 0 else 2}/24", "dev", f"e{n}l")
        netns(left, "ip", "link", "set", f"e{n}r", "up")
        netns(right, "ip", "link", "set", f"e{n}l", "up")
    netns("c", "ip", "route", "add", "default", "via", "198.18.0.1")
    netns("f", "ip", "route", "add", "default", "via", "198.18.3.1")
    for n, name in ((1, "r1"), (2, "r2"), (3, "r3")):
        if n < 3:
            netns(name, "ip", "route", "add", "198.18.3.0/24", "via", f"198.18.{n}.2")
            if n == 1:
                netns(name, "ip", "route", "add", "198.18.2.0/24", "via", "198.18.1.2")
        if n > 1:
            netns(name, "ip", "route", "add", "198.18.0.0/24", "via", f"198.18.{n - 1}.1")
        if n == 3:
            netns(name, "ip", "route", "add", "198.18.1.0/24", "via", "198.18.2.1")
    rules = "table inet rchbench { chain output { type filter hook output priority 0; icmp type time-exceeded drop; }; }"
    subprocess.run(["ip", "netns", "exec", f"{NS}-r2", "nft", "-f", "-"], input=rules.encode(), check=True)
    for _ in range(50):
        if subprocess.run(["ip", "netns", "exec", f"{NS}-c", "ping", "-c1", "-W1", "-q", FAR], capture_output=True).returncode == 0:
            break
    for address in ("198.18.0.1", "198.18.1.2", "198.18.2.2"):
        subprocess.run(["ip", "netns", "exec", f"{NS}-c", "ping", "-c1", "-W1", "-q", address], capture_output=True)


def main():
    report = benchlib.Report("bench-trace")
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        return inside(report)
    benchlib.require_root(report, "namespaces")
    if not os.access(REACH, os.X_OK):
        report.fail(f"no {REACH} (make build)")
    for tool in ("traceroute", "mtr", "nft"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode != 0:
            report.skip(f"no {tool}")
    print("== reach trace beside traceroute 2.1.2 and mtr 0.95", flush=True)
    try:
        build()
        return subprocess.run(["ip", "netns", "exec", f"{NS}-c", sys.executable, os.path.abspath(__file__), "--inside"]).returncode
    finally:
        for name in CHAIN:
            subprocess.run(["ip", "netns", "delete", f"{NS}-{name}"], stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    sys.exit(benchlib.main(main))
