#!/usr/bin/env bash
# `make bench`, ping section: reach ping beside iputils ping in the same run (root).
#  1. median RTT each reports over 200 echoes on a veth pair between two namespaces
#  2. wall time of 10,000 flood echoes (-f -q) on loopback in a namespace, $ROUNDS paired runs
#  3. peak memory (maximum resident set) of each, from /usr/bin/time; target: reach at most 2.5x
# Traffic stays inside namespaces this script makes (rch-bench-ping-*), removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
REACH=${REACH:-.build/release/reach}
ECHOES=${ECHOES:-200}
FLOOD=${FLOOD:-10000}
ROUNDS=${ROUNDS:-30}
if [ "$(id -u)" -ne 0 ]; then echo "bench-ping: needs root (namespaces, flood)"; exit 0; fi
for tool in ip ping /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "bench-ping: $tool missing (scripts/install-deps.sh test)"; exit 1; }
done
[ -x "$REACH" ] || { echo "bench-ping: no $REACH (make build)"; exit 1; }

NS=rch-bench-ping-$$
cleanup() { ip netns delete "$NS-a" 2>/dev/null || true; ip netns delete "$NS-b" 2>/dev/null || true; rm -f "$TMP"*; }
TMP=$(mktemp /tmp/rch-bench-ping.XXXXXX)
trap cleanup EXIT
ip netns add "$NS-a"; ip netns add "$NS-b"
ip link add v0 netns "$NS-a" type veth peer name v1 netns "$NS-b"
ip -n "$NS-a" addr add 198.18.0.1/24 dev v0; ip -n "$NS-b" addr add 198.18.0.2/24 dev v1
for n in a b; do ip -n "$NS-$n" link set lo up; done
ip -n "$NS-a" link set v0 up; ip -n "$NS-b" link set v1 up
for _ in $(seq 50); do ip netns exec "$NS-a" ping -c1 -W1 -q 198.18.0.2 >/dev/null 2>&1 && break; sleep 0.1; done

median() { python3 -c '
import re, sys
times = sorted(float(m) for m in re.findall(r"time=([0-9.]+) ms", sys.stdin.read()))
print("%.3f %d" % (times[len(times)//2] if times else float("nan"), len(times)))'; }

# Peak memory of one run in the namespace, in KiB, from /usr/bin/time started inside it (a
# small parent: a child forked from a big one would inherit its high-water mark across exec).
peak_rss() {
  ip netns exec "$NS-a" /usr/bin/time -f "%M" -o "$TMP.rss" "$@" >/dev/null 2>&1
  tail -1 "$TMP.rss"
}

echo "== reach ping vs iputils ping ($(ping -V | head -1))"
# 1. Median RTT over $ECHOES echoes each, interleaved in tenths: the path's latency drifts
# by several microseconds from one second to the next on a shared machine, and short
# alternating runs give both tools the same drift. Probes 50 ms apart: how long the CPU sat
# idle before a probe changes its RTT, and at -i 0.01 the two tools do not idle alike (iputils
# waits in recvmsg with SO_RCVTIMEO, a timer of whole jiffies: its probes go out 12-16 ms
# apart; reach's ppoll wakes on time, 10 ms apart), which made reach's medians up to 14 us
# lower there. From about 20 ms apart both give the same RTT.
tenth=$((ECHOES / 10))
: >"$TMP.reach"; : >"$TMP.iputils"
for _ in 1 2 3 4 5 6 7 8 9 10; do
  ip netns exec "$NS-a" "$REACH" ping -c "$tenth" -i 0.05 198.18.0.2 >>"$TMP.reach"
  ip netns exec "$NS-a" ping -c "$tenth" -i 0.05 198.18.0.2 >>"$TMP.iputils"
done
read -r reach_median reach_count < <(median <"$TMP.reach")
read -r iputils_median iputils_count < <(median <"$TMP.iputils")
python3 -c "
r, i = $reach_median, $iputils_median
print(f'median RTT, veth, {$reach_count}/{$iputils_count} echoes: reach {r:.3f} ms, iputils {i:.3f} ms, '
      f'difference {(r - i) * 1000:+.0f} us (target within 10 us), ratio {r / i:.2f}')"

# 2. Flood on loopback: wall time, $ROUNDS rounds, each running both tools one after the other
# (which one goes first alternates), timed from a loop that runs inside the namespace (an
# `ip netns exec` per run would add its own milliseconds of noise). A shared machine drifts
# by several milliseconds from one second to the next: the paired difference per round is
# what the target is judged on (its mean, with a 95% interval), beside the medians and bests.
ip netns exec "$NS-a" python3 - "$REACH" "$FLOOD" "$ROUNDS" <<'PYTHON'
import math, os, statistics, sys, time

reach, flood, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
commands = {
    "reach": [reach, "ping", "-f", "-q", "-c", flood, "127.0.0.1"],
    "iputils": ["ping", "-f", "-q", "-c", flood, "127.0.0.1"],
}

def run(argv):
    """Wall milliseconds of one run, output discarded; a failed run ends the benchmark."""
    sink = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, sink, 1), (os.POSIX_SPAWN_DUP2, sink, 2)]
    start = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
    _, status, _ = os.wait4(pid, 0)
    elapsed = (time.perf_counter_ns() - start) / 1e6
    os.close(sink)
    if status != 0:
        sys.exit(f"bench-ping: {' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    return elapsed

for name in commands:  # warm-up: page cache, the first neighbour and route lookups
    run(commands[name])
times = {name: [] for name in commands}
for index in range(rounds):
    for name in (("reach", "iputils") if index % 2 == 0 else ("iputils", "reach")):
        times[name].append(run(commands[name]))
r, i = times["reach"], times["iputils"]
differences = [a - b for a, b in zip(r, i)]
mean_difference = statistics.mean(differences)
half_width = 1.96 * statistics.stdev(differences) / math.sqrt(rounds)
ratio = statistics.mean(r) / statistics.mean(i)
verdict = "met" if ratio <= 1 else "missed"
print(f"flood -c {flood} on loopback, {rounds} paired runs: mean reach {statistics.mean(r):.1f} ms, "
      f"iputils {statistics.mean(i):.1f} ms, ratio {ratio:.3f} (target <= 1: {verdict})")
print(f"  difference per run {mean_difference:+.2f} ms (95% interval {mean_difference - half_width:+.2f} to "
      f"{mean_difference + half_width:+.2f}); medians {statistics.median(r):.1f} / {statistics.median(i):.1f} ms, "
      f"bests {min(r):.1f} / {min(i):.1f} ms")
PYTHON

# 3. Peak memory (maximum RSS) of a flood run each, the largest of three.
reach_rss=0; iputils_rss=0
for _ in 1 2 3; do
  rss=$(peak_rss "$REACH" ping -f -q -c "$FLOOD" 127.0.0.1); reach_rss=$((rss > reach_rss ? rss : reach_rss))
  rss=$(peak_rss ping -f -q -c "$FLOOD" 127.0.0.1); iputils_rss=$((rss > iputils_rss ? rss : iputils_rss))
done
python3 -c "
rm, im = $reach_rss, $iputils_rss
verdict = 'met' if rm <= 2.5 * im else 'missed'
print(f'peak memory (max RSS): reach {rm / 1024:.1f} MiB, iputils {im / 1024:.1f} MiB, ratio {rm / im:.2f} (target <= 2.5: {verdict})')"
