import XCTest
@testable import ReachCore
import ReachSystem

/// RFC 4884 multi-part messages, RFC 4950 MPLS label stacks and RFC 5837 interface
/// information. No Linux router adds these objects (net/ipv4/icmp.c sends none), so the
/// vectors are built from the RFCs' figures, field by field, with checksums computed as
/// RFC 4884 section 7 says; the quoted probes are what traceroute 2.1.2 sends.
final class ICMPExtensionsTests: XCTestCase {
    /// One MPLS entry: label 16, traffic class 0, bottom of stack, TTL 1 (RFC 4950 section 7).
    private let mplsStructure = hex(
        """
        20 00       // version 2, reserved
        ddf4        // checksum of the whole structure
        0008 01 01  // object: 8 bytes, class 1 (MPLS label stack), c-type 1 (incoming)
        00010 1 01  // label 16 (20 bits), TC 0, S 1 (3 + 1 bits), TTL 1
        """)

    /// RFC 5837 section 4: the incoming interface, every field present (c-type 0x0f).
    private let interfaceStructure = hex(
        """
        20 00 e3cd           // version 2, checksum
        0020 02 0f           // object: 32 bytes, class 2, role 0 (incoming), ifIndex, address, name, MTU
        00000003             // ifIndex 3
        0001 0000 c0000201   // address sub-object: AFI 1 (IPv4), reserved, 192.0.2.1
        0c 67652d302f302f302e30 00  // name sub-object: 12 bytes, "ge-0/0/0.0", NUL padding
        000005dc             // MTU 1500
        """)

    /// An MPLS object, then the outgoing interface's IPv6 address only (c-type 0x84).
    private let twoObjects = hex(
        """
        20 00 ad9c
        0008 01 01 00010101                            // MPLS: L=16, E=0, S=1, T=1
        0018 02 84                                     // 24 bytes, class 2, role 2 (outgoing), address
        0002 0000 20010db8000000000000000000000001     // AFI 2 (IPv6), 2001:db8::1
        """)

    /// traceroute's default probe to 198.51.100.9 with TTL 1: the IPv4 and UDP headers and
    /// its 32 data bytes, 0x40 upward (traceroute's mod-udp.c fills them so).
    private let quotedProbe =
        hex(
            """
            45 00 003c 1234 0000 01 11 0000  // IPv4, 60 bytes, TTL 1, UDP
            c6336401 c6336409                // 198.51.100.1 -> 198.51.100.9
            8235 829b 0028 0000              // UDP 33333 -> 33435, 40 bytes
            """) + (0x40..<0x60).map { UInt8($0) }

    /// An ICMPv4 time exceeded (type 11) whose original datagram field is `original` bytes
    /// (the probe, zero-padded), its length attribute `words`, then `structure`.
    private func timeExceeded(words: UInt8, original: Int, structure: [UInt8]) -> [UInt8] {
        let padded = quotedProbe + [UInt8](repeating: 0, count: original - quotedProbe.count)
        return [11, 0, 0, 0, 0, words, 0, 0] + padded + structure
    }

    func testParsesAnMPLSLabelStack() throws {
        let extensions = try ICMPExtensions.parse(mplsStructure[...])
        XCTAssertEqual(
            extensions.objects, [.mplsLabelStack([MPLSLabelStackEntry(label: 16, trafficClass: 0, bottomOfStack: true, ttl: 1)])])
        XCTAssertEqual(extensions.tracerouteText, "MPLS:L=16,E=0,S=1,T=1")
    }

    func testParsesTwoLabelsAsTracerouteSeparatesThem() throws {
        let structure = hex("2000 59c2 000c 0101 49310afe 00003101")
        let extensions = try ICMPExtensions.parse(structure[...])
        XCTAssertEqual(extensions.tracerouteText, "MPLS:L=299792,E=5,S=0,T=254/L=3,E=0,S=1,T=1")
    }

    func testParsesInterfaceInformation() throws {
        let extensions = try ICMPExtensions.parse(interfaceStructure[...])
        let expected = InterfaceInformation(
            role: .incoming, ifIndex: 3, address: try IPAddress.parse("192.0.2.1"), name: Array("ge-0/0/0.0".utf8), mtu: 1500)
        XCTAssertEqual(extensions.objects, [.interfaceInformation(expected)])
        XCTAssertEqual(extensions.objects.first?.classType, 0x0f)
        XCTAssertEqual(expected.text, "INC:3,192.0.2.1,\"ge-0/0/0.0\",mtu=1500")
        // traceroute 2.1.2 prints the object's words (it does not read RFC 5837).
        XCTAssertEqual(extensions.tracerouteText, "2/15:00000003,00010000,c0000201,0c67652d,302f302f,302e3000,000005dc")
    }

