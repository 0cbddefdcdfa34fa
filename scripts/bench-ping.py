#!/usr/bin/env python3
"""`make bench`, ping: reach ping beside iputils ping (root), through scripts/benchlib.py.

Two namespaces (rch-bench-ping-PID-a and -b, a veth pair, 198.18.0.1 and .2); the measuring
runs inside -a; both tools write to the same pipe, take turns ABBA after the same warm-up.
  1. RTT on the veth: ten alternating pairs of runs of ECHOES/10 echoes, probes 50 ms apart
     (how long the CPU idled before a probe changes its RTT; iputils waits in recvmsg with
     SO_RCVTIMEO, whole jiffies, so below about 20 ms the two tools would not idle alike).
     The paired difference of the runs' median RTTs, with its 95% interval. Target: the whole
     interval within 10 us either way; every echo answered, every reply line parsed.
  2. FLOOD echoes (-f -q) on loopback, ROUNDS pairs: the paired ratio of wall times. Target:
     at most 1 over the whole interval; every run's summary says FLOOD sent, FLOOD received.
  3. Peak memory (maximum RSS, /usr/bin/time) of a flood run, median of RSS_RUNS each,
     alternating. Target: reach at most 2.5x.
Environment: REACH (.build/release/reach), ECHOES (200), FLOOD (10000), ROUNDS (30), RSS_RUNS (9).
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

REACH = os.path.abspath(os.environ.get("REACH", ".build/release/reach"))
ECHOES = int(os.environ.get("ECHOES", "200"))
FLOOD = int(os.environ.get("FLOOD", "10000"))
ROUNDS = int(os.environ.get("ROUNDS", "30"))
RSS_RUNS = int(os.environ.get("RSS_RUNS", "9"))
NS = f"rch-bench-ping-{os.getpid()}"


def rtts(run, expected):
    """The RTTs of a run's reply lines; a reply line without a parsable time= is an error."""
    times = []
    for line in run.text.splitlines():
        if " bytes from " not in line:
            continue
        match = re.search(r" time=([0-9.]+) ms$", line)
        if not match:
            raise ValueError(f"reply line does not parse: {line!r}")
        times.append(float(match.group(1)))
    if len(times) != expected:
        raise ValueError(f"{run.argv[0]}: {len(times)} replies of {expected}")
    return times


def flood_counts(run):
    match = re.search(r"^(\d+) packets transmitted, (\d+) received", run.text, re.MULTILINE)
    if not match:
        raise ValueError(f"{run.argv[0]}: no summary line in {run.text[-200:]!r}")
    return int(match.group(1)), int(match.group(2))


