#!/usr/bin/env python3
"""`make bench`, many targets: reach beside fping, `ip -batch` and `getent ahosts` (root).

Run by scripts/bench-many.sh, which builds the namespaces (a client, a router, a far end that
answers for 198.18.64.0/18) and DNS (dnsmasq, and a server that never answers, in the router),
then runs `inside` in the client namespace and `host` in the host namespace. Every comparison
goes through scripts/benchlib.py: both tools write every answer to the same pipe, take turns
ABBA after the same warm-up, and are judged on a paired ratio with its 95% interval.

inside (the client namespace; its link is a veth):
  1. ping -c 3 -q, 1,000 targets, -i 1 ms, period 1 s, beside fping -c 3 -q -i 1 -p 1000:
     target reach's wall at most fping's; in every pair of runs, each target's xmt/rcv/%loss
     equal to fping's and no echo lost on either side
  2. the same with -c 1 (the interval fping's -i 1 and reach's -i 0.001 name alike: 1 ms)
  3. addr, 10,000 addresses (--targets-from), text, beside ip -batch with 10,000 `route get`:
     target at most 0.5x; every answer printed by both in the timed run
  4. the same with reach's --json: target at most 0.6x
  5. addr over 100,000 addresses: every one answered, peak memory at most 2x the 10,000 run's,
     wall at most 11x: LARGE_PAIRS pairs, each a run over 100,000 beside the median of three
     runs over 10,000 taken around it (a 10,000 run is short enough that one descheduling
     moves it by a tenth), judged on the paired ratio's 95% interval; the ratio of the
     medians, with a paired bootstrap interval, printed beside (under load its interval was
     the wider of the two)
  6. system calls per target (strace -f -c, all calls divided by the count), 10,000 addresses,
     reach addr beside ip -batch: target reach's at most ip's
  7. host over 1,000 names from /etc/hosts and 1,000 from dnsmasq beside getent ahosts over the
     same names: figures (no target), every name answered by both
  8. host, 100 names of which 10 hang in DNS, --timeout 1s: target every run under 1.5 s with
     the 90 good names answered
  9. scale, 1,000 and 10,000 targets: addr, host (/etc/hosts), ping -c 1: wall, peak memory,
     descriptors; target every target answered
host (the host namespace, beside the machine's own NIC): 6 again, for 198.18.x.y, whatever
the host's routes answer. A route lookup sends nothing; nothing else is run there.
Environment: REACH, PAIRS (alternating pairs for addr's wall time, 30), LARGE_PAIRS (pairs for the
100,000 run, 16), PING_PAIRS (4), HOST_PAIRS (4), PARTS (the numbers of the parts to run, as
"3,4,5"; default all).
"""
import json
import os
import re
import statistics
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

REACH = os.environ.get("REACH", ".build/release/reach")
PAIRS = int(os.environ.get("PAIRS", "30"))
LARGE_PAIRS = int(os.environ.get("LARGE_PAIRS", "16"))
PING_PAIRS = int(os.environ.get("PING_PAIRS", "4"))
HOST_PAIRS = int(os.environ.get("HOST_PAIRS", "4"))


def addresses(count):
    """198.18.64.1 onwards, 250 to a /24; past 198.18.127.250 into 198.19.x.y (the far end answers
    for 198.18.64.0/18 only, so the scale runs stay within the first 16,000)."""
    return [f"198.{18 + (64 + i // 250) // 256}.{(64 + i // 250) % 256}.{i % 250 + 1}" for i in range(count)]


def write_lines(path, lines):
    with open(path, "w") as file:
        file.writelines(f"{line}\n" for line in lines)
    return path


def summaries(text):
    """target -> xmt/rcv/%loss from fping-style summary lines; a line that looks like a summary
    and does not parse is an error, not a line to drop."""
    found = {}
    for line in text.splitlines():
        if ": xmt/rcv/%loss = " not in line:
            continue
        match = re.match(r"(\S+)\s+: xmt/rcv/%loss = (\d+/\d+/\d+%)(?:, min/avg/max = [0-9.]+/[0-9.]+/[0-9.]+)?$", line)
        if not match:
            raise ValueError(f"summary line does not parse: {line!r}")
        found[match.group(1)] = match.group(2)
    return found


