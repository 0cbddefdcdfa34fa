#!/usr/bin/env bash
# `make link-order`: rewrites scripts/link-order.txt, the order in which the release link
# (lld's --symbol-ordering-file, Makefile) lays out the functions and data short runs touch.
#
# Why: the kernel maps a file-backed page fault 64 KiB at a time ("fault-around"), so a
# start-up that calls 1,500 functions spread over 10 MB of .text makes about 80 of those
# windows resident, 5 MiB of a `reach status` peak RSS. Laid out together, the same
# functions fill a few windows (docs/PERFORMANCE-NOTES.md, "Footprint").
#
# The same for the data a run reads: the Swift runtime's scans of conformance records read
# type and conformance descriptors spread over 1.8 MB of .rodata.
#
# How: each short command runs once under valgrind --tool=callgrind (which names every
# function executed) and once under --tool=lackey --trace-mem=yes (every load and store,
# mapped to the data symbol that holds it); names are kept in the order first seen, ping's
# first, code then data. Only names that sit in an input section of their own (at most
# 32 KiB: the runtime's and libraries' per-function and per-object sections), or in reach's
# own objects, are listed: ordering a name that also labels a local helper inside one of
# the standard library's monolithic sections (1.6 MB of .text in Swift.o) would pull that
# whole section in among the hot code.
#
# Usage: scripts/link-order.sh BINARY LINK_MAP > scripts/link-order.txt
# (LINK_MAP: lld's -Map output for BINARY, linked with --no-demangle). Traffic: ping to
# 127.0.0.1, trace between two namespaces of its own; the other commands ask the kernel for
# routes and links, and resolve localhost from /etc/hosts.
set -euo pipefail
binary=$1
map=$2
for tool in valgrind nm strip python3; do
    command -v "$tool" >/dev/null || { echo "link-order: $tool is missing; run: scripts/install-deps.sh test" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/reach-link-order.XXXXXX")
# trace needs a destination that is not this host's: two network namespaces of its own
# (root), joined by a veth, the far one answering as a closed port does.
namespace=reach-link-order-$$
trap 'rm -rf "$work"; ip netns delete "$namespace-a" 2>/dev/null; ip netns delete "$namespace-b" 2>/dev/null; true' EXIT
if [ "$(id -u)" -ne 0 ]; then echo "link-order: run as root (trace runs in namespaces of its own)" >&2; exit 1; fi
ip netns add "$namespace-a"
ip netns add "$namespace-b"
ip link add rlo0 netns "$namespace-a" type veth peer name rlo1 netns "$namespace-b"
ip -n "$namespace-a" addr add 198.51.100.1/24 dev rlo0
ip -n "$namespace-b" addr add 198.51.100.2/24 dev rlo1
ip -n "$namespace-a" link set rlo0 up
ip -n "$namespace-b" link set rlo1 up

# valgrind 3.19 refuses the DWARF of an LTO-linked static Swift binary ("possibly corrupted
# debuginfo"): it runs a copy without it. The symbol table, and every address, stay.
strip --strip-debug -o "$work/reach" "$binary"
binary=$work/reach

# Data symbols with their sizes, for lackey's addresses.
nm -S --defined-only "$binary" | awk 'NF == 4 && $3 ~ /^[rRdDbBvV]$/' >"$work/data-symbols"

runs=("ping -c 3 -i 0.01 127.0.0.1" "status" "addr 127.0.0.1" "host localhost" "watch --help" "trace -n -q 1 198.51.100.2")
# Where each run runs: this host's network, but trace in the first namespace.
inside=("" "" "" "" "" "ip netns exec $namespace-a")
for index in "${!runs[@]}"; do
    read -r -a words <<<"${runs[$index]}"
    # Exit status aside (no default route, no permission to ping): what ran still counts.
    read -r -a prefix <<<"${inside[$index]}"
    "${prefix[@]}" valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/code.$index" \
        "$binary" "${words[@]}" >/dev/null 2>&1 || true
    [ -s "$work/code.$index" ] || { echo "link-order: callgrind gave nothing for '${runs[$index]}'" >&2; exit 1; }
    # valgrind 3.19 loads a position-independent executable at 0x108000.
    "${prefix[@]}" valgrind --tool=lackey --trace-mem=yes --log-file="$work/trace" "$binary" "${words[@]}" >/dev/null 2>&1 || true
    python3 - "$work/data-symbols" "$work/trace" 0x108000 >"$work/data.$index" <<'PYTHON'
import bisect, sys

symbols_path, trace_path, base = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
symbols = []
for line in open(symbols_path):
    address, size, _, name = line.split()
    if int(size, 16):
        symbols.append((int(address, 16), int(size, 16), name))
symbols.sort()
starts = [symbol[0] for symbol in symbols]
low, high = starts[0], symbols[-1][0] + symbols[-1][1]
seen = set()
for line in open(trace_path):
    if line[:2] not in (" L", " S", " M"):
        continue
    address = int(line[3:line.index(",")], 16) - base
    if not low <= address < high:
        continue
    index = bisect.bisect_right(starts, address) - 1
    start, size, name = symbols[index]
    if address < start + size and name not in seen:
        seen.add(name)
        print(name)
if len(seen) < 100:
    sys.exit(f"link-order: only {len(seen)} data symbols found in the trace: was the binary loaded elsewhere?")
PYTHON
    rm -f "$work/trace"
done

python3 - "$map" "$work" "${#runs[@]}" <<'PYTHON'
import os, re, sys

map_path, work, count = sys.argv[1], sys.argv[2], int(sys.argv[3])

# lld's map: address, load address, size, alignment, then the name indented by depth
# (output section, input section, symbol). Every input section a name labels, in any
# output section.
sections_of = {}
output = current = None
line_pattern = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+( +)(.*)$")
for line in open(map_path):
    match = line_pattern.match(line)
    if not match:
        continue
    size, depth, name = int(match.group(1), 16), len(match.group(2)), match.group(3)
    if depth == 1:
        output = name
    elif depth == 9:
        current = (name, size)
    elif depth == 17 and current:
        sections_of.setdefault(name, []).append((output,) + current)

def names(kind):
    """Names from the runs of one kind, in the order first seen."""
    pattern = re.compile(r"^c?fn=\(\d+\) (\S+)")
    for index in range(count):
        for line in open(os.path.join(work, f"{kind}.{index}")):
            if kind == "code":
                match = pattern.match(line)
                if match:
                    yield match.group(1).split("@@")[0]
            else:
                yield line.strip()

seen, order, whole = set(), [], []
for kind in ("code", "data"):
    for name in names(kind):
        if name in seen or name not in sections_of:
            continue
        seen.add(name)
        # A local helper's name (objectdestroyTm...) can label sections in many objects:
        # lld moves every one of them, so each must qualify. The dynamic loader's
        # relocations write to nearly every page of .data.rel.ro: its order changes nothing.
        sections = sections_of[name]
        if any(output == ".data.rel.ro" for output, _, _ in sections):
            continue
        if all(size <= 32 * 1024 for _, _, size in sections):
            order.append(name)
        elif all(size <= 32 * 1024 or "/.build/" in section for _, section, size in sections):
            whole.append(name)

print("# Generated by scripts/link-order.sh (make link-order): the functions and data short")
print("# runs of reach touch, laid out together by the release link. Stale names are ignored.")
print("\n".join(order + whole))
PYTHON
