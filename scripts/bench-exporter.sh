#!/usr/bin/env bash
# `make bench`, the exporter part (root; runnable alone, PROBERS=dns,grpc to choose): builds
# two namespaces joined by a veth, makes a CA and a server certificate with the openssl
# command, starts the targets once in the far namespace (the kernel's ICMP echo, banner and
# HTTP servers plain and over TLS, dnsmasq, grpcio's health service), then runs
# scripts/bench-exporter.py in the client namespace: reach-exporter beside blackbox_exporter,
# prober by prober. What is measured and each target: bench-exporter.py. Traffic stays
# inside the namespaces this script makes (rch-bench-exp-*), removed on exit.
# Exit: 0 every target met, 1 one missed, 77 skipped (not root), 2 the benchmark failed.
set -euo pipefail
cd "$(dirname "$0")/.."
EXPORTER=${EXPORTER:-$PWD/.build-exporter/release/reach-exporter}
EXPORTER=$(realpath -m "$EXPORTER")
export EXPORTER
GRPC_TREE=${GRPC_HEALTH_TREE:-$PWD/.build/grpc-health}
if [ "$(id -u)" -ne 0 ]; then echo "bench-exporter: skipped: needs root (namespaces)" >&2; exit 77; fi
for tool in ip ss openssl dnsmasq python3 prometheus-blackbox-exporter; do
  command -v "$tool" >/dev/null || { echo "bench-exporter: $tool missing (scripts/install-deps.sh test)"; exit 2; }
done
[ -f "$GRPC_TREE/grpc_health/v1/health.py" ] || { echo "bench-exporter: no grpcio in $GRPC_TREE (scripts/install-deps.sh test)"; exit 2; }
[ -x "$EXPORTER" ] || { echo "bench-exporter: no $EXPORTER (make build-exporter)"; exit 2; }

NS=rch-bench-exp-$$
TMP=$(mktemp -d /tmp/rch-bench-exp.XXXXXX)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  [ -f "$TMP/pids" ] && while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$TMP/pids"
  for n in client far; do ip netns delete "$NS-$n" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
for n in client far; do ip netns add "$NS-$n"; ip -n "$NS-$n" link set lo up; done
ip link add v0 netns "$NS-client" type veth peer name f0 netns "$NS-far"
ip -n "$NS-client" addr add 198.18.0.2/24 dev v0; ip -n "$NS-far" addr add 198.18.0.1/24 dev f0
ip -n "$NS-client" link set v0 up; ip -n "$NS-far" link set f0 up
# Every probe gets its echo reply: no ICMP rate limit in far (kernel net/ipv4/icmp.c).
ip netns exec "$NS-far" sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv4.icmp_msgs_per_sec=1000000 net.ipv4.icmp_msgs_burst=1000000

# A CA made now, and the targets' certificate from it (ECDSA P-256, for 198.18.0.1 and bench.test).
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
openssl req -x509 "${ec[@]}" -keyout "$TMP/ca.key" -out "$TMP/ca.crt" -days 2 -subj /CN=bench-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
openssl req "${ec[@]}" -keyout "$TMP/server.key" -out "$TMP/server.csr" -subj /CN=bench.test 2>/dev/null
printf 'subjectAltName=IP:198.18.0.1,DNS:bench.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$TMP/server.ext"
openssl x509 -req -in "$TMP/server.csr" -CA "$TMP/ca.crt" -CAkey "$TMP/ca.key" -CAcreateserial -days 2 \
  -extfile "$TMP/server.ext" -out "$TMP/server.crt" 2>/dev/null

# The targets, each started once and told apart by its port.
ip netns exec "$NS-far" python3 scripts/bench-exporter.py serve "$TMP" >"$TMP/serve.out" 2>/dev/null & echo $! >>"$TMP/pids"
ip netns exec "$NS-far" dnsmasq --keep-in-foreground --no-resolv --no-hosts --host-record=bench.test,198.18.0.1 \
  --bind-interfaces --listen-address=198.18.0.1 --port=53 --pid-file= --user=root >/dev/null 2>&1 & echo $! >>"$TMP/pids"
ip netns exec "$NS-far" env PYTHONPATH="$GRPC_TREE" python3 Tests/ReachIntegrationTests/Helpers/grpc-health-server.py \
  198.18.0.1 50051 >"$TMP/grpc.out" 2>/dev/null & echo $! >>"$TMP/pids"
for port in 2525 2526 8080 8443 53 50051; do
  for _ in $(seq 100); do
    [ -n "$(ip netns exec "$NS-far" ss -Hltn "sport = :$port")" ] && break
    sleep 0.1
  done
  [ -n "$(ip netns exec "$NS-far" ss -Hltn "sport = :$port")" ] || { echo "bench-exporter: no target listens on $port"; exit 2; }
done

echo "== reach-exporter beside $(prometheus-blackbox-exporter --version 2>&1 | head -1)"
ip netns exec "$NS-client" python3 scripts/bench-exporter.py inside "$TMP"