    func testSeparatesObjectsWithSemicolons() throws {
        let extensions = try ICMPExtensions.parse(twoObjects[...])
        XCTAssertEqual(extensions.objects.count, 2)
        XCTAssertEqual(extensions.tracerouteText, "MPLS:L=16,E=0,S=1,T=1;2/132:00020000,20010db8,00000000,00000000,00000001")
    }

    func testUnknownObjectsPrintAsWords() throws {
        // Class 3 (RFC 8335's interface identification) is not read: its words in hex.
        let extensions = try ICMPExtensions.parse(checksummed(hex("000c 03 01 0000abcd 00000001"))[...])
        XCTAssertEqual(extensions.objects, [.other(classNumber: 3, classType: 1, data: hex("0000abcd 00000001"))])
        XCTAssertEqual(extensions.tracerouteText, "3/1:0000abcd,00000001")
        // An empty label stack is not a stack (traceroute asks for one entry or more).
        XCTAssertEqual(try ICMPExtensions.parse(checksummed(hex("0004 01 01"))[...]).tracerouteText, "1/1:")
    }

    func testInterfaceInformationThatDoesNotFitStaysRaw() throws {
        // AFI 3 is neither IPv4 nor IPv6.
        let unknownFamily = try ICMPExtensions.parse(checksummed(hex("000c 02 04 0003 0000 c0000201"))[...])
        XCTAssertEqual(unknownFamily.tracerouteText, "2/4:00030000,c0000201")
        // The MTU bit set, no word for it.
        let overrun = try ICMPExtensions.parse(checksummed(hex("0008 02 09 00000003"))[...])
        XCTAssertEqual(overrun.tracerouteText, "2/9:00000003")
        // A name length that is not whole words.
        let badName = try ICMPExtensions.parse(checksummed(hex("0008 02 02 03616200"))[...])
        XCTAssertEqual(badName.tracerouteText, "2/2:03616200")
        // Reserved bits set, or a word after the fields: raw, as received.
        let reserved = try ICMPExtensions.parse(checksummed(hex("0004 02 30"))[...])
        XCTAssertEqual(reserved.objects, [.other(classNumber: 2, classType: 0x30, data: [])])
        let trailing = try ICMPExtensions.parse(checksummed(hex("000c 02 08 00000003 00000000"))[...])
        XCTAssertEqual(trailing.tracerouteText, "2/8:00000003,00000000")
        // No field announced: the role alone.
        let roleOnly = try ICMPExtensions.parse(checksummed(hex("0004 02 c0"))[...])
        XCTAssertEqual(roleOnly.objects, [.interfaceInformation(InterfaceInformation(role: .nextHop))])
        XCTAssertEqual(InterfaceInformation(role: .nextHop).text, "NXT:")
        XCTAssertEqual(roleOnly.tracerouteText, "2/192:")
    }

    func testNamesAreEscapedAsTracerouteEscapesThem() {
        XCTAssertEqual(InterfaceInformation.escapedName(Array("a b%\"é".utf8)), "a%20b%25%22%C3%A9")
        XCTAssertEqual(InterfaceInformation.escapedName([0x0a, 0x7f, 0x7e]), "%0A%7F~")
    }

    func testRefusesWhatTracerouteRefuses() {
        var wrongVersion = mplsStructure
        wrongVersion[0] = 0x10
        XCTAssertThrowsError(try ICMPExtensions.parse(wrongVersion[...]))
        var badChecksum = mplsStructure
        badChecksum[11] ^= 0xff
        XCTAssertThrowsError(try ICMPExtensions.parse(badChecksum[...]))
        // An unset checksum is taken.
        var unset = mplsStructure
        unset[2] = 0
        unset[3] = 0
        XCTAssertNoThrow(try ICMPExtensions.parse(unset[...]))
        for object in ["0003 01 01 00", "0010 01 01 00010101", "0006 01 01 0001"] {
            XCTAssertThrowsError(try ICMPExtensions.parse(checksummed(hex(object))[...]), object)
        }
        // Bytes after the last object.
        XCTAssertThrowsError(try ICMPExtensions.parse(checksummed(hex("0008 01 01 00010101 0000"))[...]))
    }

    func testEveryTruncationIsRefusedWithoutATrap() throws {
        for structure in [mplsStructure, interfaceStructure, twoObjects] {
            let refused = try truncationsRefused(structure) { _ = try ICMPExtensions.parse($0) }
            XCTAssertEqual(refused, structure.count)
        }
    }

