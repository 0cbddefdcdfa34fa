#!/usr/bin/env bash
# `make bench`, ping section: reach ping beside iputils ping in the same run (root).
#  1. median RTT each reports over 200 echoes on a veth pair between two namespaces
#  2. wall time of 10,000 flood echoes (-f -q) on loopback in a namespace
#  3. peak memory (maximum resident set) of each, from /usr/bin/time -v
# Traffic stays inside namespaces this script makes (rch-bench-ping-*), removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
REACH=${REACH:-.build/release/reach}
ECHOES=${ECHOES:-200}
FLOOD=${FLOOD:-10000}
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

# Wall time and peak memory of one run in the namespace: "<wall seconds> <max RSS KiB>".
# The RSS comes from /usr/bin/time started inside the namespace (a small parent: a
# child forked from a big one would inherit its high-water mark across exec).
measure() {
  python3 -c '
import subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
elapsed = time.perf_counter() - start
print("%.4f %s" % (elapsed, open(sys.argv[1]).read().split()[-1]))' "$TMP.rss" \
    ip netns exec "$NS-a" /usr/bin/time -f "%M" -o "$TMP.rss" "$@"
}

echo "== reach ping vs iputils ping ($(ping -V | head -1))"
# 1. Median RTT over $ECHOES echoes each, interleaved in tenths: the path's latency drifts
# by several microseconds from one second to the next on a shared machine, and short
# alternating runs give both tools the same drift.
tenth=$((ECHOES / 10))
: >"$TMP.reach"; : >"$TMP.iputils"
for _ in 1 2 3 4 5 6 7 8 9 10; do
  ip netns exec "$NS-a" "$REACH" ping -c "$tenth" -i 0.01 198.18.0.2 >>"$TMP.reach"
  ip netns exec "$NS-a" ping -c "$tenth" -i 0.01 198.18.0.2 >>"$TMP.iputils"
done
read -r reach_median reach_count < <(median <"$TMP.reach")
read -r iputils_median iputils_count < <(median <"$TMP.iputils")
python3 -c "
r, i = $reach_median, $iputils_median
print(f'median RTT, veth, {$reach_count}/{$iputils_count} echoes: reach {r:.3f} ms, iputils {i:.3f} ms, '
      f'difference {(r - i) * 1000:+.0f} us (target within 10 us), ratio {r / i:.2f}')"

# 2. and 3. Flood on loopback: wall time and peak memory, 10 runs each, interleaved; the
# best run of each (the least disturbed by the shared machine), and the medians beside.
best() { sort -n | head -1; }
median_of() { sort -n | awk '{v[NR] = $1} END {print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2}'; }
reach_runs=(); iputils_runs=()
for _ in 1 2 3 4 5 6 7 8 9 10; do
  reach_runs+=("$(measure "$REACH" ping -f -q -c "$FLOOD" 127.0.0.1)")
  iputils_runs+=("$(measure ping -f -q -c "$FLOOD" 127.0.0.1)")
done
reach_wall=$(printf '%s\n' "${reach_runs[@]}" | awk '{print $1}' | best)
iputils_wall=$(printf '%s\n' "${iputils_runs[@]}" | awk '{print $1}' | best)
reach_median=$(printf '%s\n' "${reach_runs[@]}" | awk '{print $1}' | median_of)
iputils_median=$(printf '%s\n' "${iputils_runs[@]}" | awk '{print $1}' | median_of)
reach_rss=$(printf '%s\n' "${reach_runs[@]}" | awk '{print $2}' | sort -n | tail -1)
iputils_rss=$(printf '%s\n' "${iputils_runs[@]}" | awk '{print $2}' | sort -n | tail -1)
python3 -c "
rw, iw, rm, im = $reach_wall, $iputils_wall, $reach_rss, $iputils_rss
rmed, imed = $reach_median, $iputils_median
print(f'flood -c $FLOOD on loopback, best of 10: reach {rw * 1000:.1f} ms, iputils {iw * 1000:.1f} ms, ratio {rw / iw if iw else float(\"nan\"):.2f} (target <= 1)')
print(f'  medians: reach {rmed * 1000:.1f} ms, iputils {imed * 1000:.1f} ms, ratio {rmed / imed if imed else float(\"nan\"):.2f}')
print(f'peak memory (max RSS): reach {rm / 1024:.1f} MiB, iputils {im / 1024:.1f} MiB, ratio {rm / im:.2f}')"
