#!/usr/bin/env bash
# `make bench`, many targets (root): builds the namespaces and DNS, then runs
# scripts/bench-many.py in the client namespace (reach beside fping, ip -batch and getent
# ahosts) and, for system calls beside the machine's own NIC, in the host namespace (route
# lookups only: nothing is sent there). What is measured and each target: bench-many.py.
# The far namespace answers on 198.18.64.0/18 (a local route), reached through a router
# namespace; DNS from dnsmasq and a silent server in the router. Traffic stays inside the
# namespaces this script makes (rch-bench-many-*), removed on exit.
# Exit: 0 every target met, 1 one missed, 77 skipped (not root), 2 the benchmark failed.
set -euo pipefail
cd "$(dirname "$0")/.."
REACH=${REACH:-$PWD/.build/release/reach}
export REACH
if [ "$(id -u)" -ne 0 ]; then echo "bench-many: skipped: needs root (namespaces)" >&2; exit 77; fi
for tool in ip fping dnsmasq python3 strace getent /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-many: $tool missing (scripts/install-deps.sh test)"; exit 2; }
done
[ -x "$REACH" ] || { echo "bench-many: no $REACH (make build)"; exit 2; }

NS=rch-bench-many-$$
TMP=$(mktemp -d /tmp/rch-bench-many.XXXXXX)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  [ -f "$TMP/pids" ] && while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$TMP/pids"
  for n in c r f; do ip netns delete "$NS-$n" 2>/dev/null || true; done
  rm -rf "/etc/netns/$NS-c" "$TMP"
}
trap cleanup EXIT
for n in c r f; do ip netns add "$NS-$n"; ip -n "$NS-$n" link set lo up; done
ip link add v0 netns "$NS-c" type veth peer name r0 netns "$NS-r"
ip link add r1 netns "$NS-r" type veth peer name f0 netns "$NS-f"
ip -n "$NS-c" addr add 198.18.0.2/24 dev v0; ip -n "$NS-r" addr add 198.18.0.1/24 dev r0
ip -n "$NS-r" addr add 198.18.0.3/24 dev r0
ip -n "$NS-r" addr add 198.18.1.1/24 dev r1; ip -n "$NS-f" addr add 198.18.1.2/24 dev f0
ip -n "$NS-c" link set v0 up; ip -n "$NS-r" link set r0 up; ip -n "$NS-r" link set r1 up; ip -n "$NS-f" link set f0 up
ip -n "$NS-c" route add default via 198.18.0.1
ip -n "$NS-f" route add default via 198.18.1.1
ip -n "$NS-r" route add 198.18.64.0/18 via 198.18.1.2
# The far end answers for every address of 198.18.64.0/18 (AnyIP: a local route).
ip -n "$NS-f" route add local 198.18.64.0/18 dev lo
ip netns exec "$NS-r" sysctl -qw net.ipv4.ip_forward=1
for n in r f; do
  ip netns exec "$NS-$n" sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv4.icmp_msgs_per_sec=1000000 net.ipv4.icmp_msgs_burst=1000000
done
for _ in $(seq 50); do ip netns exec "$NS-c" ping -c1 -W1 -q 198.18.64.1 >/dev/null 2>&1 && break; sleep 0.1; done

# DNS: 1,000 names d*.good.test from dnsmasq; a list of 90 good names and 10 under slow.test forwarded to a server that never answers.
python3 - "$TMP" <<'PYTHON'
import sys
tmp = sys.argv[1]
with open(f"{tmp}/names", "w") as names, open(f"{tmp}/dnsmasq.conf", "w") as conf:
    for index in range(100):
        if index % 10 == 9:
            names.write(f"h{index}.slow.test\n")
        else:
            names.write(f"n{index}.good.test\n")
            conf.write(f"host-record=n{index}.good.test,198.18.{64 + index // 250}.{index % 250 + 1}\n")
    for index in range(1000):
        conf.write(f"host-record=d{index}.good.test,198.18.{64 + index // 250}.{index % 250 + 1}\n")
    conf.write("server=/slow.test/198.18.0.3\n")
with open(f"{tmp}/silent.py", "w") as silent:
    silent.write("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.bind(('198.18.0.3', 53))\n"
                 "print('listening', flush=True)\nwhile True: s.recvfrom(4096)\n")
PYTHON
ip netns exec "$NS-r" python3 "$TMP/silent.py" >/dev/null 2>&1 & echo $! >>"$TMP/pids"
ip netns exec "$NS-r" dnsmasq --keep-in-foreground --no-resolv --no-hosts --conf-file="$TMP/dnsmasq.conf" \
  --bind-interfaces --listen-address=198.18.0.1 --port=53 --pid-file= --user=root >/dev/null 2>&1 & echo $! >>"$TMP/pids"
# The client's resolver and hosts file (ip netns exec bind-mounts /etc/netns/NS/* over /etc).
mkdir -p "/etc/netns/$NS-c"
printf 'nameserver 198.18.0.1\noptions timeout:5 attempts:2\n' >"/etc/netns/$NS-c/resolv.conf"
python3 -c "
with open('/etc/netns/$NS-c/hosts', 'w') as hosts:
    hosts.write('127.0.0.1 localhost\n')
    for i in range(10000): hosts.write(f'198.18.{64 + i // 250}.{i % 250 + 1} t{i}.hosts.test\n')"
for _ in $(seq 50); do ip netns exec "$NS-c" getent hosts n0.good.test >/dev/null 2>&1 && break; sleep 0.1; done

echo "== many targets: reach beside fping $(fping --version 2>&1 | sed 's/.*Version //'), $(ip -V | sed 's/.*\(iproute2-[^,]*\).*/\1/') and getent"
status=0
ip netns exec "$NS-c" python3 scripts/bench-many.py inside "$TMP" || status=$?
# The host namespace: route lookups only, for the system calls beside the machine's own NIC.
python3 scripts/bench-many.py host "$TMP" || { rc=$?; [ "$status" -ge "$rc" ] || status=$rc; }
exit "$status"
