#!/usr/bin/env bash
# `make bench`: what reach costs at start-up and per evaluation, beside `ip route get`,
# in one run. Not a test: it prints figures and a target check.
#
#   reach status            the internet check (two route lookups, one or two link queries)
#   reach addr 127.0.0.1    one route lookup, one link query
#   reach host localhost    a name from /etc/hosts, then one route lookup, one link query
#   ip route get 127.0.0.1  iproute2's whole run for one route lookup
#   reach-parser-floor      reach's command line read from the same declarations, then a
#                           hello-world (or the help, or the one-line usage error): what
#                           every command line pays before any work, on the one road
#
# Wall time: median of hyperfine runs (-N: no shell in between). Instructions: total Ir under
# valgrind --tool=callgrind, which repeats on a noisy machine where wall time does not.
# Then each reach command against `ip route get` as a whole, with a target each: total
# instructions at most 2x; wall time at most 1.5x, the paired ratio over ALTERNATE pairs
# that alternate ABBA with ip, both writing to the same pipe (scripts/benchlib.py), its
# whole 95% interval; peak RSS of `reach status` at most 2.5x (median of RSS_RUNS runs under
# /usr/bin/time); the floor's instructions at most 1.5x for a plain command line, help and
# a usage error; and the size of the binary as `make install` leaves it (stripped), at
# most 9.5 MB.
# Exit: 0 every target met, 1 one missed, 2 the benchmark could not measure.
#
# Only route lookups and link queries to the kernel: no packet is sent anywhere.
# Environment: RUNS (hyperfine runs per command, default 200), ALTERNATE (alternating rounds,
# default 200), RSS_RUNS (default 9), KEEP=1 keeps the temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."

REACH=${REACH:-.build/release/reach}
FLOOR=${FLOOR:-.build/release/reach-parser-floor}
IP=${IP:-$(command -v ip || echo /usr/sbin/ip)}
RUNS=${RUNS:-200}
ALTERNATE=${ALTERNATE:-200}
RSS_RUNS=${RSS_RUNS:-9}

