#!/usr/bin/env bash
# make test-deb: installs the two packages on this machine (root), checks what they put
# there, purges them and checks that nothing is left.
#   scripts/test-deb.sh REACH.deb REACH-EXPORTER.deb
# What runs a program does so inside a network namespace of its own (test-deb-PID): no
# packet leaves it, and the exporter's port is its own.
set -euo pipefail
cd "$(dirname "$0")/.."
reach_deb=$1
exporter_deb=$2
[ "$(id -u)" -eq 0 ] || { echo "test-deb: needs root (dpkg -i)" >&2; exit 1; }
for package in reach reach-exporter; do
    if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q installed; then
        echo "test-deb: $package is installed here already; the test would purge it" >&2
        exit 1
    fi
done

failures=0
fail() { echo "test-deb: FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "test-deb: ok: $*"; }
# check WHAT COMMAND...: passes or fails WHAT by the command's status.
check() {
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}

namespace="test-deb-$$"
work=$(mktemp -d)
exporter_pid=
cleanup() {
    if [ -n "$exporter_pid" ]; then kill "$exporter_pid" 2>/dev/null || true; fi
    ip netns delete "$namespace" 2>/dev/null || true
    rm -rf "$work"
    # A failed run must not leave the packages installed.
    dpkg --purge reach-exporter reach >/dev/null 2>&1 || true
}
trap cleanup EXIT
ip netns add "$namespace"
ip -n "$namespace" link set lo up
in_namespace() { ip netns exec "$namespace" "$@"; }

# A fresh machine's state, to compare with after the purge.
getent passwd | cut -d: -f1 | sort > "$work/users.before"

dpkg -i "$reach_deb" "$exporter_deb"
dpkg -L reach reach-exporter | sort -u > "$work/files"

# --- reach ---
version=$(dpkg-query -W -f='${Version}' reach)
if out=$(/usr/bin/reach --version) && [ "$out" = "reach $version" ]; then pass "reach --version: $out"
else fail "reach --version said '$out', the package is $version"; fi
# No route in the empty namespace: exit 1 and the reason, from the kernel's answer.
status=0
out=$(in_namespace /usr/bin/reach status) || status=$?
if [ "$status" -eq 1 ] && grep -q "not reachable (no route)" <<<"$out"; then pass "reach status: exit 1, $out"
else fail "reach status: exit $status: $out"; fi
if out=$(/usr/bin/reach-exporter --version) && [ "$out" = "reach-exporter $version" ]; then pass "reach-exporter --version: $out"
else fail "reach-exporter --version said '$out', the package is $version"; fi

# The capability, where ping_group_range does not take in every group (the postinst's rule).
read -r low high < /proc/sys/net/ipv4/ping_group_range
caps=$(getcap /usr/bin/reach)
if [ "$low" -le 0 ] && [ "$high" -ge 2147483647 ]; then
    check "no capability '$caps': ping_group_range '$low $high' covers every group" [ -z "$caps" ]
else
    check "capability '$caps' (ping_group_range '$low $high')" test "${caps##* }" = cap_net_raw=p
fi
# With it, reach ping works for a user other than root.
if out=$(in_namespace setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/reach ping -c 1 -W 2 127.0.0.1 2>&1); then
    pass "reach ping as nobody: $(head -1 <<<"$out")"
else fail "reach ping as nobody: $out"; fi
for file in /usr/share/man/man1/reach.1.gz /usr/share/bash-completion/completions/reach \
            /usr/share/zsh/vendor-completions/_reach /usr/share/fish/vendor_completions.d/reach.fish \
            /usr/share/man/man1/reach-exporter.1.gz /usr/share/doc/reach/copyright /usr/share/doc/reach-exporter/copyright; do
    [ -s "$file" ] || fail "missing: $file"
done

# --- the units ---
for unit in reach-exporter reach-wait-online; do
    path=/lib/systemd/system/$unit.service
    [ -f "$path" ] || { fail "missing: $path"; continue; }
    if out=$(systemd-analyze verify "$path" 2>&1) && [ -z "$out" ]; then pass "systemd-analyze verify $unit.service: clean"
    else fail "systemd-analyze verify $unit.service: $out"; fi
    exposure=$(systemd-analyze security --offline=true "$path" 2>&1 | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
    if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }'; then pass "$unit.service exposure $exposure"
    else fail "$unit.service exposure '$exposure', more than 2.0"; fi
done
check "reach-exporter.service enabled" test -L /etc/systemd/system/multi-user.target.wants/reach-exporter.service
check "reach-wait-online.service disabled" test ! -e /etc/systemd/system/network-online.target.wants/reach-wait-online.service
conffiles=$(dpkg-query -W -f='${Conffiles}' reach-exporter)
for conffile in /etc/default/reach-exporter /etc/reach-exporter/blackbox.yml; do
    check "conffile $conffile" grep -q " $conffile " <<<"$conffiles"
done

# The exporter with the installed arguments and configuration, as the unit starts it: it
# serves, and SIGHUP (systemctl reload) rereads the file without ending it.
# shellcheck disable=SC1091 # the file the package installed
ARGS=$(. /etc/default/reach-exporter && echo "$ARGS")
# Not through in_namespace: `ip netns exec` execs the exporter, so $! is the exporter itself.
# shellcheck disable=SC2086 # ARGS is words, as the unit's $ARGS
ip netns exec "$namespace" /usr/bin/reach-exporter $ARGS > /dev/null 2> "$work/exporter.log" &
exporter_pid=$!
get() { in_namespace python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"; }
for _ in $(seq 50); do grep -q "listening on" "$work/exporter.log" && break; sleep 0.1; done
if out=$(get http://127.0.0.1:10115/-/healthy) && [ "$out" = Healthy ]; then pass "/-/healthy: $out"
else fail "/-/healthy: '$out' ($(cat "$work/exporter.log"))"; fi
kill -HUP "$exporter_pid"
sleep 0.5
if out=$(get http://127.0.0.1:10115/metrics) && grep -q '^reach_exporter_config_last_reload_successful 1' <<<"$out"; then
    pass "after SIGHUP: still serving, reach_exporter_config_last_reload_successful 1"
else fail "after SIGHUP: $(cat "$work/exporter.log")"; fi
kill "$exporter_pid"
status=0
wait "$exporter_pid" || status=$?
check "reach-exporter ends with 0 on SIGTERM ($status)" test "$status" -eq 0
exporter_pid=

# --- purge: nothing left ---
dpkg --purge reach-exporter reach
left=()
while read -r path; do
    # Directories other packages own too (/usr/bin, /etc) stay, and must.
    if [ -e "$path" ] && [ ! -d "$path" ]; then left+=("$path"); fi
done < "$work/files"
for path in /etc/reach-exporter /etc/default/reach-exporter /usr/share/doc/reach /usr/share/doc/reach-exporter \
            /etc/systemd/system/multi-user.target.wants/reach-exporter.service \
            /var/lib/systemd/deb-systemd-helper-enabled/reach-exporter.service.dsh-also \
            /var/lib/systemd/deb-systemd-helper-enabled/reach-wait-online.service.dsh-also; do
    [ -e "$path" ] && left+=("$path")
done
check "purge: no file left (${left[*]})" test ${#left[@]} -eq 0
getent passwd | cut -d: -f1 | sort > "$work/users.after"
if diff "$work/users.before" "$work/users.after" >/dev/null; then pass "purge: no user left"
else fail "users changed: $(diff "$work/users.before" "$work/users.after" | tr '\n' ' ')"; fi
leftcaps=$(getcap -r /usr/bin 2>/dev/null | grep reach || true)
check "purge: no capability left ($leftcaps)" test -z "$leftcaps"

if [ "$failures" -ne 0 ]; then
    echo "test-deb: $failures failures" >&2
    exit 1
fi
echo "test-deb: all checks passed"
