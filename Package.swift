// swift-tools-version:6.2
import PackageDescription

// The layers, each allowed to import only those below it (docs/ARCHITECTURE.md;
// `make lint` holds the rule for Glibc, which no manifest can forbid):
//
//   reach            entry point
//   reach-exporter   the Prometheus exporter's entry point and HTTP(S) server (SwiftNIO, swift-nio-ssl)
//   ReachExporter    the exporter's decisions: modules, config, allow list, metrics
//                    (ReachCore's ExpositionText), blackbox's shape around ReachCore's probes; no
//                    socket of its own; none of it linked into `reach`
//   ReachExporterProbes  the exporter's own probes, those `reach` does not run: a TCP
//                    conversation, the dns prober's codec and exchange (UDPConnection),
//                    gRPC's health check over SwiftNIO's HTTP/2, TLS (swift-nio-ssl) over
//                    the probe's own socket
//   ReachCLI         commands, rendering, the one exit-status mapping
//   ReachCommandLine each command's options declared once: the reader, help, usage errors,
//                    shell completions; for both executables
//   ReachRegex       an RE2 engine (Go's regexp: syntax, leftmost-first, linear time) for the
//                    exporter's patterns; standard library only; not linked into `reach`
//   ReachPinger      the library's Pinger (SimplePing for Linux): an AsyncStream over ReachCore's
//                    ping engine; in the library product only, so neither binary links Swift's
//                    concurrency runtime and libdispatch (their constructors run at every start)
//   ReachCore        flag model, netlink codecs, evaluator, ICMP engine, watch loop, probes
//   ReachSystem      the only Swift module of `reach` that calls the C library: sockets
//                    (each descriptor owned by one FileDescriptor), clocks, libcap
//   ReachExporterSystem  the exporter's own C calls, kept out of `reach`'s binary and
//                    start-up: libyaml (blackbox.yml), crypt_r(3) (basic_auth_users), zlib
//                    and libbrotli (the http prober's compression)
//   CReachShims      kernel headers and the macros Swift cannot import
//   CLibcap          libcap
//   CYAML            libyaml, read through ReachExporterSystem's YAMLNode
//   CZlib, CBrotli   zlib and libbrotli, through ReachExporterSystem's ContentCoding
//   CCrypt           libxcrypt's crypt.h, through ReachExporterSystem's PasswordHash
let package = Package(
    name: "reach",
    products: [
        .executable(name: "reach", targets: ["reach"]),
        .executable(name: "reach-exporter", targets: ["reach-exporter"]),
        // The library, with the system layer its public types (IPAddress, Errno...) come from.
        .library(name: "ReachCore", targets: ["ReachCore", "ReachPinger", "ReachSystem"]),
    ],
    dependencies: [
        // The exporter only: HTTP/1 (NIOHTTP1's handlers, with our own time and size limits).
        // blackbox.yml is read with libyaml directly (CYAML): Yams,
        // its Swift wrapper, imports Foundation, which brought ICU into the exporter.
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        // gRPC's health check and HTTP/2 over TLS by ALPN: frames and HPACK (the exporter's probes
        // only).
        .package(url: "https://github.com/apple/swift-nio-http2", exact: "1.46.0"),
        // TLS (BoringSSL inside): the exporter's own endpoint (tls_server_config) and its probes'.
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
    ],
    targets: [
        // libcap, found through pkg-config; `apt-get install libcap-dev` provides it.
        .systemLibrary(
            name: "CLibcap",
            pkgConfig: "libcap",
            providers: [.apt(["libcap-dev"])]
        ),
        // libyaml, found through pkg-config; `apt-get install libyaml-dev` provides it.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // crypt_r(3) (libxcrypt, through libc6-dev's libcrypt-dev): bcrypt hashes of the
        // exporter's web configuration.
        .systemLibrary(name: "CCrypt"),
        // zlib and libbrotli's decoder, for the exporter's http `compression`; apt zlib1g-dev
        // and libbrotli-dev provide them.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
        // Kernel headers and what Swift cannot import (macros, CMSG helpers). No logic.
        .target(name: "CReachShims"),
        // Every system call, each through one wrapper (EINTR retried in one helper, errors typed and
        // naming the call), and the value types those calls take and give.
        .target(
            name: "ReachSystem",
            dependencies: ["CReachShims", "CLibcap"]
        ),
        // The exporter's calls into C libraries `reach` does not link (a module that imports a
        // C module links its library wherever it is linked): libyaml, libcrypt, zlib, libbrotli.
        .target(name: "ReachExporterSystem", dependencies: ["CYAML", "CCrypt", "CZlib", "CBrotli"]),
        // The library: flag model, netlink codecs, evaluator, ICMP engine, watch loop,
        // connectivity probes. Decisions only: the system is reached through ReachSystem.
        .target(
            name: "ReachCore",
            dependencies: ["ReachSystem"]
        ),
        // Pinger, SimplePing's shape for the library: its events as an AsyncStream. Its own module,
        // imported by neither executable, so that Swift's concurrency runtime and libdispatch,
        // which AsyncStream brings, are not linked into them (make lint holds it).
        .target(name: "ReachPinger", dependencies: ["ReachCore", "ReachSystem"]),
        // Each command's options declared once, and what comes of the declaration: the reader,
        // help, the one usage error, shell completions. Pure Swift, for both executables.
        .target(name: "ReachCommandLine"),
        // blackbox.yml's regular expressions as Go's regexp reads and runs them (RE2 syntax, a
        // Pike VM linear in the text): Swift's Regex is a backtracking engine of another dialect,
        // and its parser and engine cost the exporter about 1 MB. Pure Swift, the exporter's only.
        .target(name: "ReachRegex"),
        // Commands, rendering, and the one exit-status mapping.
        .target(name: "ReachCLI", dependencies: ["ReachCommandLine", "ReachCore", "ReachSystem"]),
        .executableTarget(name: "reach", dependencies: ["ReachCLI"]),
        // The exporter's decisions, testable without sockets: options, modules and their
        // blackbox.yml form, the allow list, what each probe measures, the metrics. Its
        // probes are ReachCore's; it opens no socket of its own (make lint), the one-echo
        // ICMP probe's aside.
        // The exporter's probes that `reach` must not carry, DNS's codec among them: they open
        // their own connections (ReachSystem's TCPConnection, their UDPConnection on ReachSystem's
        // FileDescriptor), speak TLS and HTTP/2 over them (NIOSSL and NIOHTTP2 in an
        // EmbeddedChannel on the probe's own socket: no event loop), and decide nothing of
        // blackbox's shape.
        .target(
            name: "ReachExporterProbes",
            dependencies: [
                "ReachCore",
                "ReachRegex",
                "ReachSystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ]
        ),
        .target(
            name: "ReachExporter",
            dependencies: [
                "ReachCommandLine",
                "ReachCore",
                "ReachExporterProbes",
                "ReachExporterSystem",
                "ReachRegex",
                "ReachSystem",
            ],
            // No Foundation reaches this module; should a dependency bring it again, its String
            // methods would still not be usable here unimported.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // The exporter's HTTP server (SwiftNIO) and entry point.
        .executableTarget(
            name: "reach-exporter",
            dependencies: [
                "ReachExporter",
                "ReachExporterProbes",
                "ReachCore",
                "ReachSystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The start-up floor for `make bench`: the same command line read, then nothing run.
        .executableTarget(name: "reach-parser-floor", dependencies: ["ReachCLI"], path: "Benchmarks/ParserFloor"),
        // What the test targets share: whether CI is on, and skipping or failing by it.
        // setns(2) for the tests' PrivateNetworkNamespace: declarations Swift's Glibc lacks.
        .target(name: "CTestSupport", path: "Tests/CTestSupport"),
        .target(name: "TestSupport", dependencies: ["CTestSupport"], path: "Tests/TestSupport"),
        .testTarget(name: "ReachSystemTests", dependencies: ["ReachSystem", "TestSupport"]),
        .testTarget(name: "ReachCoreTests", dependencies: ["ReachCore", "ReachPinger", "ReachSystem", "TestSupport"]),
        .testTarget(name: "ReachCLITests", dependencies: ["ReachCLI", "ReachCommandLine", "ReachCore", "ReachSystem"]),
        .testTarget(
            name: "ReachExporterTests",
            dependencies: [
                "ReachExporter", "ReachExporterProbes", "ReachExporterSystem", "ReachCommandLine", "ReachCore", "ReachRegex",
                "ReachSystem",
                "TestSupport",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Runs the built binary inside network namespaces it makes (root), and the bad-input table.
        .testTarget(name: "ReachIntegrationTests", dependencies: ["TestSupport"], exclude: ["Helpers"]),
    ],
    swiftLanguageModes: [.v6]
)

// CI builds reach's Swift targets with every warning an error; a developer's build only warns.
if Context.environment["CI"] == "true" {
    let cTargets = ["CReachShims", "CTestSupport"]
    for target in package.targets where [.regular, .executable, .test].contains(target.type) && !cTargets.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
    }
}
