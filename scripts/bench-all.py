#!/usr/bin/env python3
"""`make bench`: every part in turn, then docs/BENCHMARKS.md written from this one run.

Each part is a script that prints its figures and verdicts (scripts/benchlib.py) and exits
0 (every target met), 1 (one missed), 77 (skipped: it cannot run here, without root say) or
another status (it could not measure). This runs them all, whatever one of them says, then:
- lists the targets missed and the parts skipped or failed;
- writes BENCH_DOC (default docs/BENCHMARKS.md) from the parts' own descriptions (each
  script's header) and what they printed, with the date, the machine and the commit; only
  when every part ran: a page of figures with parts missing would read as complete;
- exits 0 only when every part ran and met its targets. A skipped part fails the run unless
  BENCH_ALLOW_SKIP=1 (a machine without root measures start-up only, and must not pass for
  one that measured everything).
"""
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

PARTS = [
    ("Start-up and route lookups beside `ip route get`", "scripts/bench.sh", ["scripts/bench.sh"]),
    ("`watch` beside `ip monitor`", "scripts/bench-watch.py", ["python3", "scripts/bench-watch.py"]),
    ("Ping beside iputils ping", "scripts/bench-ping.py", ["python3", "scripts/bench-ping.py"]),
    ("Many targets beside fping, `ip -batch` and `getent`", "scripts/bench-many.py", ["scripts/bench-many.sh"]),
    ("reach-exporter beside blackbox_exporter", "scripts/bench-exporter.py", ["scripts/bench-exporter.sh"]),
    ("Trace beside traceroute and mtr", "scripts/bench-trace.py", ["python3", "scripts/bench-trace.py"]),
    ("Continuous probes beside smokeping_prober", "scripts/bench-smokeping.py", ["python3", "scripts/bench-smokeping.py"]),
]
SKIPPED = 77


def header(path):
    """A script's own description: a Python docstring, or a shell script's leading comments."""
    text = open(path).read()
    if path.endswith(".py"):
        match = re.search(r'"""(.*?)"""', text, re.DOTALL)
        return match.group(1).strip() if match else ""
    lines = []
    for line in text.splitlines()[1:]:
        if not line.startswith("#"):
            break
        lines.append(line[2:] if line.startswith("# ") else line[1:])
    return "\n".join(lines).strip()


def command(*argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "unknown")
    memory = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal:"))
    debian = open("/etc/debian_version").read().strip() if os.path.exists("/etc/debian_version") else "not Debian"
    swift = command("swift", "--version").splitlines()
    return [f"{os.cpu_count()} CPUs ({cpu}), {memory / 1024 / 1024:.1f} GiB",
            f"Linux {platform.release()}, Debian {debian}",
            swift[0] if swift else "swift: unknown",
            f"{command('ip', '-V')}; {command('fping', '--version')}; {command('ping', '-V').splitlines()[0] if command('ping', '-V') else ''}",
            f"load average at the start: {' '.join(open('/proc/loadavg').read().split()[:3])}"]


def run_part(argv, results):
    """Runs one part, its output passed through as it comes and kept."""
    environment = dict(os.environ, BENCH_RESULTS=results)
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environment, text=True, bufsize=1)
    lines = []
    for line in process.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        lines.append(line.rstrip("\n"))
    return process.wait(), lines


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    document = os.environ.get("BENCH_DOC", "docs/BENCHMARKS.md")
    started = datetime.datetime.now(datetime.timezone.utc)
    begin = time.monotonic()
    about = machine()
    commit = command("git", "describe", "--always", "--dirty")
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="reach-bench-all.") as scratch:
        for number, (title, source, argv) in enumerate(PARTS):
            print(f"\n### {title} ({' '.join(argv)})", flush=True)
            results = os.path.join(scratch, f"results-{number}")
            status, lines = run_part(argv, results)
            records = [json.loads(line) for line in open(results)] if os.path.exists(results) else []
            outcomes.append((title, source, argv, status, lines, records))
    wall = time.monotonic() - begin
    about.append(f"load average at the end: {' '.join(open('/proc/loadavg').read().split()[:3])} (other work on the machine weighs on "
                 "both sides of a comparison alike, and widens its interval)")

    missed = [(title, r["text"]) for title, _, _, _, _, records in outcomes for r in records if r["kind"] == "target" and not r["met"]]
    skipped = [(title, lines[-1] if lines else "no output") for title, _, _, status, lines, _ in outcomes if status == SKIPPED]
    failed = [(title, status, lines[-1] if lines else "no output") for title, _, _, status, lines, _ in outcomes
              if status not in (0, 1, SKIPPED)]
    print(f"\nmake bench: {wall / 60:.1f} minutes; {len(PARTS) - len(skipped) - len(failed)} of {len(PARTS)} parts measured")
    for title, text in missed:
        print(f"missed: {title}: {text}")
    for title, line in skipped:
        print(f"skipped: {title}: {line}")
    for title, status, line in failed:
        print(f"failed (exit {status}): {title}: {line}")

    if skipped or failed:
        print(f"{document} not written: a part did not run")
    else:
        write(document, started, wall, about, commit, outcomes)
        print(f"{document} written")
    if failed:
        return 2
    if skipped and os.environ.get("BENCH_ALLOW_SKIP") != "1":
        print("make bench: parts were skipped (BENCH_ALLOW_SKIP=1 accepts that)")
        return 1
    return 1 if missed else 0


def write(document, started, wall, about, commit, outcomes):
    out = ["# Benchmarks", "",
           "Written by `make bench` (scripts/bench-all.py) from one run; every figure here is printed by a",
           "script under scripts/, whose description of each part is quoted above its output. Run `make bench`",
           "again to replace it. How a comparison is run (the same output to the same pipe, ABBA turns, the",
           "paired ratio or difference with its 95% interval, a target met only by the whole interval) is in",
           "scripts/benchlib.py.", "",
           f"- date: {started:%Y-%m-%d %H:%M} UTC; the whole run took {wall / 60:.1f} minutes",
           f"- commit: {commit}"]
    out += [f"- {line}" for line in about]
    out += ["", "## Targets", "", "| part | target | measured | verdict |", "|---|---|---|---|"]
    for title, _, _, _, _, records in outcomes:
        for record in records:
            if record["kind"] == "target":
                out.append(f"| {title} | {record['name']} | {record['figure']} | {'met' if record['met'] else '**missed**'} |")
    for title, source, argv, status, lines, _ in outcomes:
        out += ["", f"## {title}", "", f"`{' '.join(argv)}`, exit {status}. From `{source}`:", "", "```text"]
        out += header(source).splitlines()
        out += ["```", "", "Its output:", "", "```text"]
        out += [line.replace("```", "'''") for line in lines]
        out += ["```"]
    with open(document, "w") as file:
        file.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
