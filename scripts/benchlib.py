"""What every comparison in scripts/bench-* shares: how a run is timed, how two tools take turns,
the paired statistic a verdict rests on, and how figures, verdicts and skips are reported.

- A run is spawned directly (posix_spawn, no shell) with its stdout and stderr on one pipe that
  this process reads to the end: both tools of a comparison write to the same sink, and what
  they wrote is kept, so every count comes from the timed run itself.
- Two tools take turns ABBA (A B, B A, A B, ...) after the same warm-up, so a machine that
  drifts over the run weighs on both alike.
- The verdict is a paired statistic: the mean of the per-pair log ratios (a geometric mean
  ratio) or of the per-pair differences, with its 95% confidence interval from Student's t;
  or, for long runs against short ones, the ratio of the medians with a paired bootstrap
  interval.
  A target "at most X" is met only when the whole interval is at most X.
- Timer slack: this process sets its own to 1 us (prctl(2) PR_SET_TIMERSLACK; the default is
  50 us); a child inherits it across fork and keeps it across execve (prctl(2)), so a peer
  waits with the slack reach sets for itself.
- Results go to stdout and, when BENCH_RESULTS names a file, as JSON lines to it (make bench's
  report, scripts/bench-report.py, reads them). A script exits 0 when every target was met,
  1 when one was missed, SKIPPED (77) when it could not run here (no root, say).
"""
import ctypes
import json
import math
import os
import random
import statistics
import sys
import time
import traceback

SKIPPED = 77
# Student's t, two-sided 95% (0.975 quantile), by degrees of freedom; 1.96 beyond 120.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
        20: 2.086, 22: 2.074, 24: 2.064, 26: 2.056, 28: 2.048, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}
TIMER_SLACK_NS = 1000


def t975(degrees):
    if degrees > 120:
        return 1.96
    return T975[max(key for key in T975 if key <= degrees)]


class Interval:
    """An estimate with its 95% confidence interval."""

    def __init__(self, estimate, low, high):
        self.estimate, self.low, self.high = estimate, low, high

    def format(self, spec=".3f", unit=""):
        return f"{self.estimate:{spec}}{unit} (95% interval {self.low:{spec}} to {self.high:{spec}}{unit})"


def mean_interval(values):
    """The mean of `values` with its 95% interval (t with n - 1 degrees of freedom)."""
    mean = statistics.mean(values)
    if len(values) < 2:
        return Interval(mean, -math.inf, math.inf)
    half = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return Interval(mean, mean - half, mean + half)


def ratio_interval(a, b):
    """The paired ratio a/b: the geometric mean of the per-pair ratios, with its 95% interval."""
    logs = mean_interval([math.log(x / y) for x, y in zip(a, b)])
    return Interval(math.exp(logs.estimate), math.exp(logs.low), math.exp(logs.high))


def median_ratio_interval(a, b, resamples=4000, seed=1):
    """The ratio of the medians of paired samples a and b, with a 95% interval from the paired
    percentile bootstrap (the pairs resampled together, so drift stays matched; a fixed seed,
    so a run's verdict does not depend on the draw). For runs a descheduling lengthens, never
    shortens: the median ignores the few it hits, where a mean of logs follows them."""
    rng = random.Random(seed)
    pairs = list(zip(a, b))
    ratios = sorted(statistics.median(x for x, _ in sample) / statistics.median(y for _, y in sample)
                    for sample in ([rng.choice(pairs) for _ in pairs] for _ in range(resamples)))
    estimate = statistics.median(a) / statistics.median(b)
    return Interval(estimate, ratios[int(0.025 * resamples)], ratios[int(0.975 * resamples) - 1])


def difference_interval(a, b):
    """The paired difference a - b: the mean of the per-pair differences, with its 95% interval."""
    return mean_interval([x - y for x, y in zip(a, b)])


