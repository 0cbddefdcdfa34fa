import Foundation
import XCTest

/// `reach --json` output, decoded and checked against the schema: every key present
/// (null, never missing), values from the closed lists, and the fields consistent.
struct ReachJSON: Decodable, Equatable {
    static let keys: Set<String> = [
        "schema", "command", "target", "reachable", "reason", "resolver_error", "paths", "connectivity", "probes",
    ]
    static let refusals: Set<String> = ["cellular_refused", "expensive_refused"]
    static let connectivityStates: Set<String> = ["none", "limited", "portal", "full"]
    static let reasons: Set<String> = [
        "no_route", "unreachable_route", "blackhole_route", "prohibited_route", "link_down",
        "no_carrier", "link_dormant", "cellular_refused", "expensive_refused", "name_not_resolved",
    ]

    var schema: Int
    var command: String
    var target: String?
    var reachable: Bool
    var reason: String?
    var resolverError: String?
    var paths: [Path]
    /// null unless --probe was given.
    var connectivity: String?
    var probes: [Probe]?

    struct Probe: Decodable, Equatable {
        static let keys: Set<String> = ["kind", "target", "result", "time_ms", "detail", "location", "family"]
        var kind: String
        var target: String
        var result: String
        var timeMs: Double
        var detail: String
        var location: String?
        /// "ipv4" or "ipv6"; nil when the host did not resolve.
        var family: String?

        enum CodingKeys: String, CodingKey {
            case kind, target, result
            case timeMs = "time_ms"
            case detail, location, family
        }
    }

    struct Path: Decodable, Equatable {
        static let keys: Set<String> = [
            "address", "family", "reachable", "flags", "flag_string", "reason", "link", "underlying_link", "gateway", "source",
            "expensive", "delivery",
        ]
        /// Apple's names in bit order (SCNetworkReachabilityFlags 1<<0 ... 1<<18): the JSON's order.
        static let bitOrder = [
            "TransientConnection", "Reachable", "ConnectionRequired", "ConnectionOnTraffic", "InterventionRequired",
            "ConnectionOnDemand", "IsLocalAddress", "IsDirect", "IsWWAN",
        ]
        /// Apple's names with the letter and position each has in the flag string "WR ctiCDld".
        static let flagLetters: [(name: String, letter: Character, position: Int)] = [
            ("IsWWAN", "W", 0), ("Reachable", "R", 1), ("ConnectionRequired", "c", 3),
            ("TransientConnection", "t", 4), ("InterventionRequired", "i", 5), ("ConnectionOnTraffic", "C", 6),
            ("ConnectionOnDemand", "D", 7), ("IsLocalAddress", "l", 8), ("IsDirect", "d", 9),
        ]

        var address: String
        var family: String
        var reachable: Bool
        var flags: [String]
        var flagString: String
        var reason: String?
        var link: Link?
        var underlyingLink: Link?
        var gateway: String?
        var source: String?
        var expensive: Bool
        /// "broadcast" or "multicast"; nil for one host.
        var delivery: String?

        enum CodingKeys: String, CodingKey {
            case address, family, reachable, flags
            case flagString = "flag_string"
            case reason, link
            case underlyingLink = "underlying_link"
            case gateway, source, expensive, delivery
        }
    }

    struct Link: Decodable, Equatable {
        static let keys: Set<String> = ["name", "index", "kind", "operstate", "cellular"]
        static let kinds: Set<String> = ["loopback", "ethernet", "wifi", "cellular", "vpn", "bridge", "virtual", "other"]
        static let operstates: Set<String> = ["unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up"]
        var name: String
        var index: Int
        var kind: String
        var operstate: String
        /// null unless the link is cellular.
        var cellular: Cellular?
    }

    /// ModemManager's facts about the modem that claims a cellular link, each null when unknown.
    struct Cellular: Decodable, Equatable {
        static let keys: Set<String> = [
            "generation", "technologies", "operator", "operator_code", "roaming", "signal_percent", "modem_state",
        ]
        var generation: String?
        var technologies: [String]?
        var `operator`: String?
        var operatorCode: String?
        var roaming: Bool?
        var signalPercent: Int?
        var modemState: String?

        enum CodingKeys: String, CodingKey {
            case generation, technologies, `operator`
            case operatorCode = "operator_code"
            case roaming
            case signalPercent = "signal_percent"
            case modemState = "modem_state"
        }
    }

    enum CodingKeys: String, CodingKey {
        case schema, command, target, reachable, reason
        case resolverError = "resolver_error"
        case paths, connectivity, probes
    }

