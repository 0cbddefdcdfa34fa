#!/usr/bin/env bash
# make test-flakes: the flake hunt. Runs the same tests FLAKE_RUNS times (default 5), on the
# plain debug build or a sanitizer build, optionally beside a busy loop on every core, and
# prints one table: every test that failed in any run, with its runs and failures. A test
# that fails once in five is a test that fails CI one day in five.
#
#   FLAKE_RUNS=5                  how many runs
#   FLAKE_FILTER=ReachIntegrationTests   passed to swift test --filter (a suite, a test, a regex)
#   FLAKE_LOAD=1                  a busy loop on every core (nproc) for the whole hunt
#   FLAKE_SANITIZER=address       run under scripts/test-sanitize.sh (address or thread),
#                                 whose sanitizer reports count as a failed run
#
# Each run's output is kept in .build/flakes/<build>-<n>.log. Exit 1 when any run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
swift=${SWIFT:-swift}
runs=${FLAKE_RUNS:-5}
filter=${FLAKE_FILTER:-ReachIntegrationTests}
sanitizer=${FLAKE_SANITIZER:-}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "test-flakes: FLAKE_RUNS must be a whole number from 1 ('$runs')" >&2; exit 64; }
case $sanitizer in
    "" | address | thread) ;;
    *) echo "test-flakes: no sanitizer '$sanitizer' (address, thread)" >&2; exit 64 ;;
esac
build=${sanitizer:-plain}
logs=.build/flakes
mkdir -p "$logs"
rm -f "$logs/$build"-*.log

hogs=()
stop_hogs() {
    if [[ ${#hogs[@]} -gt 0 ]]; then kill "${hogs[@]}" 2>/dev/null || true; fi
}
trap stop_hogs EXIT
if [[ ${FLAKE_LOAD:-0} != 0 ]]; then
    for _ in $(seq "$(nproc)"); do
        # A subshell spinning on a shell builtin: all user time, no I/O, no memory.
        (while :; do :; done) &
        hogs+=($!)
    done
    echo "test-flakes: a busy loop on each of $(nproc) cores (pids ${hogs[*]})"
fi

if [[ -z $sanitizer ]]; then
    "$swift" build --build-tests
fi
started=$(date +%s)
for run in $(seq "$runs"); do
    log="$logs/$build-$run.log"
    echo "test-flakes: run $run of $runs ($build, --filter $filter) -> $log"
    status=0
    if [[ -n $sanitizer ]]; then
        SANITIZERS=$sanitizer SANITIZE_FILTER=$filter scripts/test-sanitize.sh > "$log" 2>&1 || status=$?
    else
        "$swift" test --skip-build --filter "$filter" > "$log" 2>&1 || status=$?
    fi
    # A run that failed with no failed test case (a crash of the runner, a sanitizer report)
    # still counts: its own row.
    echo "test-flakes: run $run exit $status" >> "$log"
done
stop_hogs
echo
echo "test-flakes: $runs run(s) of --filter $filter on the $build build in $(( $(date +%s) - started )) s" \
    "(load: ${FLAKE_LOAD:-0})"
# XCTest's lines (swift-corelibs-xctest): "Test Case 'Suite.test' passed|failed (N seconds)".
awk '
    /^Test Case .* (passed|failed) \(/ {
        name = $3; gsub(/\047/, "", name)
        seen[name]++
        if ($4 == "failed") failed[name]++
    }
    /^test-flakes: run [0-9]+ exit / { finished++; if ($NF != 0) exits++ }
    END {
        printf "%-72s %5s %8s\n", "test", "runs", "failures"
        for (name in failed) { printf "%-72s %5d %8d\n", name, seen[name], failed[name]; any = 1 }
        if (!any) printf "%-72s %5d %8d\n", "(no test failed; " length(seen) " tests ran)", finished, 0
        if (exits) printf "%-72s %5d %8d\n", "(runs that exited non-zero)", finished, exits
        exit (any || exits) ? 1 : 0
    }' "$logs/$build"-*.log