def set_timer_slack(nanoseconds=TIMER_SLACK_NS):
    """This process's timer slack, which every child inherits (prctl(2): PR_SET_TIMERSLACK is 29)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(29, ctypes.c_ulong(nanoseconds), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_TIMERSLACK)")


class Run:
    """One finished run: wall milliseconds, exit status, what it wrote, its CPU seconds."""

    def __init__(self, argv, wall_ms, status, output, usage):
        self.argv, self.wall_ms, self.status, self.output = argv, wall_ms, status, output
        self.cpu_s = usage.ru_utime + usage.ru_stime
        self.user_s, self.system_s = usage.ru_utime, usage.ru_stime

    @property
    def text(self):
        return self.output.decode(errors="replace")


def run(argv, stdin_path=None):
    """Runs argv with stdout and stderr on one pipe read to its end here; timed from spawn to
    reaped. Peak memory is not taken from this run's rusage: a child spawned by this (large)
    process would report this process's high-water mark (see peak_rss_kib)."""
    read_end, write_end = os.pipe()
    stdin = os.open(stdin_path or os.devnull, os.O_RDONLY)
    actions = [(os.POSIX_SPAWN_DUP2, stdin, 0), (os.POSIX_SPAWN_DUP2, write_end, 1),
               (os.POSIX_SPAWN_DUP2, write_end, 2), (os.POSIX_SPAWN_CLOSE, read_end)]
    chunks = []
    start = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
    os.close(write_end)
    while True:
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - start) / 1e6
    os.close(read_end)
    os.close(stdin)
    return Run(argv, wall, os.waitstatus_to_exitcode(status), b"".join(chunks), usage)


def peak_rss_kib(argv, scratch):
    """Peak resident memory of one run, KiB, from /usr/bin/time (a small parent: a child that
    execs from a large parent keeps the parent's high-water mark, kernel fs/exec.c
    exec_mmap's setmax_mm_hiwater_rss). Output goes to a pipe read here, as in run()."""
    result = run(["/usr/bin/time", "-f", "%M", "-o", scratch] + argv)
    with open(scratch) as file:
        return int(file.read().split()[-1]), result


def alternate(commands, rounds, warmup=1):
    """Runs the two callables of `commands` (name -> callable returning a figure or a Run) ABBA:
    `warmup` runs each first (the page cache, the first route and neighbour lookups), then
    `rounds` pairs, the first of each pair alternating. Returns name -> list of results."""
    names = list(commands)
    if len(names) != 2:
        raise ValueError("alternate compares two commands")
    for index in range(warmup):
        for name in (names if index % 2 == 0 else names[::-1]):
            commands[name]()
    results = {name: [] for name in names}
    for index in range(rounds):
        for name in (names if index % 2 == 0 else names[::-1]):
            results[name].append(commands[name]())
    return results


class Report:
    """A section's figures and verdicts, printed and (with BENCH_RESULTS) recorded."""

    def __init__(self, section):
        self.section = section
        self.missed = []
        self.path = os.environ.get("BENCH_RESULTS")

    def record(self, kind, text, **fields):
        if self.path:
            with open(self.path, "a") as file:
                file.write(json.dumps({"section": self.section, "kind": kind, "text": text, **fields}) + "\n")

    def line(self, text=""):
        print(text, flush=True)
        self.record("line", text)

    def beside(self, text):
        """What reach does that the peer does not (or the other way), printed beside a figure."""
        self.line(f"  beside: {text}")

    def target(self, name, met, figure):
        """A verdict: `name` says the rule, `figure` what was measured."""
        text = f"target: {name}: {figure}: {'met' if met else 'MISSED'}"
        print(text, flush=True)
        self.record("target", text, name=name, figure=figure, met=bool(met))
        if not met:
            self.missed.append(name)

    def skip(self, reason):
        """This section cannot run here: says why, and exits SKIPPED."""
        text = f"{self.section}: skipped: {reason}"
        print(text, file=sys.stderr, flush=True)
        self.record("skip", text)
        sys.exit(SKIPPED)

    def fail(self, reason):
        """The benchmark itself could not measure (a tool failed): says why, exits 2."""
        text = f"{self.section}: {reason}"
        print(text, file=sys.stderr, flush=True)
        self.record("error", text)
        sys.exit(2)

    def finish(self):
        """Exit status: 0 when every target was met, 1 when one was missed."""
        if self.missed:
            print(f"{self.section}: missed: {'; '.join(self.missed)}", flush=True)
        return 1 if self.missed else 0


def at_most(interval, limit):
    """The pass rule for a target "at most limit": the whole 95% interval within it."""
    return interval.high <= limit


def require_root(report, why):
    if os.geteuid() != 0:
        report.skip(f"needs root ({why})")


def main(function):
    """Runs a script's main: its exit status, or 2 (the benchmark failed) with the traceback
    when it raised: a tool that printed what no parser expected stops the run, visibly."""
    try:
        return function()
    except Exception:
        traceback.print_exc()
        print(f"{os.path.basename(sys.argv[0])}: the benchmark failed (above)", file=sys.stderr, flush=True)
        return 2