def fping_compare(report, title, reach_argv, fping_argv, targets, count):
    commands = {"reach": lambda: benchlib.run(reach_argv + targets), "fping": lambda: benchlib.run(fping_argv + targets)}
    runs = benchlib.alternate(commands, PING_PAIRS)
    ratio = benchlib.ratio_interval([r.wall_ms for r in runs["reach"]], [r.wall_ms for r in runs["fping"]])
    unequal, lost, missing = 0, {"reach": 0, "fping": 0}, 0
    for reach_run, fping_run in zip(runs["reach"], runs["fping"]):
        counts = {"reach": summaries(reach_run.text), "fping": summaries(fping_run.text)}
        for tool, found in counts.items():
            missing += len(targets) - len(found)
            lost[tool] += sum(count - int(value.split("/")[1]) for value in found.values())
        unequal += sum(1 for target in targets if counts["reach"].get(target) != counts["fping"].get(target))
    walls = {tool: statistics.median(r.wall_ms for r in results) / 1000 for tool, results in runs.items()}
    report.line(f"{title}: wall, median of {PING_PAIRS}: reach {walls['reach']:.3f} s, fping {walls['fping']:.3f} s; "
                f"paired ratio {ratio.format('.2f')}")
    report.line(f"  echoes lost over {PING_PAIRS} runs each: reach {lost['reach']}, fping {lost['fping']}; "
                f"targets whose xmt/rcv/%loss differ between paired runs: {unequal} of {len(targets) * PING_PAIRS}")
    report.beside("both wait with 1 us timer slack (reach sets it; fping inherits the harness's)")
    report.target(f"{title}: reach wall <= fping", benchlib.at_most(ratio, 1.0), f"ratio at most {ratio.high:.2f}")
    report.target(f"{title}: every target's xmt/rcv/%loss equal to fping's, none lost, none missing",
                  unequal == 0 and lost["reach"] == 0 and lost["fping"] == 0 and missing == 0,
                  f"{unequal} differ, {lost['reach']} + {lost['fping']} lost, {missing} summaries missing")


def reach_answered(run, json_output=False):
    """How many verdicts `reach addr`/`host` printed that say reachable (text or --json)."""
    if json_output:
        document = json.loads(run.output)
        return sum(1 for result in document["results"] if result.get("reachable"))
    return sum(1 for line in run.text.splitlines() if ": reachable via " in line)


def ip_answered(run):
    """`ip route get` answers printed: one line per lookup, starting with the address."""
    return sum(1 for line in run.text.splitlines() if re.match(r"(local )?\d+\.\d+\.\d+\.\d+ (via|dev) ", line))


def addr_compare(report, tmp, json_output, limit):
    count = 10000
    targets = write_lines(f"{tmp}/addr-10000", addresses(count))
    batch = write_lines(f"{tmp}/batch-10000", [f"route get {a}" for a in addresses(count)])
    reach_argv = [REACH, "addr"] + (["--json"] if json_output else []) + ["--targets-from", targets]
    runs = benchlib.alternate({"reach": lambda: benchlib.run(reach_argv), "ip": lambda: benchlib.run(["ip", "-batch", batch])},
                              PAIRS)
    ratio = benchlib.ratio_interval([r.wall_ms for r in runs["reach"]], [r.wall_ms for r in runs["ip"]])
    answered = {"reach": min(reach_answered(r, json_output) for r in runs["reach"]), "ip": min(ip_answered(r) for r in runs["ip"])}
    label = "addr --json" if json_output else "addr"
    report.line(f"{'4' if json_output else '3'}. {label}, 10,000 addresses to a pipe: median reach "
                f"{statistics.median(r.wall_ms for r in runs['reach']):.1f} ms, ip -batch "
                f"{statistics.median(r.wall_ms for r in runs['ip']):.1f} ms; paired ratio ({PAIRS} pairs) {ratio.format('.2f')}; "
                f"answered in every timed run: reach {answered['reach']}, ip {answered['ip']}")
    report.line(f"  CPU, median: reach user {statistics.median(r.user_s for r in runs['reach']) * 1000:.0f} ms "
                f"system {statistics.median(r.system_s for r in runs['reach']) * 1000:.0f} ms; ip user "
                f"{statistics.median(r.user_s for r in runs['ip']) * 1000:.0f} ms system "
                f"{statistics.median(r.system_s for r in runs['ip']) * 1000:.0f} ms")
    report.beside("reach also names each answer's link (its kind from sysfs) and its state; ip prints the kernel's answer")
    report.target(f"{label} over 10,000 <= {limit} x ip -batch", benchlib.at_most(ratio, limit), f"ratio at most {ratio.high:.2f}")
    report.target(f"{label}: all 10,000 answered by both in the timed runs", answered == {"reach": count, "ip": count},
                  f"reach {answered['reach']}, ip {answered['ip']}")
    return runs["reach"]


