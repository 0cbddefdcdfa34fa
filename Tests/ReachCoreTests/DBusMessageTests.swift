import XCTest
@testable import ReachCore

/// The D-Bus codec against messages a real dbus-daemon and python-dbusmock sent
/// (Fixtures/CapturedDBus.swift), and against hand-written bytes for what reach sends.
final class DBusMessageTests: XCTestCase {
    private static let captured: [(name: String, bytes: [UInt8])] = [
        ("helloReply", CapturedDBus.helloReply), ("nameHasNoOwner", CapturedDBus.nameHasNoOwner),
        ("managedObjects", CapturedDBus.managedObjects), ("deviceByInterface", CapturedDBus.deviceByInterface),
        ("meteredYes", CapturedDBus.meteredYes), ("accessTechnologiesChanged", CapturedDBus.accessTechnologiesChanged),
    ]

    func testHelloReply() throws {
        let message = try DBusMessage.parse(CapturedDBus.helloReply)
        XCTAssertEqual(message.kind, .methodReturn)
        XCTAssertEqual(message.replySerial, 1)
        XCTAssertEqual(message.sender, "org.freedesktop.DBus")
        XCTAssertEqual(message.destination, ":1.0")
        XCTAssertEqual(message.body, [.string(":1.0")])
    }

    func testMissingServiceIsAnErrorReply() throws {
        let message = try DBusMessage.parse(CapturedDBus.nameHasNoOwner)
        XCTAssertEqual(message.kind, .error)
        XCTAssertEqual(message.errorName, "org.freedesktop.DBus.Error.NameHasNoOwner")
        XCTAssertEqual(message.replySerial, 2)
        XCTAssertTrue(message.body.first?.string?.contains("org.freedesktop.ModemManager1") == true)
    }

    func testManagedObjectsGiveTheModem() throws {
        let message = try DBusMessage.parse(CapturedDBus.managedObjects)
        XCTAssertEqual(message.signature, "a{oa{sa{sv}}}")
        let modems = ModemFacts.modems(inManagedObjects: message.body)
        XCTAssertEqual(modems.count, 1, "the SIM object has no Modem interface")
        let modem = try XCTUnwrap(modems.first)
        XCTAssertEqual(modem.path, "/org/freedesktop/ModemManager1/Modems/8")
        XCTAssertEqual(modem.netInterfaces, ["wwan0"], "cdc-wdm0 is a QMI port, not NET")
        XCTAssertEqual(modem.facts, CellularFacts(technologies: .lte, operatorName: "TheOperator", operatorCode: "00101",
                                                  registration: .roaming, signalPercent: 70, modemState: .enabled))
        XCTAssertEqual(modem.facts.generation, .g4)
        XCTAssertEqual(modem.facts.roaming, true)
    }

    func testNetworkManagerAnswers() throws {
        let device = try DBusMessage.parse(CapturedDBus.deviceByInterface)
        XCTAssertEqual(device.body, [.objectPath("/org/freedesktop/NetworkManager/Devices/eth1")])
        let metered = try DBusMessage.parse(CapturedDBus.meteredYes)
        XCTAssertEqual(metered.body, [.variant(.uint32(1))])
        XCTAssertEqual(metered.body.first?.uint32.map(Metered.init(rawValue:)), .yes)
    }

    func testPropertiesChangedSignal() throws {
        let message = try DBusMessage.parse(CapturedDBus.accessTechnologiesChanged)
        XCTAssertEqual(message.kind, .signal)
        XCTAssertEqual(message.path, "/org/freedesktop/ModemManager1/Modems/8")
        XCTAssertEqual(message.interface, "org.freedesktop.DBus.Properties")
        XCTAssertEqual(message.member, "PropertiesChanged")
        XCTAssertEqual(message.signature, "sa{sv}as")
        XCTAssertEqual(message.body.first?.string, "org.freedesktop.ModemManager1.Modem")
        XCTAssertEqual(message.body[1]["AccessTechnologies"]?.uint32, AccessTechnologies.umts.rawValue)
    }

    /// What reach writes parses back to what it read (libdbus orders the header fields
    /// otherwise, so the bytes themselves differ).
    func testEncodingRoundTrips() throws {
        for (name, bytes) in Self.captured {
            let message = try DBusMessage.parse(bytes)
            XCTAssertEqual(try DBusMessage.parse(message.encoded()), message, name)
            XCTAssertEqual(try DBusMessage.frameLength(bytes[...]), bytes.count, name)
            XCTAssertNil(try DBusMessage.frameLength(bytes[0..<15]), name)
        }
    }

