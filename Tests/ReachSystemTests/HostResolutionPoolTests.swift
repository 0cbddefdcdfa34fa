import XCTest

@testable import ReachSystem

/// The resolver pool on names that need no server: address literals (getaddrinfo parses
/// them) and more names than the pool has threads, answered in the order given.
final class HostResolutionPoolTests: XCTestCase {
    func testEveryNameInOrderOnMoreNamesThanThreads() throws {
        let names = (1...100).map { "198.51.100.\($0)" } + ["::1", "2001:db8::7"]
        let outcomes = try HostResolutionPool.resolve(names, family: nil, timeout: .seconds(5))
        XCTAssertEqual(outcomes.count, names.count)
        for (name, outcome) in zip(names, outcomes) {
            guard case .resolved(let addresses)? = outcome else { return XCTFail("\(name): \(String(describing: outcome))") }
            XCTAssertEqual(addresses.map(\.description), [name])
        }
    }

    func testNoNamesAndTheFamilyAsked() throws {
        XCTAssertEqual(try HostResolutionPool.resolve([], family: nil, timeout: .milliseconds(100)).count, 0)
        let outcomes = try HostResolutionPool.resolve(["198.51.100.1", "::1"], family: .ipv6, timeout: .seconds(5))
        guard case .notResolved? = outcomes[0], case .resolved(let addresses)? = outcomes[1] else {
            return XCTFail("\(outcomes)")
        }
        XCTAssertEqual(addresses.map(\.description), ["::1"])
    }
}