def hundred_thousand(report, tmp):
    small = write_lines(f"{tmp}/addr-10000", addresses(10000))
    large = write_lines(f"{tmp}/addr-100000", addresses(100000))
    batch = write_lines(f"{tmp}/batch-100000", [f"route get {a}" for a in addresses(100000)])
    # The far end answers 198.18.64.0/18 (16,000 of these): the rest go by the default route
    # too, so reach and ip both answer every one of them as reachable.
    rss = {"10000": [], "100000": []}
    for _ in range(3):
        for name, path in (("10000", small), ("100000", large)):
            kib, _ = benchlib.peak_rss_kib([REACH, "addr", "--targets-from", path], f"{tmp}/rss")
            rss[name].append(kib)
    small_runs = []

    def small_median():
        """The median wall of three runs over 10,000, in ms (each kept for its answers)."""
        runs = [benchlib.run([REACH, "addr", "--targets-from", small]) for _ in range(3)]
        small_runs.extend(runs)
        return statistics.median(r.wall_ms for r in runs)

    runs = benchlib.alternate({"100000": lambda: benchlib.run([REACH, "addr", "--targets-from", large]),
                               "10000": small_median}, LARGE_PAIRS)
    ip_run = benchlib.run(["ip", "-batch", batch])
    refused = [r for r in runs["100000"] if r.status != 0 or reach_answered(r) != 100000]
    refused += [r for r in small_runs if r.status != 0 or reach_answered(r) != 10000]
    if refused:
        first = refused[0]
        why = (first.text.strip().splitlines() or ["no output"])[-1].replace(large, "FILE")
        expected = 100000 if first.argv[-1] == large else 10000
        report.line(f"5. addr over 100,000 addresses: reach answered {reach_answered(first)} of {expected}, exit {first.status}: {why}")
        report.line(f"  ip -batch with 100,000 route get: {ip_run.wall_ms:.0f} ms, {ip_answered(ip_run)} answered")
        report.target("addr over 100,000: every address answered", False, f"exit {first.status}: {why}")
        return
    memory = statistics.median(rss["100000"]) / statistics.median(rss["10000"])
    large_walls = [r.wall_ms for r in runs["100000"]]
    wall = benchlib.ratio_interval(large_walls, runs["10000"])
    medians = benchlib.median_ratio_interval(large_walls, runs["10000"])
    report.line(f"5. addr over 100,000 addresses: {statistics.median(large_walls):.0f} ms "
                f"(10,000: {statistics.median(r.wall_ms for r in small_runs):.1f} ms, median of {len(small_runs)}); "
                f"{LARGE_PAIRS} pairs, each beside the median of three 10,000 runs: paired ratio {wall.format('.2f')}; "
                f"ratio of the medians {medians.format('.2f')}")
    report.line(f"  peak RSS median of 3 {statistics.median(rss['100000']) / 1024:.1f} MiB (10,000: "
                f"{statistics.median(rss['10000']) / 1024:.1f} MiB); ip -batch: {ip_run.wall_ms:.0f} ms")
    report.target("addr over 100,000: every address answered", True, "100000 of 100000")
    report.target("addr over 100,000: peak memory <= 2 x the 10,000 run", memory <= 2, f"{memory:.2f} x")
    report.target("addr over 100,000: wall <= 11 x the 10,000 run", benchlib.at_most(wall, 11), f"ratio at most {wall.high:.2f}")


