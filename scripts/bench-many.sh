#!/usr/bin/env bash
# `make bench`, many-targets section (root): reach beside its peer tool in the same run.
#  1. reach ping -c 3 -q beside fping -c 3 -q, 1,000 targets, the same interval and period:
#     wall time, echoes answered, every target's xmt/rcv/%loss; target: reach's wall at
#     most fping's, the counts equal
#  2. reach ping -c 1 -i 0.001 beside fping -c 1 -i 1, 1,000 targets: wall and loss
#  3. reach addr with 10,000 addresses beside ip -batch with 10,000 route get: wall
#  4. reach host with 100 names, 10 of them hanging in DNS, --timeout 1s: wall < 1.5 s,
#     the 90 good names answered
#  5. scale: addr, host (names from /etc/hosts) and ping -c 1 with 1,000 and 10,000
#     targets: wall, peak memory, open descriptors, all answered
# The far namespace answers on 198.18.64.0/18 (a local route), reached through a router
# namespace; DNS from dnsmasq and a silent server in the router. Traffic stays inside the
# namespaces this script makes (rch-bench-many-*), removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
REACH=${REACH:-$PWD/.build/release/reach}
ROUNDS=${ROUNDS:-3}
if [ "$(id -u)" -ne 0 ]; then echo "bench-many: needs root (namespaces)"; exit 0; fi
for tool in ip fping dnsmasq python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-many: $tool missing (scripts/install-deps.sh test)"; exit 1; }
done
[ -x "$REACH" ] || { echo "bench-many: no $REACH (make build)"; exit 1; }

NS=rch-bench-many-$$
TMP=$(mktemp -d /tmp/rch-bench-many.XXXXXX)
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

# DNS: 90 good names from dnsmasq, 10 under slow.test forwarded to a server that never answers.
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

echo "== many targets: reach beside fping $(fping --version 2>&1 | sed 's/.*Version //') and ip -batch"
ip netns exec "$NS-c" python3 - "$REACH" "$ROUNDS" "$TMP" <<'PYTHON'
import os, re, statistics, subprocess, sys, threading, time

reach, rounds, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def targets(count):
    return [f"198.18.{64 + i // 250}.{i % 250 + 1}" for i in range(count)]

def run(argv, stdin=None):
    """(wall seconds, stdout, stderr, exit status, peak RSS KiB, most descriptors open)."""
    start = time.perf_counter()
    process = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", f"{tmp}/rss"] + argv,
                               stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    most = [0]
    def sample():
        # The timed child's descriptors, sampled while it runs.
        while process.poll() is None:
            try:
                child = open(f"/proc/{process.pid}/task/{process.pid}/children").read().split()
                if child: most[0] = max(most[0], len(os.listdir(f"/proc/{child[0]}/fd")))
            except OSError:
                pass
            time.sleep(0.005)
    sampler = threading.Thread(target=sample)
    sampler.start()
    out, err = process.communicate(stdin.encode() if stdin else None)
    wall = time.perf_counter() - start
    sampler.join()
    rss = int(open(f"{tmp}/rss").read().split()[-1])
    return wall, out.decode(), err.decode(), process.returncode, rss, most[0]

def summaries(text):
    """target -> (xmt/rcv/%loss, avg ms or None) from fping-style summary lines."""
    found = {}
    for line in text.splitlines():
        match = re.match(r"(\S+)\s+: xmt/rcv/%loss = (\S+?)(?:, min/avg/max = [0-9.]+/([0-9.]+)/[0-9.]+)?$", line)
        if match: found[match.group(1)] = (match.group(2), float(match.group(3)) if match.group(3) else None)
    return found

def paired(name, commands):
    """Runs each command ROUNDS times, alternating who goes first; the runs, by tool."""
    results = {tool: [] for tool in commands}
    for index in range(rounds):
        order = list(commands) if index % 2 == 0 else list(reversed(list(commands)))
        for tool in order:
            results[tool].append(run(commands[tool]))
    return results

