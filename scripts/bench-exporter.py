#!/usr/bin/env python3
"""`make bench`, the exporter part: reach-exporter beside Debian's blackbox_exporter in one run.

Two private network namespaces (rch-exp-bench-PID-client and -far, a veth pair, 198.18.0.2/24
and 2001:db8::2/64 on the client, .1 and ::1 on far, which runs an HTTP server on port 8080;
traffic only between the two). Both exporters run in the client namespace on loopback, as
root (ICMP over raw sockets for both), with the same three modules (icmp, tcp_connect,
http_2xx and blackbox_exporter's defaults). For each module, both exporters first take the
same warm-up load (WARMUP seconds, the order alternating), then PAIRS pairs of loads, the
exporter that goes first alternating (ABBA, scripts/benchlib.py): RATE probes a second for
SECONDS (a bounded Python client on a schedule, 32 keep-alive connections), the same
targets, every probe expected to succeed.

Figures per exporter and module (medians over the pairs): probes sent and lost (lost = any
answer but probe_success 1, or none), median and 99th percentile of probe_duration_seconds
(what the exporter measured) and of the request's time seen by the client, CPU seconds
(utime + stime from /proc) per 10,000 probes answered; peak RSS (VmHWM) over the whole run.
Targets: reach's CPU per answered probe at most blackbox_exporter's (the paired ratio over
every module and pair, its whole 95% interval), peak RSS at most blackbox_exporter's, no
probe lost by either exporter.
Exit: 0 every target met, 1 one missed, 77 skipped (not root), 2 the benchmark failed.
Environment: EXPORTER (default .build-exporter/release/reach-exporter), RATE (200),
SECONDS (10), PAIRS (2), WARMUP (2).
"""
import http.client
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

EXPORTER = os.environ.get("EXPORTER", ".build-exporter/release/reach-exporter")
RATE = float(os.environ.get("RATE", "200"))
SECONDS = float(os.environ.get("SECONDS", "10"))
PAIRS = int(os.environ.get("PAIRS", "2"))
WARMUP = float(os.environ.get("WARMUP", "2"))
TAG = f"rch-exp-bench-{os.getpid()}"
CLIENT, FAR = f"{TAG}-client", f"{TAG}-far"
MODULES = [("icmp", "198.18.0.1"), ("tcp_connect", "198.18.0.1:8080"), ("http_2xx", "http://198.18.0.1:8080/")]
BLACKBOX_YML = "modules:\n  icmp:\n    prober: icmp\n  tcp_connect:\n    prober: tcp\n  http_2xx:\n    prober: http\n"


def load(port, module, target, seconds):
    """Inside the client namespace: RATE probes a second for `seconds`; prints the outcomes as JSON."""
    path = f"/probe?module={module}&target={target}"
    jobs = queue.Queue()
    results = []
    lock = threading.Lock()

    def worker():
        connection = None
        while True:
            job = jobs.get()
            if job is None:
                return
            start = time.monotonic()
            outcome = {"ok": False, "client": None, "probe": None}
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                connection.request("GET", path, headers={"X-Prometheus-Scrape-Timeout-Seconds": "5"})
                response = connection.getresponse()
                body = response.read().decode()
                outcome["client"] = time.monotonic() - start
                for line in body.splitlines():
                    if line.startswith("probe_success "):
                        outcome["ok"] = response.status == 200 and float(line.split()[1]) == 1
                    if line.startswith("probe_duration_seconds "):
                        outcome["probe"] = float(line.split()[1])
            except (OSError, http.client.HTTPException):
                connection = None
            with lock:
                results.append(outcome)

    threads = [threading.Thread(target=worker) for _ in range(32)]
    for thread in threads:
        thread.start()
    count = int(RATE * seconds)
    begin = time.monotonic()
    for index in range(count):
        delay = begin + index / RATE - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        jobs.put(index)
    for _ in threads:
        jobs.put(None)
    for thread in threads:
        thread.join()
    print(json.dumps({"sent": count, "results": results, "seconds": time.monotonic() - begin}))


