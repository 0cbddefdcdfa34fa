import XCTest
@testable import ReachCore

/// ModemManager's numbers (include/ModemManager-enums.h) and what reach makes of them.
final class ModemManagerValuesTests: XCTestCase {
    /// Every MMModemAccessTechnology bit: its value, nick and generation.
    func testAccessTechnologyTable() {
        let expected: [(UInt32, String, CellularGeneration?)] = [
            (1 << 0, "pots", nil), (1 << 1, "gsm", .g2), (1 << 2, "gsm-compact", .g2), (1 << 3, "gprs", .g2),
            (1 << 4, "edge", .g2), (1 << 5, "umts", .g3), (1 << 6, "hsdpa", .g3), (1 << 7, "hsupa", .g3),
            (1 << 8, "hspa", .g3), (1 << 9, "hspa-plus", .g3), (1 << 10, "1xrtt", .g3), (1 << 11, "evdo0", .g3),
            (1 << 12, "evdoa", .g3), (1 << 13, "evdob", .g3), (1 << 14, "lte", .g4), (1 << 15, "5gnr", .g5),
            (1 << 16, "lte-cat-m", .g4), (1 << 17, "lte-nb-iot", .g4),
        ]
        XCTAssertEqual(AccessTechnologies.known.count, expected.count)
        for (row, (bit, nick, generation)) in zip(AccessTechnologies.known, expected) {
            XCTAssertEqual(row.technology.rawValue, bit, nick)
            XCTAssertEqual(row.nick, nick)
            XCTAssertEqual(AccessTechnologies(rawValue: bit).generation, generation, nick)
            XCTAssertEqual(AccessTechnologies(rawValue: bit).members.map(\.nick), [nick])
        }
    }

    /// The highest generation among the bits, not the generation of the highest bit.
    func testGenerationOfSeveralBits() {
        XCTAssertEqual(AccessTechnologies([.lte, .fiveGNR]).generation, .g5, "5G non-standalone")
        XCTAssertEqual(AccessTechnologies([.lteCatM, .fiveGNR]).generation, .g5, "bit 16 is below 5G")
        XCTAssertEqual(AccessTechnologies([.lteCatM, .umts]).generation, .g4)
        XCTAssertEqual(AccessTechnologies([.gsm, .umts, .hspaPlus]).generation, .g3)
        XCTAssertEqual(AccessTechnologies([.pots, .edge]).generation, .g2)
        XCTAssertNil(AccessTechnologies([]).generation, "MM_MODEM_ACCESS_TECHNOLOGY_UNKNOWN")
        XCTAssertNil(AccessTechnologies(rawValue: 1 << 20).generation, "a bit from a newer ModemManager")
        XCTAssertEqual(AccessTechnologies(rawValue: 1 << 14 | 1 << 20).members.map(\.nick), ["lte", "1048576"])
        XCTAssertEqual(CellularGeneration.allCases.map(\.name), ["2g", "3g", "4g", "5g"])
    }

    /// Every MMModemState.
    func testModemStates() {
        let names = ["failed", "unknown", "initializing", "locked", "disabled", "disabling", "enabling", "enabled",
                     "searching", "registered", "disconnecting", "connecting", "connected"]
        for (value, name) in zip(Int32(-1)...11, names) { XCTAssertEqual(ModemState(rawValue: value).name, name) }
        XCTAssertEqual(ModemState.connected.rawValue, 11)
        XCTAssertEqual(ModemState.failed.rawValue, -1)
        XCTAssertEqual(ModemState(rawValue: 12).name, "12")
    }

    /// Every MMModem3gppRegistrationState, and whether it says roaming.
    func testRegistrationStates() {
        let roaming: [(RegistrationState, UInt32, Bool?)] = [
            (.idle, 0, nil), (.home, 1, false), (.searching, 2, nil), (.denied, 3, nil), (.unknown, 4, nil),
            (.roaming, 5, true), (.homeSMSOnly, 6, false), (.roamingSMSOnly, 7, true), (.emergencyOnly, 8, nil),
            (.homeCSFBNotPreferred, 9, false), (.roamingCSFBNotPreferred, 10, true), (.attachedRLOS, 11, nil),
        ]
        for (state, value, isRoaming) in roaming {
            XCTAssertEqual(state.rawValue, value)
            XCTAssertEqual(state.isRoaming, isRoaming, "\(value)")
        }
        XCTAssertNil(RegistrationState(rawValue: 12).isRoaming)
    }

    func testMetered() {
        XCTAssertEqual([Metered.unknown, .yes, .no, .guessYes, .guessNo].map(\.rawValue), [0, 1, 2, 3, 4])
        XCTAssertEqual([Metered.unknown, .yes, .no, .guessYes, .guessNo].map(\.isMetered), [false, true, false, true, false])
    }

    /// A property of an unexpected type is unknown, not a failure; objects without a Modem are skipped.
    func testModemsFromUnexpectedShapes() {
        let properties = DBusValue.array(.dictEntry(key: .string, value: .variant), [
            .dictEntry(.string("AccessTechnologies"), .variant(.string("lte"))),
            .dictEntry(.string("State"), .variant(.int32(11))),
            .dictEntry(.string("Ports"), .variant(.array(.structure([.string, .uint32]), [
                .structure([.string("wwan1"), .uint32(2)]), .structure([.string("ttyUSB0"), .uint32(3)]),
            ]))),
        ])
        let interfaces = DBusValue.array(.dictEntry(key: .string, value: .array(.dictEntry(key: .string, value: .variant))), [
            .dictEntry(.string("org.freedesktop.ModemManager1.Modem"), properties),
        ])
        let objects = DBusValue.array(.dictEntry(key: .objectPath, value: interfaces.type), [
            .dictEntry(.objectPath("/m/1"), interfaces),
            .dictEntry(.objectPath("/m/SIM"), .array(interfaces.type.arrayElement!, [])),
        ])
        let modems = ModemFacts.modems(inManagedObjects: [objects])
        XCTAssertEqual(modems, [ModemFacts(path: "/m/1", netInterfaces: ["wwan1"], facts: CellularFacts(modemState: .connected))])
        XCTAssertEqual(ModemFacts.modems(inManagedObjects: [.string("nonsense")]), [])
        XCTAssertEqual(ModemFacts.modems(inManagedObjects: []), [])
    }
}

extension DBusType {
    fileprivate var arrayElement: DBusType? {
        if case .array(let element) = self { return element }
        return nil
    }
}
