#!/usr/bin/env bash
# make lint: the package's layers, and what comments and docs may cite. One line per
# violation, FILE:LINE: RULE, and exit 1 when there is any.
#
#   scripts/lint-layers.sh [ROOT]    ROOT: the tree to check (default: this repository)
#
# 1. Only Sources/ReachSystem imports the C library and the C modules (Glibc, Musl,
#    CReachShims, CLibcap), in any form: `import Glibc`, `@_exported import`,
#    `@preconcurrency import`, `public import`, `import struct Glibc.stat`... Fuzz and Tests
#    are no layer and may. The exporter's own C calls are Sources/ReachExporterSystem's:
#    it alone imports CYAML, CCrypt, CZlib and CBrotli (libyaml, libcrypt, zlib and
#    libbrotli, which `reach` must not link: a Swift module that imports a C module links
#    its library wherever it goes), and the
#    C library (Glibc, Musl), and nothing else of the project's; only the exporter's
#    decision and server modules import it.
# 2. Layers point down: nothing under Sources/ReachCore or Sources/ReachSystem imports
#    ReachCommandLine (the command-line reader), Sources/ReachSystem imports neither
#    ReachCore nor ReachCLI, Sources/ReachCore does not import ReachCLI, and
#    Sources/ReachCommandLine imports none of the project's modules (it stands on the
#    standard library alone, below both executables). ReachPinger, the library's async
#    Pinger, is imported by no module under Sources: AsyncStream links Swift's concurrency
#    runtime and libdispatch, whose constructors would run at every start of either binary.
# 3. The exporter's libraries stay in the exporter, out of `reach`'s binary and start-up:
#    SwiftNIO (NIO*) only in Sources/reach-exporter (the HTTP server and entry point) and
#    Sources/ReachExporterProbes (the exporter's own probes: TLS and HTTP/2), and there
#    without NIOPosix: the probes run SwiftNIO's handlers on their own sockets, no event
#    loop; no NIO in Sources/ReachExporter (the exporter's decisions);
#    ReachExporter imported only by Sources/reach-exporter, ReachExporterProbes only by the
#    exporter's two modules; none of the three imports ReachCLI. Of the project's modules,
#    ReachExporterProbes (the probes' I/O: connections, DNS, TLS, HTTP/2) imports ReachCore,
#    ReachSystem and ReachRegex only: no ReachExporter, ReachExporterSystem, ReachCommandLine
#    or C module (blackbox's shape and the command line are ReachExporter's, the
#    system calls ReachSystem's). ReachRegex (the exporter's RE2 engine) is imported
#    only by the exporter's three modules and imports nothing itself (standard library only).
#    Sources/ReachExporter opens no socket of its own: its code names none of the socket
#    types (ReachSystem's FileDescriptor, NetlinkSocket, TCPConnection, UnixStreamSocket,
#    ICMPSocket, ICMPSocketGroup, Poll; ReachExporterProbes' UDPConnection); the probes it
#    runs are ReachCore's and ReachExporterProbes'. One exception: ExporterProber.swift's
#    icmp module opens its ICMPSocket itself, to time the set-up phase as blackbox_exporter
#    does, and hands it to ReachCore's ICMPEchoProbe.
#    The exporter's own files import no Foundation, as everywhere in Sources.
# 4. Comments and docs cite only what a clone holds: no reference document kept outside
#    the repository (its name or its section signs), no path into a shared directory, no
#    issue numbers. Checked in every text file, string literals too (help texts are docs).
# 5. Every relative Markdown link (in Markdown files and in comments) and every *.md path
#    a comment or doc names exists: relative to the file's directory or to ROOT.
#
# Not looked at: .git, .build* (build products), Fuzz/corpus (fuzzer inputs, not text
# anyone reads as docs). This script and its test are left out of rules 3 and 4: they
# spell what those rules look for.
set -euo pipefail
root=${1:-"$(dirname "$0")/.."}
cd "$root"

