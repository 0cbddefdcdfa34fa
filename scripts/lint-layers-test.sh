#!/usr/bin/env bash
# make lint: scripts/lint-layers.sh against a small tree made here, every rule broken once
# or more beside lines it must let pass; its output must be exactly the expected lines.
# Like lint-layers.sh itself, this file is left out of the citation rule (it spells them).
set -euo pipefail
lint="$(cd "$(dirname "$0")" && pwd)/lint-layers.sh"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/{Sources/ReachCore,Sources/ReachSystem,Sources/ReachCLI,Sources/ReachExporter,Sources/ReachExporterProbes,Sources/ReachExporterSystem,Sources/reach-exporter,Tests/SomeTests,Fuzz/Targets,Fuzz/corpus,docs,scripts}

# Rule 1: the C library and the C modules, in every import form, outside ReachSystem.
cat >"$tree/Sources/ReachCore/Imports.swift" <<'EOF'
import Glibc
@_exported import Glibc
@preconcurrency import CReachShims
import struct Glibc.stat
public import Musl
@_implementationOnly import CLibcap
    import func Glibc.poll // indented, with a comment
@_spi(Internal) @preconcurrency import CLibcap
import Foundation
import GlibcExtras
// import Glibc
let text = "import Glibc"
#if canImport(Glibc)
import Glibc
#endif
EOF
# Rule 2: layers point down.
cat >"$tree/Sources/ReachCore/Layers.swift" <<'EOF'
import ReachCommandLine
import ReachSystem
@testable import ReachCLI
EOF
cat >"$tree/Sources/ReachSystem/System.swift" <<'EOF'
import Glibc
import CReachShims
@preconcurrency import CLibcap
import ReachCore
@testable import ReachCLI
import ReachCommandLine
EOF
mkdir -p "$tree/Sources/ReachCommandLine"
printf 'import ReachSystem\nimport ReachCore\n' >"$tree/Sources/ReachCommandLine/Reader.swift"
cat >"$tree/Sources/ReachCLI/CLI.swift" <<'EOF'
import ReachCommandLine
import ReachCore
import ReachSystem
import Glibc
EOF
printf 'import Glibc\nimport CReachShims\n' >"$tree/Tests/SomeTests/T.swift"
# Rule 3: the exporter's libraries stay in the exporter.
printf 'import NIOCore\nimport CYAML\nimport ReachExporter\n' >"$tree/Sources/ReachCLI/Exporter.swift"
printf 'import ReachCore\nimport ReachSystem\nimport ReachSystem\nimport NIOPosix\nimport ReachCLI\nimport ReachCommandLine\n' \
    >"$tree/Sources/ReachExporter/Decisions.swift"
printf 'import NIOCore\nimport NIOHTTP1\nimport _NIODataStructures\nimport ReachExporter\nimport ReachCore\n' \
    >"$tree/Sources/reach-exporter/main.swift"
printf 'import NIOCore\nimport ReachExporter\n' >"$tree/Tests/SomeTests/E.swift"
printf 'import NIOCore\nimport NIOHTTP2\nimport ReachCore\nimport ReachExporter\nimport NIOPosix\nimport ReachCLI\n' \
    >"$tree/Sources/ReachExporterProbes/Probe.swift"
# Rule 3: ReachExporterProbes stands on ReachCore, ReachSystem, ReachRegex and SwiftNIO; each
# import is named once, by the first rule it breaks.
printf 'import ReachSystem\nimport ReachRegex\nimport NIOSSL\nimport ReachCommandLine\n@testable import ReachExporterSystem\nimport CZlib\nimport Glibc\n' \
    >"$tree/Sources/ReachExporterProbes/DNS.swift"