    func testFindsTheStructureByTheLengthAttribute() {
        let layout = ICMPv4().multipartLayout
        let message = timeExceeded(words: 32, original: 128, structure: mplsStructure)
        XCTAssertEqual(ICMPExtensions.inMessage(message[...], layout: layout)?.tracerouteText, "MPLS:L=16,E=0,S=1,T=1")
        // A longer original datagram, said by the attribute (34 words, 136 bytes).
        let longer = timeExceeded(words: 34, original: 136, structure: twoObjects)
        XCTAssertEqual(ICMPExtensions.inMessage(longer[...], layout: layout)?.objects.count, 2)
        // A sender that predates the attribute (0) put the structure at 128 (RFC 4884 section 5).
        let old = timeExceeded(words: 0, original: 128, structure: mplsStructure)
        XCTAssertNotNil(ICMPExtensions.inMessage(old[...], layout: layout))
    }

    func testFindsNoStructureWhereThereIsNone() {
        let layout = ICMPv4().multipartLayout
        // An attribute under 128 bytes is not RFC 4884's.
        XCTAssertNil(ICMPExtensions.inMessage(timeExceeded(words: 16, original: 128, structure: mplsStructure)[...], layout: layout))
        // A plain time exceeded: the probe quoted, nothing after it.
        let plain: [UInt8] = [11, 0, 0, 0, 0, 0, 0, 0] + quotedProbe
        XCTAssertNil(ICMPExtensions.inMessage(plain[...], layout: layout))
        // An echo reply never carries one.
        var echo = timeExceeded(words: 32, original: 128, structure: mplsStructure)
        echo[0] = 0
        XCTAssertNil(ICMPExtensions.inMessage(echo[...], layout: layout))
        XCTAssertNil(ICMPExtensions.inMessage([11, 0, 0][...], layout: layout))
    }

    func testFindsTheStructureInAnICMPv6Message() throws {
        let layout = ICMPv6().multipartLayout
        // Time exceeded (3), the attribute in the fifth byte, in 64-bit words: 16 is 128 bytes.
        let message: [UInt8] = [3, 0, 0, 0, 16, 0, 0, 0] + [UInt8](repeating: 0x60, count: 128) + twoObjects
        XCTAssertEqual(ICMPExtensions.inMessage(message[...], layout: layout)?.objects.count, 2)
        var unreachable = message
        unreachable[0] = 1
        XCTAssertNotNil(ICMPExtensions.inMessage(unreachable[...], layout: layout))
        var tooBig = message
        tooBig[0] = 2
        XCTAssertNil(ICMPExtensions.inMessage(tooBig[...], layout: layout), "packet too big carries no extensions")
    }

    func testFindsTheStructureInWhatTheErrorQueueReturns() {
        let layout = ICMPv4().multipartLayout
        // A UDP socket's queue returns the quote from the UDP payload on, to the message's end.
        let message = timeExceeded(words: 32, original: 128, structure: interfaceStructure)
        let queued = message.dropFirst(8 + 28)
        let found = ICMPExtensions.inQueuedError(queued, strippedHeaders: 28, probeData: 32, layout: layout)
        XCTAssertEqual(found?.objects.first?.classNumber, 2)
        XCTAssertEqual(found?.encoded, interfaceStructure, "the structure as the router sent it")
        // The kernel's own offset (IP_RECVERR_RFC4884) when it gave one.
        XCTAssertNotNil(ICMPExtensions.inQueuedError(queued, strippedHeaders: 28, probeData: 32, layout: layout, kernelOffset: 100))
        // No extension: only the probe's data came back.
        XCTAssertNil(ICMPExtensions.inQueuedError(quotedProbe.dropFirst(28), strippedHeaders: 28, probeData: 32, layout: layout))
    }

    func testLooksWordByWordWhenTheQuoteWasCut() {
        // A probe of 200 data bytes: the router quoted its first 128 bytes, then the structure.
        let probe = quotedProbe + [UInt8](repeating: 0x41, count: 168)
        let queued = Array(probe[28..<128]) + mplsStructure
        let found = ICMPExtensions.inQueuedError(queued[...], strippedHeaders: 28, probeData: 200, layout: ICMPv4().multipartLayout)
        XCTAssertEqual(found?.tracerouteText, "MPLS:L=16,E=0,S=1,T=1")
    }

    /// `objects` behind an extension header with its checksum filled in.
    private func checksummed(_ objects: [UInt8]) -> [UInt8] {
        var structure: [UInt8] = [0x20, 0, 0, 0] + objects
        let sum = ICMPCodec.checksum(structure[...])
        structure[2] = UInt8(sum >> 8)
        structure[3] = UInt8(sum & 0xff)
        return structure
    }
}
