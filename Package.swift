// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "reach",
    products: [
        .executable(name: "reach", targets: ["reach"]),
        .library(name: "ReachCore", targets: ["ReachCore"]),
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
        // The library: flag model, netlink codecs, evaluator, resolver, ICMP engine.
        .target(
            name: "ReachCore",
            dependencies: ["CReachShims", "CLibcap"]
        ),
        // Commands, rendering, and the one exit-status mapping.
        .target(
            name: "ReachCLI",
            dependencies: [
                "ReachCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "reach", dependencies: ["ReachCLI"]),
        // The start-up floor for `make bench`: the same command tree, parsed, then nothing run.
        .executableTarget(name: "reach-parser-floor", dependencies: ["ReachCLI"], path: "Benchmarks/ParserFloor"),
        .testTarget(name: "ReachCoreTests", dependencies: ["ReachCore"]),
        .testTarget(name: "ReachCLITests", dependencies: ["ReachCLI"]),
        // Runs the built binary inside network namespaces it makes (root), and the bad-input table.
        .testTarget(name: "ReachIntegrationTests", exclude: ["Helpers"]),
    ],
    swiftLanguageModes: [.v5]
)