printf 'import ReachExporterProbes\n' >"$tree/Sources/ReachCore/Probes.swift"
# Rule 2: the library's async Pinger is imported by no module of Sources; a test may.
printf 'import ReachPinger\n' >"$tree/Sources/ReachCLI/Pinger.swift"
printf 'import ReachPinger\n' >"$tree/Tests/SomeTests/PingerTests.swift"
# Rule 1: libyaml and libcrypt only through ReachExporterSystem, which stands on C alone.
printf 'import Glibc\nimport CYAML\nimport CCrypt\nimport ReachSystem\nimport CReachShims\n' >"$tree/Sources/ReachExporterSystem/YAML.swift"
printf 'import CYAML\n' >"$tree/Sources/ReachSystem/YAML.swift"
printf 'import ReachExporterSystem\n' >"$tree/Sources/ReachCore/Crypt.swift"
printf 'import ReachExporterSystem\n' >"$tree/Sources/ReachExporter/Config.swift"
printf 'import ReachExporterProbes\n' >"$tree/Sources/reach-exporter/Probes.swift"
# Rule 3: the exporter opens no socket of its own (the one-echo ICMP probe's aside).
cat >"$tree/Sources/ReachExporter/Sockets.swift" <<'EOF'
let kernel = RouteNetlinkClient(transport: try NetlinkSocket())
/// A TCPConnection named in a doc comment.
_ = try TCPConnection.connect(to: address, port: 80, deadline: deadline)  // a UnixStreamSocket here is a comment
let socket = try ICMPSocket(family: .ipv4)
let events: PollEvents = [.readable, .writable]
let group = try ICMPSocketGroup(families: [.ipv4]), bus = try UnixStreamSocket(path: "/run/dbus")
let dns = try UDPConnection.connect(to: address, port: 53)
let opened = try FileDescriptor.socket(.ipv4, .datagram)
let descriptorNumber: FileDescriptorNumber = 3, connections: [UDPConnectionPool] = []
EOF
printf 'let socket = try ICMPSocket(family: address.family)\n_ = try Poll.wait(fd, for: .readable, timeoutMilliseconds: 0)\n' \
    >"$tree/Sources/ReachExporter/ExporterProber.swift"