def fping_compare(title, reach_argv, fping_argv, count):
    results = paired(title, {"reach": reach_argv, "fping": fping_argv})
    walls = {tool: statistics.median(r[0] for r in runs) for tool, runs in results.items()}
    last = {tool: summaries(runs[-1][2]) for tool, runs in results.items()}
    answered = {tool: sum(int(c.split("/")[1]) for c, _ in last[tool].values()) for tool in last}
    equal = sum(1 for t in last["fping"] if last["reach"].get(t, (None,))[0] == last["fping"][t][0])
    averages = {tool: statistics.median([a for _, a in last[tool].values() if a is not None] or [float("nan")]) for tool in last}
    verdict = "met" if walls["reach"] <= walls["fping"] and answered["reach"] >= answered["fping"] else "missed"
    print(f"{title}: wall (median of {rounds}) reach {walls['reach']:.3f} s, fping {walls['fping']:.3f} s, "
          f"ratio {walls['reach'] / walls['fping']:.2f}; echoes answered reach {answered['reach']}, fping {answered['fping']} "
          f"of {count}; per-target xmt/rcv/%loss equal for {equal} of {len(last['fping'])} targets; "
          f"median per-target avg RTT reach {averages['reach']:.3f} ms, fping {averages['fping']:.3f} ms ({verdict})")

thousand = targets(1000)
# 1. The same interval (1 ms) and period (1 s) for both.
fping_compare("1. ping -c 3 -q, 1,000 targets, -i 1 ms, period 1 s",
              [reach, "ping", "-c", "3", "-q", "-i", "0.001", "--period", "1"] + thousand,
              ["fping", "-c", "3", "-q", "-i", "1", "-p", "1000"] + thousand, 3000)
# 2. The fastest rate each allows as root.
fping_compare("2. ping -c 1 -q, 1,000 targets, reach -i 0.001 / fping -i 1",
              [reach, "ping", "-c", "1", "-q", "-i", "0.001"] + thousand,
              ["fping", "-c", "1", "-q", "-i", "1"] + thousand, 1000)

# 3. 10,000 route lookups: reach addr against ip -batch.
ten = targets(10000)
with open(f"{tmp}/batch", "w") as batch:
    batch.writelines(f"route get {address}\n" for address in ten)
results = paired("addr", {"reach": [reach, "addr", "-q"] + ten, "ip": ["ip", "-batch", f"{tmp}/batch"]})
walls = {tool: statistics.median(r[0] for r in runs) for tool, runs in results.items()}
lines = run([reach, "addr"] + ten)[1].count("reachable via")
print(f"3. addr, 10,000 addresses: reach {walls['reach'] * 1000:.1f} ms, ip -batch route get {walls['ip'] * 1000:.1f} ms, "
      f"ratio {walls['reach'] / walls['ip']:.2f}; {lines} reachable (target: reach faster: "
      f"{'met' if walls['reach'] < walls['ip'] else 'missed'})")

# 4. 100 names, 10 hanging in DNS.
names = open(f"{tmp}/names").read().split()
walls, good = [], []
for _ in range(rounds):
    wall, out, _, status, _, _ = run([reach, "host", "--timeout", "1s"] + names)
    walls.append(wall)
    good.append(sum(1 for line in out.splitlines() if "good.test" in line and "reachable via" in line))
print(f"4. host, 100 names, 10 hanging, --timeout 1s: wall {statistics.median(walls):.3f} s (max {max(walls):.3f}), "
      f"good names answered {min(good)} of 90, exit {status} (target: under 1.5 s, all 90: "
      f"{'met' if max(walls) < 1.5 and min(good) == 90 else 'missed'})")

# 5. Scale: 1,000 against 10,000 targets.
print("5. scale (1,000 -> 10,000 targets): wall, peak RSS, most descriptors open, answered")
def scale(label, make, answered):
    row = []
    for count in (1000, 10000):
        wall, out, err, status, rss, fds = run(make(count))
        row.append((wall, rss, fds, answered(out, err), count))
    (w1, r1, f1, a1, _), (w2, r2, f2, a2, _) = row
    print(f"   {label}: {w1:.3f} s -> {w2:.3f} s (x{w2 / w1:.1f}), {r1 / 1024:.1f} -> {r2 / 1024:.1f} MiB, "
          f"{f1} -> {f2} descriptors, {a1} / 1000 -> {a2} / 10000 answered")
scale("addr", lambda n: [reach, "addr"] + targets(n), lambda out, err: out.count("reachable via"))
scale("host (/etc/hosts)", lambda n: [reach, "host"] + [f"t{i}.hosts.test" for i in range(n)],
      lambda out, err: out.count("reachable via"))
scale("ping -c 1 -i 0.0002", lambda n: [reach, "ping", "-c", "1", "-q", "-i", "0.0002"] + targets(n),
      lambda out, err: sum(1 for c, _ in summaries(err).values() if c.split("/")[1] == "1"))
PYTHON
