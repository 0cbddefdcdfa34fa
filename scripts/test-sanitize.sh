#!/usr/bin/env bash
# make test-sanitize: the unit and integration tests under AddressSanitizer (with
# LeakSanitizer), then under ThreadSanitizer, each in its own scratch path (.build-asan,
# .build-tsan). The integration tests run the reach binary of the same sanitized build
# (REACH_BINARY). Every process writes its sanitizer reports to a file under
# <scratch>/sanitizer-reports, so a report from a reach child process that a test never
# looks at still fails the run. Suppressions, each with its reason: scripts/sanitizers/.
#
#   SANITIZERS=thread make test-sanitize     one of them
#   SANITIZE_FILTER=BadInput make ...        passed to swift test --filter
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
swift=${SWIFT:-swift}
sanitizers=${SANITIZERS:-address thread}
filter=()
[[ -n ${SANITIZE_FILTER:-} ]] && filter=(--filter "$SANITIZE_FILTER")

failed=0
summary=()
for sanitizer in $sanitizers; do
    case $sanitizer in
        address) scratch=.build-asan ;;
        thread) scratch=.build-tsan ;;
        *) echo "test-sanitize: no sanitizer '$sanitizer' (address, thread)" >&2; exit 64 ;;
    esac
    reports="$PWD/$scratch/sanitizer-reports"
    rm -rf "$reports"
    mkdir -p "$reports"
    start=$(date +%s)
    echo "test-sanitize: building with --sanitize=$sanitizer into $scratch"
    "$swift" build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
    built=$(date +%s)
    status=0
    # log_path: each process (the runner, every reach it starts) writes report.<pid> there.
    # atexit_sleep_ms=0: ThreadSanitizer otherwise holds every exiting process for 1 s, which
    # the tests that time reach (--timeout 300ms ends within 0.8 s) would take for a hang.
    ASAN_OPTIONS="detect_leaks=1:log_path=$reports/report" \
    LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp" \
    TSAN_OPTIONS="log_path=$reports/report:suppressions=$PWD/scripts/sanitizers/tsan.supp:atexit_sleep_ms=0" \
    REACH_BINARY="$PWD/$scratch/debug/reach" REACH_SANITIZER="$sanitizer" \
        "$swift" test --sanitize="$sanitizer" --scratch-path "$scratch" --skip-build "${filter[@]}" || status=$?
    finished=$(date +%s)
    # A report names an error; a file that only lists the suppressions used is none.
    found=$(grep -lE "ERROR: |WARNING: ThreadSanitizer" -r "$reports" | wc -l || true)
    if (( found > 0 )); then
        echo "test-sanitize: $found sanitizer report(s) under --sanitize=$sanitizer:" >&2
        while IFS= read -r report; do
            echo "--- $report" >&2
            head -60 "$report" >&2
        done < <(grep -lE "ERROR: |WARNING: ThreadSanitizer" -r "$reports")
    fi
    verdict=clean
    if (( status != 0 || found > 0 )); then
        failed=1
        verdict="FAILED (swift test exit $status, $found report(s))"
    fi
    summary+=("$(printf '%-8s build %4ss  tests %4ss  %s' "$sanitizer" "$((built - start))" "$((finished - built))" "$verdict")")
done

echo
printf '%s\n' "${summary[@]}"
exit $failed