for tool in hyperfine valgrind python3 strip /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing; run: scripts/install-deps.sh test" >&2; exit 2; }
done
for binary in "$REACH" "$FLOOR" "$IP"; do
    [ -x "$binary" ] || { echo "bench: $binary is missing; run: make bench" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/reach-bench.XXXXXX")
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$work"' EXIT; else echo "bench: keeping $work"; fi

names=("reach status" "reach addr 127.0.0.1" "ip route get 127.0.0.1" "floor status" "floor --help"
    "reach host localhost" "floor stauts")
commands=("$REACH status" "$REACH addr 127.0.0.1" "$IP route get 127.0.0.1" "$FLOOR status" "$FLOOR --help"
    "$REACH host localhost" "$FLOOR stauts")

# Each command once as itself: a usage error or a system failure would make the figures meaningless.
# (reach status may say "not reachable", exit 1, on a machine with no default route: still a measurement.)
for index in "${!commands[@]}"; do
    set +e
    ${commands[$index]} >"$work/out.$index" 2>"$work/err.$index"
    status=$?
    set -e
    if [ "$status" -gt 1 ]; then
        echo "bench: '${names[$index]}' exited $status: $(head -1 "$work/err.$index")" >&2
        exit 1
    fi
done
echo "reach status says:"
sed 's/^/    /' "$work/out.0"
echo

# Wall time.
hyperfine -N --style basic --warmup 10 --runs "$RUNS" --ignore-failure \
    --export-json "$work/hyperfine.json" "${commands[@]}" >"$work/hyperfine.log" 2>&1 \
    || { cat "$work/hyperfine.log" >&2; exit 1; }

# Instructions: total Ir from callgrind's output file, median of three runs. valgrind 3.19 has
# refused unstripped static-stdlib Swift binaries (docs/LINUX-FACTS.md): then a stripped copy is measured
# (stripping removes symbols only; the code executed is the same).
callgrind_ir() { # command words...
    local out="$work/callgrind.out.$RANDOM$RANDOM"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log" || true
    [ -s "$out" ] || return 1
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
}
stripped_copy() { # binary -> path of a stripped copy
    local copy
    copy="$work/$(basename "$1").stripped"
    [ -x "$copy" ] || strip -o "$copy" "$1"
    echo "$copy"
}
median_ir() { # command words...
    local runs=() value
    for _ in 1 2 3; do
        value=$(callgrind_ir "$@") || return 1
        runs+=("$value")
    done
    printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p
}
notes=()
irs=()
for index in "${!commands[@]}"; do
    read -r -a words <<<"${commands[$index]}"
    if ! value=$(median_ir "${words[@]}"); then
        words[0]=$(stripped_copy "${words[0]}")
        notes+=("valgrind refused ${names[$index]}: measured a stripped copy")
        value=$(median_ir "${words[@]}") || { echo "bench: callgrind failed for '${names[$index]}'" >&2; exit 1; }
    fi
    irs+=("$value")
done

# Peak RSS (KiB), median of RSS_RUNS runs, from /usr/bin/time: a small parent (a child
# forked from a big one, such as python, would inherit its high-water mark across exec).
rss_of() { # command words...
    local runs=()
    for _ in $(seq "$RSS_RUNS"); do
        "/usr/bin/time" -f "%M" -o "$work/rss" "$@" >/dev/null 2>&1 || true
        runs+=("$(tail -1 "$work/rss")")
    done
    printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(((RSS_RUNS + 1) / 2))p"
}
rsses=()
for index in "${!commands[@]}"; do
    read -r -a words <<<"${commands[$index]}"
    rsses+=("$(rss_of "${words[@]}")")
done
stripped=$(stripped_copy "$REACH")

python3 - "$work/hyperfine.json" "${irs[@]}" -- "${names[@]}" <<'PYTHON'
import json, sys

arguments = sys.argv[1:]
path = arguments.pop(0)
separator = arguments.index("--")
irs = [int(value) for value in arguments[:separator]]
names = arguments[separator + 1:]
results = json.load(open(path))["results"]
medians = [result["median"] * 1000 for result in results]  # ms

status, addr, ip, floor_status = range(4)
print(f"{'command':<24} {'median ms':>10} {'x ip':>6} {'instructions':>14} {'x ip':>6}")
for index, name in enumerate(names):
    print(f"{name:<24} {medians[index]:>10.3f} {medians[index] / medians[ip]:>6.2f}"
          f" {irs[index]:>14,} {irs[index] / irs[ip]:>6.2f}")
print()
# The floor is what every command line pays before any work.
print(f"the command line (reach-parser-floor status): {irs[floor_status]:,} instructions, {medians[floor_status]:.3f} ms;"
      f" reach status: {irs[status]:,} ({irs[status] / irs[floor_status]:.2f} x the floor)")
PYTHON

# Each reach command against ip route get: the targets of the whole run.
status=0
python3 - "$ALTERNATE" "$REACH" "$stripped" "${irs[@]}" -- "${rsses[@]}" -- "${names[@]}" -- "${commands[@]}" <<'PYTHON' || status=$?
import os, statistics, sys

sys.dont_write_bytecode = True
sys.path.insert(0, "scripts")
import benchlib

arguments = sys.argv[1:]
rounds, binary, stripped = int(arguments.pop(0)), arguments.pop(0), arguments.pop(0)
first = arguments.index("--")
irs = [int(value) for value in arguments[:first]]
rest = arguments[first + 1:]
second = rest.index("--")
rsses = [int(value) for value in rest[:second]]
rest = rest[second + 1:]
third = rest.index("--")
names, commands = rest[:third], [command.split() for command in rest[third + 1:]]
status, addr, ip, host = 0, 1, 2, 5
floors = (3, 4, 6)
report = benchlib.Report("bench")

# Each reach command paired with ip route get, ABBA; exit 1 ("not reachable") still counts.
walls = {}
for index in (status, addr, host):
    runs = benchlib.alternate({"reach": lambda: benchlib.run(commands[index]), "ip": lambda: benchlib.run(commands[ip])}, rounds)
    walls[index] = (benchlib.ratio_interval([r.wall_ms for r in runs["reach"]], [r.wall_ms for r in runs["ip"]]),
                    statistics.median(r.wall_ms for r in runs["reach"]), statistics.median(r.wall_ms for r in runs["ip"]))

report.line()
report.line(f"against ip route get 127.0.0.1 (wall: {rounds} ABBA pairs each, paired ratio; peak RSS, median of runs):")
report.line(f"{'command':<24} {'instructions':>14} {'x ip':>6} {'median ms':>10} {'x ip (95% interval)':>24} {'peak RSS KiB':>13} {'x ip':>6}")
for index in (status, addr, host):
    ratio, median, _ = walls[index]
    report.line(f"{names[index]:<24} {irs[index]:>14,} {irs[index] / irs[ip]:>6.2f} {median:>10.3f}"
                f" {ratio.estimate:>8.2f} ({ratio.low:.2f} to {ratio.high:.2f}) {rsses[index]:>13,} {rsses[index] / rsses[ip]:>6.2f}")
report.line(f"{names[ip]:<24} {irs[ip]:>14,} {1:>6.2f} {walls[status][2]:>10.3f} {'':>24} {rsses[ip]:>13,} {1:>6.2f}")
for index in (status, addr, host):
    ratio = irs[index] / irs[ip]
    report.target(f"{names[index]} instructions <= 2 x ip route get", ratio <= 2, f"{ratio:.2f} x")
for index in floors:
    ratio = irs[index] / irs[ip]
    report.target(f"{names[index]} instructions <= 1.5 x ip route get", ratio <= 1.5, f"{irs[index]:,}, {ratio:.2f} x")
for index in (status, addr, host):
    ratio = walls[index][0]
    report.target(f"{names[index]} wall time <= 1.5 x ip route get", benchlib.at_most(ratio, 1.5), f"ratio at most {ratio.high:.2f}")
ratio = rsses[status] / rsses[ip]
report.target("reach status peak RSS <= 2.5 x ip route get", ratio <= 2.5, f"{rsses[status] / 1024:.1f} MiB, {ratio:.2f} x")
size, stripped_size = os.path.getsize(binary), os.path.getsize(stripped)
report.line(f"binary: {stripped_size / 1e6:.1f} MB stripped, as make install leaves it ({size / 1e6:.1f} MB as built)")
report.target("reach stripped <= 9.5 MB", stripped_size <= 9.5e6, f"{stripped_size / 1e6:.2f} MB")
sys.exit(report.finish())
PYTHON
for note in "${notes[@]}"; do echo "note: $note"; done
exit "$status"