printf 'import Glibc\n' >"$tree/Fuzz/Targets/F.swift"
# Rule 3: citations, in any text file. The outside document's name is put together here, so
# that this script itself does not read as citing it.
ref="REFER""ENCE"
cat >"$tree/Sources/ReachCore/Cite.swift" <<'EOF'
/// The kernel answers so (@REF@ §2).
/// As @REF@.md says.
// See /work/shared/notes.txt and ../shared/plan.txt.
// Fixed for issue 4, and Issue #12; issues 3 and 5.
let help = "see issue#7"
// A tissue 5, libshared/x, a shared resource, the 4 issues: none of them.
EOF
sed -i "s/@REF@/$ref/g" "$tree/Sources/ReachCore/Cite.swift"
printf '# shared/%s.md\n' "$ref" >"$tree/scripts/tool.sh"
# Rule 4: Markdown links and *.md paths.
printf '# A\n' >"$tree/docs/A.md"
printf 'x\n' >"$tree/CONTRIBUTING.md"
cat >"$tree/README.md" <<'EOF'
[a](docs/A.md) [b](docs/MISSING.md) [c](https://example.com/y.md) [d](#anchor)
[e](docs/A.md#section) [f](../outside.md) [g](<docs/A.md> "title") [h](mailto:x@example.com)
Read CONTRIBUTING.md and docs/A.md; not docs/GONE.md.
Once: [docs/GONE2.md](docs/GONE2.md).
EOF
cat >"$tree/docs/B.md" <<'EOF'
[up](../README.md) [here](A.md) [wrong](README.md)
EOF
cat >"$tree/Sources/ReachCore/Docs.swift" <<'EOF'
/// The layers: docs/ARCHITECTURE.md; the rest in docs/A.md and [A](../../docs/A.md).
/// Also [missing](../../docs/NOPE.md), and https://example.com/x/README.md.
let path = "docs/NOT-A-COMMENT.md"
/* Block: docs/BLOCK.md
   and docs/BLOCK2.md */
EOF
cat >"$tree/scripts/tool.py" <<'EOF'
"""Docstring naming docs/GONE.md
and CONTRIBUTING.md."""
name = "docs/CODE.md"  # comment naming docs/COMMENT.md
EOF
printf '#!/usr/bin/env bash\n# run: see docs/RUN.md\necho docs/ECHO.md\n' >"$tree/scripts/run"
# Never looked at: build products, the fuzz corpus, binary files.
mkdir -p "$tree/.build/debug" "$tree/.build-asan"
printf 'import Glibc // issue 1\n' >"$tree/.build/debug/G.swift"
printf 'import Glibc // issue 1\n' >"$tree/.build-asan/G.swift"
printf 'issue 1 REFERENCE.md\n' >"$tree/Fuzz/corpus/seed"
printf 'issue 1\0binary\n' >"$tree/docs/blob.bin"

expected='README.md:1: links to docs/MISSING.md, which is not in the repository
README.md:2: links to ../outside.md, which is not in the repository
README.md:3: names docs/GONE.md, which is not in the repository
README.md:4: links to docs/GONE2.md, which is not in the repository
Sources/ReachCLI/CLI.swift:4: imports Glibc outside Sources/ReachSystem and Sources/ReachExporterSystem (they alone call the C library)
Sources/ReachCLI/Exporter.swift:1: imports NIOCore outside Sources/reach-exporter and Sources/ReachExporterProbes (the exporter only)
Sources/ReachCLI/Exporter.swift:2: imports CYAML outside Sources/ReachExporterSystem (libyaml, libcrypt, zlib and libbrotli stay out of reach)
Sources/ReachCLI/Exporter.swift:3: imports ReachExporter outside Sources/reach-exporter (layers point down)
Sources/ReachCLI/Pinger.swift:1: imports ReachPinger in Sources (the library alone takes it: AsyncStream links the Swift concurrency runtime and libdispatch into a binary)
Sources/ReachCommandLine/Reader.swift:1: imports ReachSystem from ReachCommandLine (it stands on the standard library alone)
Sources/ReachCommandLine/Reader.swift:2: imports ReachCore from ReachCommandLine (it stands on the standard library alone)
Sources/ReachCore/Cite.swift:1: cites REFERENCE, a document outside the repository
Sources/ReachCore/Cite.swift:2: cites REFERENCE, a document outside the repository
Sources/ReachCore/Cite.swift:3: names a path into shared/, outside the repository
Sources/ReachCore/Cite.swift:4: cites an issue number
Sources/ReachCore/Cite.swift:5: cites an issue number
Sources/ReachCore/Crypt.swift:1: imports ReachExporterSystem outside the exporter (kept out of the reach binary)
Sources/ReachCore/Docs.swift:1: names docs/ARCHITECTURE.md, which is not in the repository
Sources/ReachCore/Docs.swift:2: links to ../../docs/NOPE.md, which is not in the repository
Sources/ReachCore/Docs.swift:4: names docs/BLOCK.md, which is not in the repository
Sources/ReachCore/Docs.swift:5: names docs/BLOCK2.md, which is not in the repository
Sources/ReachCore/Imports.swift:1: imports Glibc outside Sources/ReachSystem and Sources/ReachExporterSystem (they alone call the C library)
Sources/ReachCore/Imports.swift:2: imports Glibc outside Sources/ReachSystem and Sources/ReachExporterSystem (they alone call the C library)
Sources/ReachCore/Imports.swift:3: imports CReachShims outside Sources/ReachSystem (only ReachSystem calls the C library)
Sources/ReachCore/Imports.swift:4: imports Glibc outside Sources/ReachSystem and Sources/ReachExporterSystem (they alone call the C library)
Sources/ReachCore/Imports.swift:5: imports Musl outside Sources/ReachSystem and Sources/ReachExporterSystem (they alone call the C library)
Sources/ReachCore/Imports.swift:6: imports CLibcap outside Sources/ReachSystem (only ReachSystem calls the C library)
Sources/ReachCore/Imports.swift:7: imports Glibc outside Sources/ReachSystem and Sources/ReachExporterSystem (they alone call the C library)
Sources/ReachCore/Imports.swift:8: imports CLibcap outside Sources/ReachSystem (only ReachSystem calls the C library)
Sources/ReachCore/Imports.swift:9: imports Foundation in Sources (start-up cost; it also re-exports Glibc)
Sources/ReachCore/Imports.swift:14: imports Glibc outside Sources/ReachSystem and Sources/ReachExporterSystem (they alone call the C library)
Sources/ReachCore/Layers.swift:1: imports ReachCommandLine below ReachCLI (ReachCore and ReachSystem know no command line)
Sources/ReachCore/Layers.swift:3: imports ReachCLI from ReachCore (layers point down)
Sources/ReachCore/Probes.swift:1: imports ReachExporterProbes outside the exporter (kept out of the reach binary)
Sources/ReachExporter/Decisions.swift:4: imports NIOPosix outside Sources/reach-exporter and Sources/ReachExporterProbes (the exporter only)
Sources/ReachExporter/Decisions.swift:5: imports ReachCLI from the exporter (it stands on ReachCore, not on the command line)
Sources/ReachExporter/ExporterProber.swift:2: names Poll in Sources/ReachExporter (its probes are in ReachCore and ReachExporterProbes: it opens no socket of its own)
Sources/ReachExporter/Sockets.swift:1: names NetlinkSocket in Sources/ReachExporter (its probes are in ReachCore and ReachExporterProbes: it opens no socket of its own)
Sources/ReachExporter/Sockets.swift:3: names TCPConnection in Sources/ReachExporter (its probes are in ReachCore and ReachExporterProbes: it opens no socket of its own)
Sources/ReachExporter/Sockets.swift:4: names ICMPSocket in Sources/ReachExporter (its probes are in ReachCore and ReachExporterProbes: it opens no socket of its own)
Sources/ReachExporter/Sockets.swift:6: names ICMPSocketGroup in Sources/ReachExporter (its probes are in ReachCore and ReachExporterProbes: it opens no socket of its own)
Sources/ReachExporter/Sockets.swift:7: names UDPConnection in Sources/ReachExporter (its probes are in ReachCore and ReachExporterProbes: it opens no socket of its own)
Sources/ReachExporter/Sockets.swift:8: names FileDescriptor in Sources/ReachExporter (its probes are in ReachCore and ReachExporterProbes: it opens no socket of its own)
Sources/ReachExporterProbes/DNS.swift:4: imports ReachCommandLine from ReachExporterProbes (it stands on ReachCore, ReachSystem, ReachRegex and SwiftNIO)
Sources/ReachExporterProbes/DNS.swift:5: imports ReachExporterSystem from ReachExporterProbes (it stands on ReachCore, ReachSystem, ReachRegex and SwiftNIO)
Sources/ReachExporterProbes/DNS.swift:6: imports CZlib outside Sources/ReachExporterSystem (libyaml, libcrypt, zlib and libbrotli stay out of reach)
Sources/ReachExporterProbes/DNS.swift:7: imports Glibc outside Sources/ReachSystem and Sources/ReachExporterSystem (they alone call the C library)
Sources/ReachExporterProbes/Probe.swift:4: imports ReachExporter outside Sources/reach-exporter (layers point down)
Sources/ReachExporterProbes/Probe.swift:5: imports NIOPosix from ReachExporterProbes (the probes run SwiftNIO handlers on their own sockets: no event loop)
Sources/ReachExporterProbes/Probe.swift:6: imports ReachCLI from the exporter (it stands on ReachCore, not on the command line)
Sources/ReachExporterSystem/YAML.swift:4: imports ReachSystem from ReachExporterSystem (it stands on the C libraries alone)
Sources/ReachExporterSystem/YAML.swift:5: imports CReachShims outside Sources/ReachSystem (only ReachSystem calls the C library)
Sources/ReachExporterSystem/YAML.swift:5: imports CReachShims from ReachExporterSystem (it stands on the C libraries alone)
Sources/ReachSystem/System.swift:4: imports ReachCore from ReachSystem (layers point down: ReachSystem imports no layer above it)
Sources/ReachSystem/System.swift:5: imports ReachCLI from ReachSystem (layers point down: ReachSystem imports no layer above it)
Sources/ReachSystem/System.swift:6: imports ReachCommandLine below ReachCLI (ReachCore and ReachSystem know no command line)
Sources/ReachSystem/YAML.swift:1: imports CYAML outside Sources/ReachExporterSystem (libyaml, libcrypt, zlib and libbrotli stay out of reach)
docs/B.md:1: links to README.md, which is not in the repository
scripts/run:2: names docs/RUN.md, which is not in the repository
scripts/tool.py:1: names docs/GONE.md, which is not in the repository
scripts/tool.py:3: names docs/COMMENT.md, which is not in the repository
scripts/tool.sh:1: cites REFERENCE, a document outside the repository
scripts/tool.sh:1: names a path into shared/, outside the repository'

status=0
actual=$("$lint" "$tree" 2>/dev/null) || status=$?
if [ "$status" -ne 1 ] || [ "$actual" != "$expected" ]; then
    echo "lint-layers-test: scripts/lint-layers.sh exited $status; expected 1 and these lines (<), got (>):" >&2
    diff <(printf '%s\n' "$expected") <(printf '%s\n' "$actual") >&2 || true
    exit 1
fi
# A tree that breaks no rule passes, silently.
rm -rf "$tree/Sources/ReachCore" "$tree/Sources/ReachCLI" "$tree/Sources/ReachExporter" "$tree/Sources/ReachExporterProbes" "$tree/Sources/ReachCommandLine" "$tree/README.md" "$tree/docs/B.md" "$tree/scripts"
sed -i '/^import ReachCore$/d; /^@testable import ReachCLI$/d; /^import ReachCommandLine$/d' "$tree/Sources/ReachSystem/System.swift"
# Glibc, CYAML and CCrypt in ReachExporterSystem pass.
rm "$tree/Sources/ReachSystem/YAML.swift"
sed -i '/^import ReachSystem$/d; /^import CReachShims$/d' "$tree/Sources/ReachExporterSystem/YAML.swift"
if ! actual=$("$lint" "$tree" 2>&1) || [ -n "$actual" ]; then
    echo "lint-layers-test: a clean tree failed: $actual" >&2
    exit 1
fi
echo "lint-layers-test: ok"