def inside(report):
    benchlib.set_timer_slack()
    tenth = ECHOES // 10
    rtt = benchlib.alternate({
        "reach": lambda: statistics.median(rtts(benchlib.run([REACH, "ping", "-c", str(tenth), "-i", "0.05", "198.18.0.2"]), tenth)),
        "iputils": lambda: statistics.median(rtts(benchlib.run(["ping", "-c", str(tenth), "-i", "0.05", "198.18.0.2"]), tenth)),
    }, 10)
    difference = benchlib.difference_interval([x * 1000 for x in rtt["reach"]], [x * 1000 for x in rtt["iputils"]])
    report.line(f"1. median RTT, veth, 10 pairs of {tenth} echoes 50 ms apart: reach {statistics.median(rtt['reach']):.3f} ms, "
                f"iputils {statistics.median(rtt['iputils']):.3f} ms; paired difference {difference.format('+.1f', ' us')}")
    report.beside("both wait with 1 us timer slack (reach sets it; iputils inherits the harness's)")
    report.target("RTT within 10 us of iputils", -10 <= difference.low and difference.high <= 10,
                  f"interval {difference.low:+.1f} to {difference.high:+.1f} us")

    flood = benchlib.alternate({
        "reach": lambda: benchlib.run([REACH, "ping", "-f", "-q", "-c", str(FLOOD), "127.0.0.1"]),
        "iputils": lambda: benchlib.run(["ping", "-f", "-q", "-c", str(FLOOD), "127.0.0.1"]),
    }, ROUNDS)
    ratio = benchlib.ratio_interval([r.wall_ms for r in flood["reach"]], [r.wall_ms for r in flood["iputils"]])
    counts = {tool: [flood_counts(r) for r in runs] for tool, runs in flood.items()}
    short = sum(1 for runs in counts.values() for sent, received in runs if (sent, received) != (FLOOD, FLOOD))
    report.line(f"2. flood -c {FLOOD} on loopback, {ROUNDS} pairs: median reach {statistics.median(r.wall_ms for r in flood['reach']):.1f} ms, "
                f"iputils {statistics.median(r.wall_ms for r in flood['iputils']):.1f} ms; paired ratio {ratio.format('.3f')}; "
                f"bests {min(r.wall_ms for r in flood['reach']):.1f} / {min(r.wall_ms for r in flood['iputils']):.1f} ms")
    report.beside("both with 1 us timer slack; output of both to the same pipe")
    report.target("flood wall <= iputils", benchlib.at_most(ratio, 1.0), f"ratio at most {ratio.high:.3f}")
    report.target(f"flood: every run sent and received {FLOOD}", short == 0, f"{short} runs short")

    scratch = tempfile.mktemp(prefix="rch-bench-ping-rss.")
    rss = benchlib.alternate({
        "reach": lambda: benchlib.peak_rss_kib([REACH, "ping", "-f", "-q", "-c", str(FLOOD), "127.0.0.1"], scratch)[0],
        "iputils": lambda: benchlib.peak_rss_kib(["ping", "-f", "-q", "-c", str(FLOOD), "127.0.0.1"], scratch)[0],
    }, RSS_RUNS, warmup=0)
    os.unlink(scratch)
    memory = statistics.median(rss["reach"]) / statistics.median(rss["iputils"])
    report.line(f"3. peak memory (max RSS, median of {RSS_RUNS}): reach {statistics.median(rss['reach']) / 1024:.1f} MiB, "
                f"iputils {statistics.median(rss['iputils']) / 1024:.1f} MiB, ratio {memory:.2f}")
    report.target("peak memory <= 2.5 x iputils", memory <= 2.5, f"{memory:.2f} x")
    return report.finish()


def main():
    report = benchlib.Report("bench-ping")
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        return inside(report)
    benchlib.require_root(report, "namespaces, flood")
    if not os.access(REACH, os.X_OK):
        report.fail(f"no {REACH} (make build)")
    version = subprocess.run(["ping", "-V"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"== reach ping beside iputils ping ({version})", flush=True)
    try:
        for side in ("a", "b"):
            subprocess.run(["ip", "netns", "add", f"{NS}-{side}"], check=True)
            subprocess.run(["ip", "-n", f"{NS}-{side}", "link", "set", "lo", "up"], check=True)
        subprocess.run(["ip", "link", "add", "v0", "netns", f"{NS}-a", "type", "veth", "peer", "name", "v1", "netns", f"{NS}-b"],
                       check=True)
        for side, link, address in (("a", "v0", "198.18.0.1/24"), ("b", "v1", "198.18.0.2/24")):
            subprocess.run(["ip", "-n", f"{NS}-{side}", "addr", "add", address, "dev", link], check=True)
            subprocess.run(["ip", "-n", f"{NS}-{side}", "link", "set", link, "up"], check=True)
        for _ in range(50):
            if subprocess.run(["ip", "netns", "exec", f"{NS}-a", "ping", "-c1", "-W1", "-q", "198.18.0.2"],
                              capture_output=True).returncode == 0:
                break
        return subprocess.run(["ip", "netns", "exec", f"{NS}-a", sys.executable, os.path.abspath(__file__), "--inside"]).returncode
    finally:
        for side in ("a", "b"):
            subprocess.run(["ip", "netns", "delete", f"{NS}-{side}"], stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    sys.exit(benchlib.main(main))
