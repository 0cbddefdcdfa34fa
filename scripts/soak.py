#!/usr/bin/env python3
"""`make soak`: reach running for long, bounded, with figures. Root (a private namespace,
rch-harden-soak-PID; loopback and a veth pair only, no packet leaves it).

  watch  `reach watch -4 --json` through FLAPS (10,000) carrier flaps of its link (v1 down,
         then up, which take v0's carrier), each change waited for: exactly one line per
         change (none lost, none duplicated, states alternating); resident memory and open
         descriptors after 100 warm-up flaps (a tenth of fewer) and at the end: growth under 1 MiB, no fd growth.
  ping   `reach ping -f -q -c ECHOES` (200,000) to the namespace's loopback: every echo
         answered once (no loss, no duplicate); memory and descriptors sampled every 20 ms
         while it runs: the last sample against the one 40% into the run, once the table of the
         last 65,536 probes (a ring, about 2.5 MiB) is full.
Environment: REACH (default .build/release/reach), FLAPS, ECHOES. Exit 1 if a target is missed.
"""
import json, os, subprocess, sys, threading, time

REACH = os.environ.get("REACH", ".build/release/reach")
FLAPS = int(os.environ.get("FLAPS", "10000"))
ECHOES = int(os.environ.get("ECHOES", "200000"))
NS = f"rch-harden-soak-{os.getpid()}"


def ip(*words):
    subprocess.run(["ip", "-n", NS, *words], check=True)


def status_field(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class Lines:
    """reach watch's stdout, read on a thread."""

    def __init__(self, argv):
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.lines = []
        self.condition = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        pending = b""
        while True:
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                with self.condition:
                    self.lines.append(json.loads(line))
                    self.condition.notify_all()

    def wait_for(self, count, timeout=2.0):
        with self.condition:
            return self.condition.wait_for(lambda: len(self.lines) >= count, timeout)


def verdict(met):
    return "met" if met else "NOT met"


def soak_watch():
    reach = Lines(["ip", "netns", "exec", NS, REACH, "watch", "-4", "--json"])
    pid = reach.process.pid  # ip netns exec execs reach
    changer = subprocess.Popen(["ip", "-n", NS, "-batch", "-"], stdin=subprocess.PIPE, bufsize=0)
    if not reach.wait_for(1):
        raise SystemExit("soak: reach watch printed nothing")
    started = time.monotonic()
    lost = []
    rss_before = fds_before = None
    warm_up = min(100, FLAPS // 10)
    for flap in range(FLAPS):
        if flap == warm_up:
            time.sleep(0.2)
            rss_before, fds_before = status_field(pid, "VmRSS"), fds(pid)
        for state in ("down", "up"):
            expected = len(reach.lines) + 1
            changer.stdin.write(f"link set v1 {state}\n".encode())
            if not reach.wait_for(expected):
                lost.append(f"flap {flap} {state}")
                if len(lost) > 10:
                    raise SystemExit(f"soak: watch lost changes: {lost}")
    time.sleep(1.0)  # a duplicate would arrive now
    elapsed = time.monotonic() - started
    rss_after, fds_after = status_field(pid, "VmRSS"), fds(pid)
    changer.stdin.close()
    changer.wait(timeout=10)
    reach.process.terminate()
    reach.process.wait(timeout=10)
    states = [line["current"]["reachable"] for line in reach.lines]
    expected_lines = 1 + 2 * FLAPS
    alternating = all(states[index] != states[index - 1] for index in range(1, len(states)))
    duplicates = len(states) - expected_lines
    growth = rss_after - rss_before
    ok = not lost and duplicates == 0 and alternating and growth < 1024 and fds_after <= fds_before
    print(f"soak watch: {FLAPS} flaps in {elapsed:.1f} s, {len(states)} lines (expected {expected_lines}): "
          f"{len(lost)} lost, {max(duplicates, 0)} duplicated, states alternate: {alternating}")
    print(f"  RSS {rss_before} -> {rss_after} KiB ({growth:+d} KiB, target < 1024: {verdict(growth < 1024)}), "
          f"fds {fds_before} -> {fds_after} ({verdict(fds_after <= fds_before)})")
    return ok


def soak_ping():
    started = time.monotonic()
    process = subprocess.Popen(["ip", "netns", "exec", NS, REACH, "ping", "-f", "-q", "-c", str(ECHOES), "127.0.0.1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples = []
    while process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/comm") as comm:
                if comm.read().strip() == "reach":  # not `ip netns exec` before it execs reach
                    samples.append((time.monotonic() - started, status_field(process.pid, "VmRSS"), fds(process.pid)))
        except (FileNotFoundError, ProcessLookupError, TypeError):
            pass
        time.sleep(0.02)
    output, errors = process.communicate()
    elapsed = time.monotonic() - started
    samples = [sample for sample in samples if sample[1] is not None]
    # The baseline: 40% into the run, when the probe table is full (65,536 of 200,000 echoes).
    settled = elapsed * 0.4
    baseline = next((sample for sample in samples if sample[0] >= settled), None)
    last = samples[-1] if samples else None
    summary = next((line for line in output.splitlines() if "packets transmitted" in line), "")
    words = summary.replace(",", "").split()
    transmitted = int(words[0]) if words else -1
    received = int(words[3]) if len(words) > 3 else -1
    duplicates = "duplicates" in summary
    growth = last[1] - baseline[1] if baseline and last else None
    ok = (process.returncode == 0 and transmitted == ECHOES and received == ECHOES and not duplicates
          and growth is not None and growth < 1024 and last[2] <= baseline[2])
    print(f"soak ping: {summary.strip() or errors.strip()} ({elapsed:.1f} s, exit {process.returncode})")
    if baseline and last:
        # The probe table is a ring of the last 65,536 probes: it fills in the first 65,536
        # echoes (about 2.5 MiB), then memory must stay flat.
        print(f"  RSS {samples[0][1]} KiB at start, {baseline[1]} KiB at {baseline[0]:.1f} s -> {last[1]} KiB at {last[0]:.1f} s "
              f"({growth:+d} KiB, target < 1024: {verdict(growth < 1024)}), fds {baseline[2]} -> {last[2]} "
              f"({verdict(last[2] <= baseline[2])}); {len(samples)} samples")
    return ok


def main():
    if os.geteuid() != 0:
        print("soak: needs root (a network namespace, flood ping)", file=sys.stderr)
        return 1
    if not os.access(REACH, os.X_OK):
        print(f"soak: {REACH} is missing; run: make build", file=sys.stderr)
        return 1
    subprocess.run(["ip", "netns", "add", NS], check=True)
    try:
        subprocess.run(["ip", "netns", "exec", NS, "sysctl", "-q", "-w", "net.ipv6.conf.all.accept_dad=0",
                        "net.ipv6.conf.default.accept_dad=0"], check=True)
        ip("link", "set", "lo", "up")
        ip("link", "add", "v0", "type", "veth", "peer", "name", "v1")
        ip("link", "set", "v1", "up")
        ip("link", "set", "v0", "up")
        ip("addr", "add", "198.18.0.2/24", "dev", "v0")
        ip("route", "add", "default", "via", "198.18.0.1")
        time.sleep(0.2)
        results = [soak_watch(), soak_ping()]
        return 0 if all(results) else 1
    finally:
        subprocess.run(["ip", "netns", "delete", NS], check=False)


if __name__ == "__main__":
    sys.exit(main())