def strace_calls(argv, tmp):
    """All system calls of one run under strace -f -c (its `total` line), and the run."""
    out = f"{tmp}/strace"
    result = benchlib.run(["strace", "-f", "-c", "-o", out, "--"] + argv)
    with open(out) as file:
        for line in file:
            fields = line.split()
            if fields and fields[-1] == "total":
                return int(fields[3]), result
    raise ValueError(f"strace -c wrote no total line for {argv[0]}")


def syscalls(report, tmp, where, number):
    count = 10000
    targets = write_lines(f"{tmp}/addr-sys", addresses(count))
    batch = write_lines(f"{tmp}/batch-sys", [f"route get {a}" for a in addresses(count)])
    reach_calls, reach_run = strace_calls([REACH, "addr", "--targets-from", targets], tmp)
    ip_calls, ip_run = strace_calls(["ip", "-batch", batch], tmp)
    reach_per, ip_per = reach_calls / count, ip_calls / count
    report.line(f"{number}. system calls per target, 10,000 addresses, {where}: reach addr {reach_per:.2f} "
                f"({reach_calls} in all, exit {reach_run.status}), ip -batch {ip_per:.2f} ({ip_calls}, exit {ip_run.status})")
    report.target(f"system calls per target {where}: reach <= ip -batch", reach_per <= ip_per, f"{reach_per:.2f} against {ip_per:.2f}")


def getent_answered(run):
    """Names getent ahosts answered: the first line of each key's answer carries the name."""
    return {match.group(1) for match in re.finditer(r"^\S+\s+STREAM\s+(\S+)$", run.text, re.MULTILINE)}


def reach_names(run):
    return {match.group(1) for match in re.finditer(r"^(\S+) \(\S+\): reachable via ", run.text, re.MULTILINE)}


def host_compare(report, tmp, label, names):
    path = write_lines(f"{tmp}/names-{re.sub(r'[^a-z]', '', label)}", names)
    runs = benchlib.alternate({"reach": lambda: benchlib.run([REACH, "host", "-4", "--targets-from", path]),
                               "getent": lambda: benchlib.run(["getent", "ahostsv4"] + names)}, HOST_PAIRS)
    ratio = benchlib.ratio_interval([r.wall_ms for r in runs["reach"]], [r.wall_ms for r in runs["getent"]])
    answered = {"reach": min(len(reach_names(r) & set(names)) for r in runs["reach"]),
                "getent": min(len(getent_answered(r) & set(names)) for r in runs["getent"])}
    report.line(f"7. host, {len(names)} names from {label}: median reach {statistics.median(r.wall_ms for r in runs['reach']):.1f} ms, "
                f"getent ahostsv4 {statistics.median(r.wall_ms for r in runs['getent']):.1f} ms; paired ratio {ratio.format('.2f')}; "
                f"answered in every timed run: reach {answered['reach']}, getent {answered['getent']}")
    report.beside("reach resolves names in parallel (a pool of getaddrinfo threads), then looks up each address's route "
                  "and link; getent resolves one name after another and stops there")
    report.target(f"host over {len(names)} names from {label}: every name answered by both",
                  answered == {"reach": len(names), "getent": len(names)}, f"reach {answered['reach']}, getent {answered['getent']}")


def hanging_names(report, tmp):
    names = open(f"{tmp}/names").read().split()
    walls, good, statuses = [], [], []
    for _ in range(3):
        result = benchlib.run([REACH, "host", "--timeout", "1s"] + names)
        walls.append(result.wall_ms / 1000)
        good.append(sum(1 for line in result.text.splitlines() if "good.test" in line and "reachable via" in line))
        statuses.append(result.status)
    report.line(f"8. host, 100 names, 10 hanging, --timeout 1s: wall median {statistics.median(walls):.3f} s, max {max(walls):.3f} s; "
                f"good names answered at least {min(good)} of 90; exit {statuses}")
    report.target("host with 10 of 100 names hanging: every run under 1.5 s, the 90 good answered",
                  max(walls) < 1.5 and min(good) == 90, f"max {max(walls):.3f} s, {min(good)} answered")