    /// Decodes one JSON object (the whole of stdout, one line) and checks it; records a test
    /// failure for each deviation and throws when it cannot be read at all.
    static func decode(_ result: CommandResult, file: StaticString = #filePath, line: UInt = #line) throws -> ReachJSON {
        XCTAssertEqual(result.stdoutLines.count, 1, "--json prints one line: \(result)", file: file, line: line)
        let data = Data(result.standardOutput)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw HarnessError("stdout is not a JSON object: \(result)")
        }
        checkKeys(of: object, file: file, line: line)
        let report = try JSONDecoder().decode(ReachJSON.self, from: data)
        report.checkConsistency(file: file, line: line)
        return report
    }

    /// Every key of one report present, none more, at every level.
    static func checkKeys(of object: [String: Any], file: StaticString, line: UInt) {
        // `host` says which address a client tries first.
        let expected = object["command"] as? String == "host" ? keys.union(["first_address"]) : keys
        XCTAssertEqual(Set(object.keys), expected, "top-level keys", file: file, line: line)
        for path in object["paths"] as? [[String: Any]] ?? [] {
            XCTAssertEqual(Set(path.keys), Path.keys, "path keys in \(path)", file: file, line: line)
            for key in ["link", "underlying_link"] {
                if let link = path[key] as? [String: Any] {
                    XCTAssertEqual(Set(link.keys), Link.keys, "\(key) keys in \(link)", file: file, line: line)
                    if let cellular = link["cellular"] as? [String: Any] {
                        XCTAssertEqual(Set(cellular.keys), Cellular.keys, "cellular keys in \(link)", file: file, line: line)
                    }
                } else {
                    XCTAssertTrue(path[key] is NSNull, "\(key) is an object or null: \(path)", file: file, line: line)
                }
            }
        }
        if let probes = object["probes"] as? [[String: Any]] {
            for probe in probes { XCTAssertEqual(Set(probe.keys), Probe.keys, "probe keys in \(probe)", file: file, line: line) }
        } else {
            XCTAssertTrue(object["probes"] is NSNull, "probes is an array or null", file: file, line: line)
        }
    }

    func checkConsistency(file: StaticString, line: UInt) {
        XCTAssertEqual(schema, 1, "schema version", file: file, line: line)
        XCTAssertEqual(reason == nil, reachable, "reason is null exactly when reachable", file: file, line: line)
        if let reason { XCTAssertTrue(Self.reasons.contains(reason), "reason \(reason) in the closed list", file: file, line: line) }
        XCTAssertEqual(resolverError != nil, reason == "name_not_resolved", "resolver_error set only when the name did not resolve",
                       file: file, line: line)
        XCTAssertEqual(connectivity == nil, probes == nil, "connectivity and probes are null together", file: file, line: line)
        if let connectivity {
            XCTAssertTrue(Self.connectivityStates.contains(connectivity), "connectivity \(connectivity)", file: file, line: line)
        }
        for probe in probes ?? [] {
            XCTAssertTrue(["icmp", "tcp", "http"].contains(probe.kind), "probe kind \(probe.kind)", file: file, line: line)
            XCTAssertTrue(["pass", "portal", "fail"].contains(probe.result), "probe result \(probe.result)", file: file, line: line)
            XCTAssertGreaterThanOrEqual(probe.timeMs, 0, file: file, line: line)
        }
        for path in paths {
            XCTAssertTrue(["ipv4", "ipv6"].contains(path.family), "family \(path.family)", file: file, line: line)
            XCTAssertEqual(path.family == "ipv6", path.address.contains(":"), "family of \(path.address)", file: file, line: line)
            XCTAssertEqual(path.reason == nil, path.reachable, "path reason null exactly when reachable", file: file, line: line)
            // A refused path keeps the flags of what it is (--no-cellular, --no-expensive).
            if !Self.refusals.contains(path.reason ?? "") {
                XCTAssertEqual(path.reachable, path.flags.contains("Reachable") && !path.flags.contains("ConnectionRequired"),
                               "reachable = Reachable and not ConnectionRequired: \(path.flags)", file: file, line: line)
            }
            if let reason = path.reason { XCTAssertTrue(Self.reasons.contains(reason), "path reason \(reason)", file: file, line: line) }
            XCTAssertEqual(path.flags, Path.bitOrder.filter(path.flags.contains), "flags are known names in bit order",
                           file: file, line: line)
            XCTAssertEqual(path.flagString, Path.flagString(of: path.flags), "flag_string agrees with flags", file: file, line: line)
            if let link = path.link {
                XCTAssertTrue(Link.kinds.contains(link.kind), "kind \(link.kind)", file: file, line: line)
                XCTAssertTrue(Link.operstates.contains(link.operstate), "operstate \(link.operstate)", file: file, line: line)
                XCTAssertGreaterThan(link.index, 0, file: file, line: line)
                XCTAssertEqual(link.cellular != nil, link.kind == "cellular", "cellular facts exactly on a cellular link",
                               file: file, line: line)
            }
            if let delivery = path.delivery {
                XCTAssertTrue(["broadcast", "multicast"].contains(delivery), "delivery \(delivery)", file: file, line: line)
            }
            if path.link?.kind == "cellular" || path.underlyingLink?.kind == "cellular" {
                XCTAssertTrue(path.expensive, "a cellular path is expensive", file: file, line: line)
            }
        }
    }
}

extension ReachJSON.Path {
    /// tonymillion's "WR ctiCDld", built independently of reach's own code.
    static func flagString(of flags: [String]) -> String {
        var characters = Array("-- -------")
        for entry in flagLetters where flags.contains(entry.name) { characters[entry.position] = entry.letter }
        return String(characters)
    }
}

/// `reach host|addr A B ... --json`: one document for several targets, each target's own
/// document (ReachJSON, checked the same way) in `results`, in the order given.
struct ReachManyJSON: Decodable {
    static let keys: Set<String> = ["schema", "command", "reachable", "results"]
    var schema: Int
    var command: String
    var reachable: Bool
    var results: [ReachJSON]

    static func decode(_ result: CommandResult, file: StaticString = #filePath, line: UInt = #line) throws -> ReachManyJSON {
        XCTAssertEqual(result.stdoutLines.count, 1, "--json prints one line: \(result)", file: file, line: line)
        let data = Data(result.standardOutput)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw HarnessError("stdout is not a JSON object: \(result)")
        }
        XCTAssertEqual(Set(object.keys), keys, "top-level keys", file: file, line: line)
        for element in object["results"] as? [[String: Any]] ?? [] { ReachJSON.checkKeys(of: element, file: file, line: line) }
        let document = try JSONDecoder().decode(ReachManyJSON.self, from: data)
        XCTAssertEqual(document.schema, 1, "schema version", file: file, line: line)
        for report in document.results {
            report.checkConsistency(file: file, line: line)
            XCTAssertEqual(report.command, document.command, file: file, line: line)
        }
        return document
    }
}
