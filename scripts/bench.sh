#!/usr/bin/env bash
# `make bench`: what reach costs at start-up and per evaluation, beside `ip route get`,
# in one run. Not a test: it prints figures and a target check.
#
#   reach status            the internet check (two route lookups, one or two link queries)
#   reach addr 127.0.0.1    one route lookup, one link query
#   ip route get 127.0.0.1  iproute2's whole run for one route lookup
#   reach-parser-floor      the same swift-argument-parser command tree, parsing the same
#                           arguments, then a hello-world: the start-up floor every Swift CLI
#                           of this shape pays (measured for both reach command lines)
#
# Wall time: median of hyperfine runs (-N: no shell in between). Instructions: total Ir under
# valgrind --tool=callgrind, which repeats on a noisy machine where wall time does not.
# Target: (reach status Ir - floor Ir) <= ip route get Ir, i.e. the evaluation itself costs
# no more than iproute2's whole run.
#
# Only route lookups and link queries to the kernel: no packet is sent anywhere.
# Environment: RUNS (hyperfine runs per command, default 200), KEEP=1 keeps the temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."

REACH=${REACH:-.build/release/reach}
FLOOR=${FLOOR:-.build/release/reach-parser-floor}
IP=${IP:-$(command -v ip || echo /usr/sbin/ip)}
RUNS=${RUNS:-200}

for tool in hyperfine valgrind python3 strip; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing; run: scripts/install-deps.sh test" >&2; exit 1; }
done
for binary in "$REACH" "$FLOOR" "$IP"; do
    [ -x "$binary" ] || { echo "bench: $binary is missing; run: make bench" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/reach-bench.XXXXXX")
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$work"' EXIT; else echo "bench: keeping $work"; fi

names=("reach status" "reach addr 127.0.0.1" "ip route get 127.0.0.1" "floor status" "floor addr 127.0.0.1")
commands=("$REACH status" "$REACH addr 127.0.0.1" "$IP route get 127.0.0.1" "$FLOOR status" "$FLOOR addr 127.0.0.1")

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

python3 - "$work/hyperfine.json" "${irs[@]}" -- "${names[@]}" <<'PYTHON'
import json, sys

arguments = sys.argv[1:]
path = arguments.pop(0)
separator = arguments.index("--")
irs = [int(value) for value in arguments[:separator]]
names = arguments[separator + 1:]
results = json.load(open(path))["results"]
medians = [result["median"] * 1000 for result in results]  # ms

status, addr, ip, floor_status, floor_addr = range(5)
print(f"{'command':<24} {'median ms':>10} {'x ip':>6} {'instructions':>14} {'x ip':>6}")
for index, name in enumerate(names):
    print(f"{name:<24} {medians[index]:>10.3f} {medians[index] / medians[ip]:>6.2f}"
          f" {irs[index]:>14,} {irs[index] / irs[ip]:>6.2f}")
print()
for index, floor, label in ((status, floor_status, "reach status"), (addr, floor_addr, "reach addr 127.0.0.1")):
    above = irs[index] - irs[floor]
    print(f"{label} above the floor: {above:,} instructions"
          f" ({above / irs[ip]:.2f} x ip route get), {medians[index] - medians[floor]:.3f} ms")
above = irs[status] - irs[floor_status]
verdict = "PASS" if above <= irs[ip] else "FAIL"
print(f"target: reach status - floor <= ip route get: {above:,} <= {irs[ip]:,}: {verdict}")
PYTHON
for note in "${notes[@]}"; do echo "note: $note"; done