class Descriptors:
    """The most descriptors a run's child held open, sampled while it runs (the child of
    /usr/bin/time, or the run itself)."""

    def __init__(self):
        self.most, self.stop = 0, threading.Event()

    def watch(self):
        parent = os.getpid()
        while not self.stop.is_set():
            try:
                for child in open(f"/proc/{parent}/task/{parent}/children").read().split():
                    grandchildren = open(f"/proc/{child}/task/{child}/children").read().split()
                    for pid in grandchildren or [child]:
                        self.most = max(self.most, len(os.listdir(f"/proc/{pid}/fd")))
            except OSError:
                pass
            time.sleep(0.005)


def scale(report, tmp):
    report.line("9. scale (1,000 -> 10,000 targets): wall, peak RSS, most descriptors open, answered")
    ping_answered = (lambda run: sum(1 for value in summaries(run.text).values() if value.split("/")[1] == "1"))
    cases = [("addr", lambda n: [REACH, "addr", "--targets-from", write_lines(f"{tmp}/scale", addresses(n))], reach_answered),
             ("host (/etc/hosts)", lambda n: [REACH, "host", "--targets-from",
                                              write_lines(f"{tmp}/scale", [f"t{i}.hosts.test" for i in range(n)])],
              reach_answered),
             ("ping -c 1 -i 0.0002", lambda n: [REACH, "ping", "-c", "1", "-q", "-i", "0.0002", "--targets-from",
                                                write_lines(f"{tmp}/scale", addresses(n))], ping_answered)]
    for label, make, answered in cases:
        row = []
        for count in (1000, 10000):
            descriptors = Descriptors()
            sampler = threading.Thread(target=descriptors.watch)
            sampler.start()
            rss, result = benchlib.peak_rss_kib(make(count), f"{tmp}/rss")
            descriptors.stop.set()
            sampler.join()
            row.append((result.wall_ms / 1000, rss, descriptors.most, answered(result), count))
        (w1, r1, f1, a1, _), (w2, r2, f2, a2, _) = row
        report.line(f"   {label}: {w1:.3f} s -> {w2:.3f} s (x{w2 / w1:.1f}), {r1 / 1024:.1f} -> {r2 / 1024:.1f} MiB, "
                    f"{f1} -> {f2} descriptors, {a1} / 1000 -> {a2} / 10000 answered")
        report.target(f"scale {label}: every target answered", a1 == 1000 and a2 == 10000, f"{a1} and {a2}")


def main():
    mode, tmp = sys.argv[1], sys.argv[2]
    report = benchlib.Report("bench-many")
    benchlib.set_timer_slack()
    chosen = set(os.environ.get("PARTS", "1,2,3,4,5,6,7,8,9").split(","))
    if mode == "host":
        if "6" in chosen:
            syscalls(report, tmp, "host namespace (the machine's own NIC)", "6b")
        return report.finish()
    thousand = addresses(1000)
    parts = [
        ("1", lambda: fping_compare(report, "1. ping -c 3 -q, 1,000 targets, -i 1 ms, period 1 s",
                                    [REACH, "ping", "-c", "3", "-q", "-i", "0.001", "--period", "1"],
                                    ["fping", "-c", "3", "-q", "-i", "1", "-p", "1000"], thousand, 3)),
        ("2", lambda: fping_compare(report, "2. ping -c 1 -q, 1,000 targets, -i 1 ms",
                                    [REACH, "ping", "-c", "1", "-q", "-i", "0.001"], ["fping", "-c", "1", "-q", "-i", "1"], thousand, 1)),
        ("3", lambda: addr_compare(report, tmp, False, 0.5)),
        ("4", lambda: addr_compare(report, tmp, True, 0.6)),
        ("5", lambda: hundred_thousand(report, tmp)),
        ("6", lambda: syscalls(report, tmp, "in a namespace beside a veth", "6")),
        ("7", lambda: host_compare(report, tmp, "/etc/hosts", [f"t{i}.hosts.test" for i in range(1000)])),
        ("7", lambda: host_compare(report, tmp, "dnsmasq", [f"d{i}.good.test" for i in range(1000)])),
        ("8", lambda: hanging_names(report, tmp)),
        ("9", lambda: scale(report, tmp)),
    ]
    for number, run in parts:
        if number in chosen:
            run()
    return report.finish()


if __name__ == "__main__":
    sys.exit(benchlib.main(main))
