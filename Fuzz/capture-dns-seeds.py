#!/usr/bin/env python3
"""Captures real DNS responses from dnsmasq as the seed corpus of the `dns` fuzz target.

Not run by `make fuzz`: it made Fuzz/corpus/dns/ and remakes it on demand (root):

    sudo python3 Fuzz/capture-dns-seeds.py

It makes a network namespace of its own (rch-dns-fz), starts dnsmasq inside it on
127.0.0.1:5353 with records of every type the codec renders (an authoritative zone "lab"
for SOA and NS), asks one query per type over UDP (and one over TCP), and writes each
response as it came, one file per query. The namespace is deleted even on failure.
"""
import os
import socket
import struct
import subprocess
import sys
import time

NAMESPACE = "rch-dns-fz"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "dns")
QUERIES = [("h.lab", "A", 1), ("h.lab", "AAAA", 28), ("h.lab", "ANY", 255), ("lab", "SOA", 6), ("lab", "NS", 2),
           ("lab", "MX", 15), ("t.lab", "TXT", 16), ("_sip._tcp.lab", "SRV", 33), ("c.lab", "A", 1),
           ("missing.lab", "A", 1), ("1.0.18.198.in-addr.arpa", "PTR", 12)]


def query(name, qtype, ident):
    labels = b"".join(bytes([len(part)]) + part.encode() for part in name.split("."))
    return struct.pack(">HHHHHH", ident, 0x0100, 1, 0, 0, 0) + labels + b"\0" + struct.pack(">HH", qtype, 1)


def child():
    os.makedirs(OUT, exist_ok=True)
    for ident, (name, kind, qtype) in enumerate(QUERIES, start=1):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.settimeout(2)
            udp.sendto(query(name, qtype, ident), ("127.0.0.1", 5353))
            answer = udp.recv(512)
        with open(os.path.join(OUT, f"{name.replace('.', '-')}-{kind.lower()}"), "wb") as seed:
            seed.write(answer)
    with socket.create_connection(("127.0.0.1", 5353), timeout=2) as tcp:
        message = query("h.lab", 255, 99)
        tcp.sendall(struct.pack(">H", len(message)) + message)
        length = struct.unpack(">H", tcp.recv(2))[0]
        answer = b""
        while len(answer) < length:
            answer += tcp.recv(length - len(answer))
    with open(os.path.join(OUT, "h-lab-any-tcp"), "wb") as seed:
        seed.write(answer)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child()
        return
    subprocess.run(["ip", "netns", "add", NAMESPACE], check=True)
    dnsmasq = None
    try:
        subprocess.run(["ip", "-n", NAMESPACE, "link", "set", "lo", "up"], check=True)
        dnsmasq = subprocess.Popen([
            "ip", "netns", "exec", NAMESPACE, "dnsmasq", "--keep-in-foreground", "--no-resolv", "--no-hosts",
            "--conf-file=/dev/null", "--listen-address=127.0.0.1", "--bind-interfaces", "--port=5353",
            "--host-record=h.lab,198.18.0.6,2001:db8::6", "--ptr-record=1.0.18.198.in-addr.arpa,far.lab",
            "--txt-record=t.lab,hello world,two \"q\"", "--mx-host=lab,mail.lab,10",
            "--srv-host=_sip._tcp.lab,sip.lab,5060,1,2", "--cname=c.lab,h.lab", "--auth-zone=lab",
            "--auth-server=ns.lab,lo", "--auth-soa=2026112601,hostmaster.lab"])
        time.sleep(1)
        subprocess.run(["ip", "netns", "exec", NAMESPACE, sys.executable, __file__, "--child"], check=True)
    finally:
        if dnsmasq:
            dnsmasq.terminate()
            dnsmasq.wait()
        subprocess.run(["ip", "netns", "del", NAMESPACE], check=False)


if __name__ == "__main__":
    main()