def run(*words, check=True, **options):
    return subprocess.run(list(words), check=check, **options)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def wait_port(port):
    for _ in range(200):
        listening = run("ip", "netns", "exec", CLIENT, "ss", "-Hltn", f"sport = :{port}", capture_output=True, text=True)
        if listening.stdout.strip():
            return
        time.sleep(0.05)
    sys.exit(f"bench-exporter: nothing listens on {port}")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))] if ordered else float("nan")


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--load":
        load(int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5]))
        return 0
    report = benchlib.Report("bench-exporter")
    benchlib.require_root(report, "network namespaces")
    for tool in ["prometheus-blackbox-exporter", "ip", "ss"]:
        if run("sh", "-c", f"command -v {tool}", check=False, capture_output=True).returncode != 0:
            report.fail(f"{tool} is missing; run: scripts/install-deps.sh test")
    if not os.access(EXPORTER, os.X_OK):
        report.fail(f"{EXPORTER} is missing; run: make build-exporter")
    workdir = f"/tmp/{TAG}"
    os.makedirs(workdir)
    processes = []
    try:
        for namespace in (CLIENT, FAR):
            run("ip", "netns", "add", namespace)
            run("ip", "-n", namespace, "link", "set", "lo", "up")
        run("ip", "link", "add", "v0", "netns", CLIENT, "type", "veth", "peer", "name", "f0", "netns", FAR)
        for namespace, link, v4, v6 in [(CLIENT, "v0", "198.18.0.2/24", "2001:db8::2/64"), (FAR, "f0", "198.18.0.1/24", "2001:db8::1/64")]:
            run("ip", "-n", namespace, "addr", "add", v4, "dev", link)
            run("ip", "-n", namespace, "addr", "add", v6, "dev", link, "nodad")
            run("ip", "-n", namespace, "link", "set", link, "up")
        config = f"{workdir}/blackbox.yml"
        with open(config, "w") as file:
            file.write(BLACKBOX_YML)
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        processes.append(subprocess.Popen(["ip", "netns", "exec", FAR, "python3", "-m", "http.server", "--bind", "198.18.0.1",
                                           "--directory", workdir, "8080"], **quiet))
        exporters = {
            "reach-exporter": subprocess.Popen(["ip", "netns", "exec", CLIENT, EXPORTER, "--listen", "127.0.0.1:10115",
                                                "--allow", "198.18.0.0/15", "--config", config], **quiet),
            "blackbox_exporter": subprocess.Popen(["ip", "netns", "exec", CLIENT, "prometheus-blackbox-exporter",
                                                   f"--config.file={config}", "--web.listen-address=127.0.0.1:19115"], **quiet),
        }
        processes += exporters.values()
        ports = {"reach-exporter": 10115, "blackbox_exporter": 19115}
        for port in ports.values():
            wait_port(port)
        time.sleep(1)
        report.line(f"bench-exporter: {RATE:.0f} probes/s for {SECONDS:.0f} s per load, {PAIRS} pairs per module after a "
                    f"{WARMUP:.0f} s warm-up each; times in ms, medians over the pairs")
        report.line(f"{'module':<12} {'exporter':<18} {'sent':>5} {'lost':>5} {'probe p50':>9} {'p99':>7} "
                    f"{'client p50':>10} {'p99':>7} {'CPU s/10k':>9}")
        names = list(exporters)
        per_probe = {name: [] for name in names}
        lost = {name: 0 for name in names}

        def measure(name, module, target, seconds):
            process = exporters[name]
            before = cpu_seconds(process.pid)
            output = run("ip", "netns", "exec", CLIENT, sys.executable, os.path.abspath(__file__), "--load",
                         str(ports[name]), module, target, str(seconds), capture_output=True, text=True).stdout
            outcome = json.loads(output)
            outcome["cpu"] = cpu_seconds(process.pid) - before
            return outcome

        for number, (module, target) in enumerate(MODULES):
            for name in (names if number % 2 == 0 else names[::-1]):
                measure(name, module, target, WARMUP)
            loads = benchlib.alternate({name: (lambda name=name: measure(name, module, target, SECONDS)) for name in names},
                                       PAIRS, warmup=0)
            for name in names:
                rows = []
                for outcome in loads[name]:
                    results = outcome["results"]
                    answered = sum(1 for result in results if result["ok"])
                    lost[name] += outcome["sent"] - answered
                    per_probe[name].append(outcome["cpu"] / max(answered, 1))
                    rows.append((outcome["sent"], outcome["sent"] - answered,
                                 [result["probe"] * 1000 for result in results if result["probe"] is not None],
                                 [result["client"] * 1000 for result in results if result["client"] is not None],
                                 outcome["cpu"] / max(answered, 1) * 10000))
                probe = [value for row in rows for value in row[2]]
                client = [value for row in rows for value in row[3]]
                report.line(f"{module:<12} {name:<18} {sum(row[0] for row in rows):>5} {sum(row[1] for row in rows):>5} "
                            f"{statistics.median(probe):>9.3f} {percentile(probe, 0.99):>7.3f} {statistics.median(client):>10.3f} "
                            f"{percentile(client, 0.99):>7.3f} {statistics.median(row[4] for row in rows):>9.2f}")
        rss = {name: peak_rss_mib(process.pid) for name, process in exporters.items()}
        for name in names:
            report.line(f"{name:<18} peak RSS {rss[name]:.1f} MiB, probes lost {lost[name]}")
        cpu = benchlib.ratio_interval(per_probe["reach-exporter"], per_probe["blackbox_exporter"])
        rss_ratio = rss["reach-exporter"] / rss["blackbox_exporter"]
        report.line(f"reach-exporter / blackbox_exporter: CPU per answered probe, paired over {len(MODULES)} modules x {PAIRS}: "
                    f"{cpu.format('.2f')}; peak RSS {rss_ratio:.2f}")
        report.target("reach-exporter CPU per probe <= blackbox_exporter's", benchlib.at_most(cpu, 1.0), f"ratio at most {cpu.high:.2f}")
        report.target("reach-exporter peak RSS <= blackbox_exporter's", rss_ratio <= 1, f"{rss_ratio:.2f} x")
        report.target("no probe lost by either exporter", lost["reach-exporter"] == 0 and lost["blackbox_exporter"] == 0,
                      f"reach-exporter {lost['reach-exporter']}, blackbox_exporter {lost['blackbox_exporter']}")
        return report.finish()
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
        for namespace in (CLIENT, FAR):
            run("ip", "netns", "del", namespace, check=False, stderr=subprocess.DEVNULL)
        run("rm", "-rf", workdir, check=False)


if __name__ == "__main__":
    sys.exit(benchlib.main(main))
