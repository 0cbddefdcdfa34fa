// swift-tools-version:6.2
import PackageDescription

// The layers, each allowed to import only those below it (docs/ARCHITECTURE.md;
// `make lint` holds the rule for Glibc, which no manifest can forbid):
//
//   reach            entry point
//   ReachCLI         commands, rendering, the one exit-status mapping (ArgumentParser)
//   ReachCore        flag model, netlink codecs, evaluator, ICMP engine, watch loop, probes
//   ReachSystem      the only Swift module that calls the C library: sockets, clocks, libcap
//   CReachShims      kernel headers and the macros Swift cannot import
//   CLibcap          libcap
let package = Package(
    name: "reach",
    products: [
        .executable(name: "reach", targets: ["reach"]),
        // The library, with the system layer its public types (IPAddress, Errno...) come from.
        .library(name: "ReachCore", targets: ["ReachCore", "ReachSystem"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        // libcap, found through pkg-config; `apt-get install libcap-dev` provides it.
        .systemLibrary(
            name: "CLibcap",
            pkgConfig: "libcap",
            providers: [.apt(["libcap-dev"])]
        ),
        // Kernel headers and what Swift cannot import (macros, CMSG helpers). No logic.
        .target(name: "CReachShims"),
        // Every system call, each through one wrapper (EINTR retried in one helper, errors typed and
        // naming the call), and the value types those calls take and give.
        .target(
            name: "ReachSystem",
            dependencies: ["CReachShims", "CLibcap"]
        ),
        // The library: flag model, netlink codecs, evaluator, ICMP engine, watch loop,
        // connectivity probes. Decisions only: the system is reached through ReachSystem.
        .target(
            name: "ReachCore",
            dependencies: ["ReachSystem"]
        ),
        // Commands, rendering, and the one exit-status mapping.
        .target(
            name: "ReachCLI",
            dependencies: [
                "ReachCore",
                "ReachSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "reach", dependencies: ["ReachCLI"]),
        // The start-up floor for `make bench`: the same command tree, parsed, then nothing run.
        .executableTarget(name: "reach-parser-floor", dependencies: ["ReachCLI"], path: "Benchmarks/ParserFloor"),
        .testTarget(name: "ReachSystemTests", dependencies: ["ReachSystem"]),
        .testTarget(name: "ReachCoreTests", dependencies: ["ReachCore", "ReachSystem"]),
        .testTarget(name: "ReachCLITests", dependencies: ["ReachCLI", "ReachCore", "ReachSystem"]),
        // Runs the built binary inside network namespaces it makes (root), and the bad-input table.
        .testTarget(name: "ReachIntegrationTests", exclude: ["Helpers"]),
    ],
    swiftLanguageModes: [.v6]
)

// CI builds reach's Swift targets with every warning an error; a developer's build only warns.
if Context.environment["CI"] == "true" {
    for target in package.targets where [.regular, .executable, .test].contains(target.type) && target.name != "CReachShims" {
        target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
    }
}
