#!/usr/bin/env python3
"""Writes the seed corpus of `make fuzz` (Fuzz/corpus/<target>/) from real captures.

netlink:      every datagram of Tests/ReachCoreTests/Fixtures/CapturedReply.swift (kernel
              replies captured in namespaces by Tests/Fixtures/capture-netlink-fixtures.py).
command-line: the words people pass as targets and durations (README and reach(1) examples).

Run from the repository root: python3 scripts/fuzz-seeds.py
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")


def write(target, name, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as seed:
        seed.write(data)


def hex_bytes(block):
    """Bytes of one hex(\"\"\" ... \"\"\") fixture: `//` starts a comment, blanks are for reading."""
    digits = "".join(line.split("//", 1)[0].replace(" ", "") for line in block.splitlines())
    return bytes.fromhex(digits)


def netlink():
    path = os.path.join(ROOT, "Tests", "ReachCoreTests", "Fixtures", "CapturedReply.swift")
    source = open(path).read()
    for fixture in re.finditer(r"static let (\w+): \[\[UInt8\]\] = \[(.*?)\n    \]", source, re.S):
        name, body = fixture.groups()
        for index, block in enumerate(re.findall(r'hex\("""(.*?)"""\)', body, re.S)):
            write("netlink", f"{name}-{index}", hex_bytes(block))


COMMAND_LINE_WORDS = [
    "198.18.0.2", "203.0.113.7", "127.0.0.1", "0.0.0.0", "255.255.255.255",
    "2001:db8::1", "::1", "::", "fe80::1%lo", "fe80::1%1", "::ffff:198.51.100.1",
    "2001:db8:0:0:0:0:0:1", "localhost", "example.com", "example.com.", "host-1.example.org",
    "xn--bcher-kva.example", "5", "1.5s", "300ms", "2m", "0", "0.5", "86400",
]


def command_line():
    for word in COMMAND_LINE_WORDS:
        write("command-line", word, word.encode())


if __name__ == "__main__":
    netlink()
    command_line()