text_files() {
    find . \( -name .git -o -name '.build*' -o -path ./Fuzz/corpus \) -prune -o -type f -print0 |
        xargs -0 -r grep -IlZ '' |
        tr '\0' '\n' | sed 's|^\./||' | LC_ALL=C sort
}

# Rules 1 to 4, and the candidates for rule 5 as "MD<TAB>file<TAB>line<TAB>path<TAB>link":
# link is 1 for a Markdown link (resolved from the file's directory only).
scan() {
    LC_ALL=C awk '
    function violation(rule) { printf "%s:%d: %s\n", FILENAME, FNR, rule; reported++ }

    # The module a Swift import line names, or "" when the line is no import.
    function imported(line,    words, n, i, word) {
        if (line !~ /^[ \t]*((@[A-Za-z_]+(\([^)]*\))?|public|package|internal|fileprivate|private)[ \t]+)*import[ \t]/)
            return ""
        sub(/\/\/.*/, "", line)
        n = split(line, words, /[ \t]+/)
        for (i = 1; i <= n && words[i] != "import"; i++) {}
        word = words[++i]
        if (word ~ /^(typealias|struct|class|enum|protocol|let|var|func)$/) word = words[++i]
        sub(/\..*/, "", word)
        return word
    }

    # The comment or doc text of a line, by the kind of file: Markdown and man pages are
    # all doc; Swift and C comments follow //, or sit inside /* */; Python docstrings and
    # what follows # in Python, shell, make and the rest.
    function comment(line,    start) {
        if (kind == "doc") return line
        if (kind == "c") {
            if (inblock) {
                if (line ~ /\*\//) inblock = 0
                return line
            }
            if ((start = index(line, "//")) > 0) return substr(line, start + 2)
            if ((start = index(line, "/*")) > 0) {
                if (substr(line, start) !~ /\*\//) inblock = 1
                return substr(line, start + 2)
            }
            return ""
        }
        if (kind == "python") {
            if (indoc) {
                if (index(line, "\"\"\"") > 0) indoc = 0
                return line
            }
            if ((start = index(line, "\"\"\"")) > 0) {
                if (index(substr(line, start + 3), "\"\"\"") == 0) indoc = 1
                return substr(line, start + 3)
            }
        }
        if ((start = index(line, "#")) > 0) return substr(line, start + 1)
        return ""
    }

    # Rule 5 candidates in a piece of comment text: Markdown links first (taken out of the
    # text), then *.md paths that are no part of a URL.
    function candidates(text,    target, rest, before, path, linked) {
        while (match(text, /\]\([^)]*\)/)) {
            target = substr(text, RSTART + 2, RLENGTH - 3)
            text = substr(text, 1, RSTART - 1) " " substr(text, RSTART + RLENGTH)
            sub(/[ \t].*/, "", target)          # a title after the target
            sub(/#.*/, "", target)              # an anchor
            sub(/^</, "", target); sub(/>$/, "", target)
            if (target == "" || target ~ /^[A-Za-z][A-Za-z0-9+.-]*:/) continue   # a URL, mailto:, an anchor
            printf "MD\t%s\t%d\t%s\t1\n", FILENAME, FNR, target
            linked[target] = 1
        }
        rest = text
        while (match(rest, /[A-Za-z0-9_.\/-]*[A-Za-z0-9_-]\.md([^A-Za-z0-9_]|$)/)) {
            path = substr(rest, RSTART, RLENGTH)
            before = RSTART > 1 ? substr(rest, RSTART - 1, 1) : ""
            rest = substr(rest, RSTART + RLENGTH)
            sub(/[^A-Za-z0-9_]$/, "", path)
            if (before == ":" || before == "@" || path ~ /^\/\//) continue        # part of a URL
            if (path ~ /(^|\/)REFERENCE\.md$/) continue                          # rule 3 says it
            if (path in linked) continue                                           # [path](path)
            printf "MD\t%s\t%d\t%s\t0\n", FILENAME, FNR, path
        }
    }

    FNR == 1 {
        inblock = 0; indoc = 0
        if (FILENAME ~ /\.(md|markdown|[1-9])$/) kind = "doc"
        else if (FILENAME ~ /\.(swift|c|h|modulemap)$/) kind = "c"
        else if (FILENAME ~ /\.py$/ || $0 ~ /^#!.*python/) kind = "python"
        else kind = "hash"
        swift = FILENAME ~ /\.swift$/
        exempt = FILENAME ~ /^scripts\/lint-layers(-test)?\.sh$/
    }

    swift && (module = imported($0)) != "" {
        before = reported
        if (module ~ /^(Glibc|Musl)$/ && FILENAME !~ /^(Sources\/(ReachSystem|ReachExporterSystem)|Fuzz|Tests)\//)
            violation("imports " module " outside Sources/ReachSystem and Sources/ReachExporterSystem (they alone call the C library)")
        if (module ~ /^(CReachShims|CLibcap)$/ && FILENAME !~ /^(Sources\/ReachSystem|Fuzz|Tests)\//)
            violation("imports " module " outside Sources/ReachSystem (only ReachSystem calls the C library)")
        if (module ~ /^(CYAML|CCrypt|CZlib|CBrotli)$/ && FILENAME !~ /^(Sources\/ReachExporterSystem|Fuzz|Tests)\//)
            violation("imports " module " outside Sources/ReachExporterSystem (libyaml, libcrypt, zlib and libbrotli stay out of reach)")
        if (module ~ /^(Reach|CReach|CLibcap)/ && FILENAME ~ /^Sources\/ReachExporterSystem\//)
            violation("imports " module " from ReachExporterSystem (it stands on the C libraries alone)")
        if (module == "ReachExporterSystem" && FILENAME ~ /^Sources\// && FILENAME !~ /^Sources\/(ReachExporter|ReachExporterProbes|reach-exporter)\//)
            violation("imports ReachExporterSystem outside the exporter (kept out of the reach binary)")
        if (module == "ReachCommandLine" && FILENAME ~ /^Sources\/(ReachCore|ReachSystem)\//)
            violation("imports ReachCommandLine below ReachCLI (ReachCore and ReachSystem know no command line)")
        if (module ~ /^(ReachSystem|ReachCore|ReachCLI|ReachExporter)$/ && FILENAME ~ /^Sources\/ReachCommandLine\//)
            violation("imports " module " from ReachCommandLine (it stands on the standard library alone)")
        if (module ~ /^(ReachCore|ReachCLI)$/ && FILENAME ~ /^Sources\/ReachSystem\//)
            violation("imports " module " from ReachSystem (layers point down: ReachSystem imports no layer above it)")
        if (module == "ReachCLI" && FILENAME ~ /^Sources\/ReachCore\//)
            violation("imports ReachCLI from ReachCore (layers point down)")
        if (module == "ReachPinger" && FILENAME ~ /^Sources\//)
            violation("imports ReachPinger in Sources (the library alone takes it: AsyncStream links the Swift concurrency runtime and libdispatch into a binary)")
        if (module ~ /^(Foundation|FoundationEssentials)$/ && FILENAME ~ /^Sources\//)
            violation("imports " module " in Sources (start-up cost; it also re-exports Glibc)")
        if (module ~ /^(NIO|_NIO)/ && FILENAME ~ /^Sources\// && FILENAME !~ /^Sources\/(reach-exporter|ReachExporterProbes)\//)
            violation("imports " module " outside Sources/reach-exporter and Sources/ReachExporterProbes (the exporter only)")
        if (module == "ReachExporterProbes" && FILENAME ~ /^Sources\// && FILENAME !~ /^Sources\/(ReachExporter|reach-exporter)\//)
            violation("imports ReachExporterProbes outside the exporter (kept out of the reach binary)")
        if (module == "NIOPosix" && FILENAME ~ /^Sources\/ReachExporterProbes\//)
            violation("imports NIOPosix from ReachExporterProbes (the probes run SwiftNIO handlers on their own sockets: no event loop)")
        if (module == "ReachExporter" && FILENAME ~ /^Sources\// && FILENAME !~ /^Sources\/reach-exporter\//)
            violation("imports ReachExporter outside Sources/reach-exporter (layers point down)")
        if (module == "ReachRegex" && FILENAME ~ /^Sources\// && FILENAME !~ /^Sources\/(ReachExporter|ReachExporterProbes|reach-exporter)\//)
            violation("imports ReachRegex outside the exporter (kept out of the reach binary)")
        if (FILENAME ~ /^Sources\/ReachRegex\//)
            violation("imports " module " from ReachRegex (it stands on the standard library alone)")
        if (module == "ReachCLI" && FILENAME ~ /^Sources\/(ReachExporter|ReachExporterProbes|reach-exporter)\//)
            violation("imports " module " from the exporter (it stands on ReachCore, not on the command line)")
        # What the rules above have not said already: any other module of the project.
        if (FILENAME ~ /^Sources\/ReachExporterProbes\// && reported == before && module !~ /^(ReachCore|ReachSystem|ReachRegex)$/ &&
            module ~ /^(Reach|CReach|CLibcap|CYAML|CCrypt|CZlib|CBrotli)/)
            violation("imports " module " from ReachExporterProbes (it stands on ReachCore, ReachSystem, ReachRegex and SwiftNIO)")
    }

    swift && FILENAME ~ /^Sources\/ReachExporter\// && $0 !~ /^[ \t]*\/\// {
        code = $0
        sub(/\/\/.*/, "", code)
        if (match(code, /(^|[^A-Za-z0-9_])(FileDescriptor|NetlinkSocket|TCPConnection|UDPConnection|UnixStreamSocket|ICMPSocket|ICMPSocketGroup|Poll)([^A-Za-z0-9_]|$)/)) {
            name = substr(code, RSTART, RLENGTH)
            gsub(/[^A-Za-z0-9_]/, "", name)
            if (!(name == "ICMPSocket" && FILENAME == "Sources/ReachExporter/ExporterProber.swift"))
                violation("names " name " in Sources/ReachExporter (its probes are in ReachCore and ReachExporterProbes: it opens no socket of its own)")
        }
    }

    !exempt {
        if ($0 ~ /REFERENCE[ \t]*§|REFERENCE\.md/)
            violation("cites REFERENCE, a document outside the repository")
        if ($0 ~ /(^|[^A-Za-z0-9_.-])shared\//)
            violation("names a path into shared/, outside the repository")
        if ($0 ~ /(^|[^A-Za-z])[Ii]ssues?([ \t]+#?|[ \t]*#)[0-9]/)
            violation("cites an issue number")
    }

    !exempt { candidates(comment($0)) }
    ' "$@"
}

mapfile -t files < <(text_files)
[ ${#files[@]} -gt 0 ] || { echo "lint-layers: no text files under $root" >&2; exit 2; }

violations=$(
    scan "${files[@]}" | while IFS= read -r record; do
        if [[ $record != MD$'\t'* ]]; then
            printf '%s\n' "$record"
            continue
        fi
        IFS=$'\t' read -r _ file line path link <<<"$record"
        directory=$(dirname "$file")
        if [ "$link" = 1 ]; then
            [ -e "$directory/$path" ] || echo "$file:$line: links to $path, which is not in the repository"
        else
            [ -e "$directory/$path" ] || [ -e "$path" ] || echo "$file:$line: names $path, which is not in the repository"
        fi
    done | LC_ALL=C sort -t: -k1,1 -k2,2n -s
)
if [ -n "$violations" ]; then
    printf '%s\n' "$violations"
    echo "lint-layers: $(printf '%s\n' "$violations" | wc -l) violation(s)" >&2
    exit 1
fi