    func testHelloCallBytes() {
        var hello = DBusMessage.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                     interface: "org.freedesktop.DBus", member: "Hello")
        hello.serial = 1
        XCTAssertEqual(hexString(hello.encoded()), hexString(hex("""
            6c 01 02 01                              // little-endian, METHOD_CALL, NO_AUTO_START, version 1
            00000000                                 // body length 0
            01000000                                 // serial 1
            6d000000                                 // header fields array length 109
            01 01 6f00                               // PATH, variant 'o'
            15000000 2f6f72672f667265656465736b746f702f4442757300 0000  // "/org/freedesktop/DBus", padding
            02 01 7300                               // INTERFACE, variant 's'
            14000000 6f72672e667265656465736b746f702e4442757300 000000  // "org.freedesktop.DBus", padding
            03 01 7300                               // MEMBER, variant 's'
            05000000 48656c6c6f00 0000               // "Hello", padding
            06 01 7300                               // DESTINATION, variant 's'
            14000000 6f72672e667265656465736b746f702e4442757300        // "org.freedesktop.DBus"
            000000                                   // padding to 8: the (empty) body
            """)))
    }

    func testStringArgumentsAndSignature() throws {
        var call = DBusMessage.call(destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                                    interface: "org.freedesktop.NetworkManager", member: "GetDeviceByIpIface", body: [.string("wwan0")])
        call.serial = 7
        let parsed = try DBusMessage.parse(call.encoded())
        XCTAssertEqual(parsed, call)
        XCTAssertEqual(parsed.signature, "s")
        XCTAssertTrue(parsed.flags.contains(.noAutoStart))
    }

    /// A big-endian sender's reply (the bus passes byte order through): REPLY_SERIAL 7, body u 1.
    func testBigEndianMessage() throws {
        let message = try DBusMessage.parse(hex("""
            42 02 00 01                  // 'B': big-endian, METHOD_RETURN, no flags, version 1
            00000004                     // body length 4
            00000009                     // serial 9
            0000000f                     // header fields array length 15
            05 01 7500 00000007          // REPLY_SERIAL, variant 'u', 7
            08 01 6700 01 7500           // SIGNATURE, variant 'g', "u"
            00                           // padding to 8
            00000001                     // u 1
            """))
        XCTAssertEqual(message.serial, 9)
        XCTAssertEqual(message.replySerial, 7)
        XCTAssertEqual(message.body, [.uint32(1)])
    }

    func testEveryValueTypeRoundTrips() throws {
        var message = DBusMessage(kind: .signal, serial: 3, path: "/a/b", interface: "x.y", member: "Z", body: [
            .byte(7), .boolean(true), .int16(-2), .uint16(65535), .int32(-5), .uint32(6), .int64(-7), .uint64(8), .double(1.5),
            .string("é"), .objectPath("/"), .signature("a{sv}"), .unixFD(0),
            .array(.structure([.string, .uint32]), [.structure([.string("wwan0"), .uint32(2)])]),
            .array(.dictEntry(key: .string, value: .variant), [.dictEntry(.string("k"), .variant(.array(.uint64, [])))]),
            .variant(.variant(.int16(1))),
        ])
        message.flags = .noReplyExpected
        XCTAssertEqual(try DBusMessage.parse(message.encoded()), message)
        XCTAssertEqual(message.signature, "ybnqiuxtdsogha(su)a{sv}v")
    }

    /// Every truncation and a byte flipped at every offset: a value or a thrown error, never a trap.
    func testDamagedMessagesThrowAndNeverTrap() {
        for (name, bytes) in Self.captured {
            for length in 0..<bytes.count {
                XCTAssertThrowsError(try DBusMessage.parse(Array(bytes[0..<length])), "\(name) cut to \(length)")
            }
            let original = try? DBusMessage.parse(bytes)
            XCTAssertNotNil(original, name)
            for offset in 0..<bytes.count {
                var damaged = bytes
                damaged[offset] ^= 0xff
                // Either an error that names an offset inside the bytes, or another message:
                // no byte of a message is without meaning, and none is read out of bounds.
                let parsed: DBusMessage
                do {
                    parsed = try DBusMessage.parse(damaged)
                } catch {  // parse throws ParseError only (typed throws)
                    XCTAssertLessThanOrEqual(error.offset, bytes.count, "\(name): byte \(offset) flipped: \(error)")
                    continue
                }
                XCTAssertNotEqual(parsed, original, "\(name): byte \(offset) flipped, the same message")
            }
        }
    }

    func testErrorsNameTheOffset() {
        func failure(_ text: String) -> ParseError? {
            do {
                _ = try DBusMessage.parse(hex(text))
                return nil
            } catch {
                return error
            }
        }
        // A method return whose body is a boolean 2.
        XCTAssertEqual(failure("""
            6c 02 00 01  04000000  01000000  0f000000
            05 01 7500 01000000  08 01 6700 01 6200  00
            02000000
            """)?.offset, 32)
        // Non-zero padding after the header fields.
        XCTAssertEqual(failure("""
            6c 02 00 01  04000000  01000000  0f000000
            05 01 7500 01000000  08 01 6700 01 7500  ff
            01000000
            """)?.offset, 31)
        // An unknown type code in the body's signature: the signature field's value, at 28.
        XCTAssertEqual(failure("""
            6c 02 00 01  04000000  01000000  0f000000
            05 01 7500 01000000  08 01 6700 01 7a00  00
            01000000
            """)?.offset, 28)
        // An array that says it is longer than the body.
        XCTAssertEqual(failure("""
            6c 02 00 01  08000000  01000000  10000000
            05 01 7500 01000000  08 01 6700 02 617500
            ff000000 01000000
            """)?.offset, 36)
        XCTAssertEqual(failure("51 02 00 01 00000000 01000000 00000000")?.offset, 0)
    }

    func testSignatures() throws {
        XCTAssertEqual(try DBusType.parse("a{oa{sa{sv}}}").map(\.signature), ["a{oa{sa{sv}}}"])
        XCTAssertEqual(try DBusType.parse("sa{sv}as").count, 3)
        for bad in ["a", "(", "()", "{sv}", "a{vs}", "a{sss}", "(u", "z", String(repeating: "a", count: 33) + "u",
                    String(repeating: "(", count: 33) + "u" + String(repeating: ")", count: 33)] {
            XCTAssertThrowsError(try DBusType.parse(bad), bad)
        }
    }

    func testVariantsNestedTooDeepAreRefused() {
        var value = DBusValue.uint32(1)
        for _ in 0..<70 { value = .variant(value) }
        let message = DBusMessage(kind: .methodReturn, serial: 2, replySerial: 1, body: [value])
        XCTAssertThrowsError(try DBusMessage.parse(message.encoded()))
    }

    func testObjectPaths() {
        for valid in ["/", "/a", "/org/freedesktop/ModemManager1/Modems/8", "/a_b/C9"] {
            XCTAssertTrue(DBusObjectPath.isValid(valid), valid)
        }
        for invalid in ["", "a", "//", "/a/", "/a//b", "/a-b", "/é"] { XCTAssertFalse(DBusObjectPath.isValid(invalid), invalid) }
    }

    func testSystemBusAddress() {
        XCTAssertEqual(DBusAddress.systemBus(environment: nil), .defaultSystemBus)
        XCTAssertEqual(DBusAddress.systemBus(environment: "unix:path=/tmp/x/bus%20socket,guid=00"),
                       DBusAddress(path: "/tmp/x/bus socket", isAbstract: false))
        XCTAssertEqual(DBusAddress.systemBus(environment: "tcp:host=localhost,port=1;unix:abstract=reach"),
                       DBusAddress(path: "reach", isAbstract: true))
        XCTAssertNil(DBusAddress.systemBus(environment: "tcp:host=localhost,port=1"))
        XCTAssertNil(DBusAddress.systemBus(environment: "unix:path=/x%2"))
        XCTAssertNil(DBusAddress.systemBus(environment: ""))
    }

    func testAuthenticationLine() throws {
        XCTAssertEqual(String(decoding: DBusAuthentication.request(userID: 1000), as: UTF8.self),
                       "\0AUTH EXTERNAL 31303030\r\nBEGIN\r\n")
        XCTAssertNil(try DBusAuthentication.reply(in: Array("OK 1234".utf8)))
        let accepted = try XCTUnwrap(try DBusAuthentication.reply(in: Array("OK 0123abcd\r\nl".utf8)))
        XCTAssertTrue(accepted.accepted)
        XCTAssertEqual(accepted.consumed, 13)
        XCTAssertEqual(try DBusAuthentication.reply(in: Array("REJECTED EXTERNAL\r\n".utf8))?.accepted, false)
        XCTAssertThrowsError(try DBusAuthentication.reply(in: [UInt8](repeating: 0x41, count: 600)))
    }
}
