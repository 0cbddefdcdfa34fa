import XCTest
@testable import ReachCore
import ReachSystem

final class NetlinkMessageTests: XCTestCase {
    func testEncodedHeaderFieldsAndPadding() {
        let message = NetlinkMessage(type: .getRoute, flags: [.request, .acknowledge], sequence: 0x0102_0304,
                                     portID: 0x0a0b_0c0d, payload: [0xaa, 0xbb, 0xcc, 0xdd, 0xee][...])
        let expected = hex("""
            15000000   // nlmsg_len 21: the header and 5 payload bytes, padding not counted
            1a00       // nlmsg_type RTM_GETROUTE (26)
            0500       // nlmsg_flags NLM_F_REQUEST | NLM_F_ACK
            04030201   // nlmsg_seq 0x01020304
            0d0c0b0a   // nlmsg_pid 0x0a0b0c0d
            aabbccddee // payload
            000000     // padding to 4 bytes
            """)
        XCTAssertEqual(hexString(message.encoded()), hexString(expected))
    }

    func testEncodedMessageParsesBack() throws {
        let message = NetlinkMessage(type: .newRoute, flags: .multi, sequence: 7, portID: 99, payload: [1, 2, 3][...])
        let parsed = try NetlinkMessage.parseAll(message.encoded() + message.encoded())
        XCTAssertEqual(parsed.count, 2)
        XCTAssertEqual(parsed[0].type, .newRoute)
        XCTAssertEqual(parsed[0].flags, .multi)
        XCTAssertEqual(parsed[0].sequence, 7)
        XCTAssertEqual(parsed[0].portID, 99)
        XCTAssertEqual(Array(parsed[0].payload), [1, 2, 3], "padding is not part of the payload")
        XCTAssertEqual(Array(parsed[1].payload), [1, 2, 3])
    }

    // MARK: Captured replies

    func testSplitsAMultiPartDumpUntilDone() throws {
        let first = try NetlinkMessage.parseAll(CapturedReply.linkDump[0])
        XCTAssertEqual(first.map(\.type), [.newLink, .newLink], "two links in one datagram")
        XCTAssertTrue(first.allSatisfy { $0.flags.contains(.multi) && $0.sequence == 1 && $0.portID == 16980 })
        XCTAssertEqual(try first.map { try LinkMessage.decode($0.payload).name }, ["lo", "u0p"])

        let last = try NetlinkMessage.parseAll(CapturedReply.linkDump[1])
        XCTAssertEqual(last.count, 1)
        XCTAssertEqual(last[0].type, .done)
        XCTAssertTrue(last[0].flags.contains(.multi))
        XCTAssertEqual(try last[0].errorCode(), 0, "NLMSG_DONE carries status 0")
    }

    func testEachVerdictErrno() throws {
        let cases: [(String, [[UInt8]], Errno)] = [
            ("no route", CapturedReply.errorNoRoute, .networkUnreachable),
            ("throw route", CapturedReply.errorThrowRoute, .networkUnreachable),
            ("unreachable route", CapturedReply.errorUnreachableRoute, .hostUnreachable),
            ("blackhole route", CapturedReply.errorBlackholeRoute, .invalidArgument),
            ("prohibit route", CapturedReply.errorProhibitRoute, .permissionDenied),
            ("IPv6 no route", CapturedReply.errorIPv6NoRoute, .networkUnreachable),
            ("IPv6 unreachable route", CapturedReply.errorIPv6UnreachableRoute, .hostUnreachable),
            ("IPv6 blackhole route", CapturedReply.errorIPv6BlackholeRoute, .invalidArgument),
            ("IPv6 prohibit route", CapturedReply.errorIPv6ProhibitRoute, .permissionDenied),
            ("no such link", CapturedReply.errorNoSuchLink, .noDevice),
        ]
        for (name, datagrams, errno) in cases {
            XCTAssertEqual(datagrams.count, 1, name)
            let messages = try NetlinkMessage.parseAll(datagrams[0])
            XCTAssertEqual(messages.count, 1, name)
            XCTAssertEqual(messages[0].type, .error, name)
            XCTAssertEqual(messages[0].sequence, 1, name)
            XCTAssertEqual(try messages[0].errorCode(), errno.rawValue, name)
        }
    }

    func testErrorEchoesTheRequestReachEncodes() throws {
        // The capture script sends the bytes reach encodes; the kernel echoes them after the errno.
        let error = try XCTUnwrap(NetlinkMessage.parseAll(CapturedReply.errorNoSuchLink[0]).first)
        let request = NetlinkMessage(type: .getLink, flags: .request, sequence: 1,
                                     payload: LinkMessage.requestPayload(index: 9999)[...])
        XCTAssertEqual(hexString(error.payload.dropFirst(4)), hexString(request.encoded()))

        let routeError = try XCTUnwrap(NetlinkMessage.parseAll(CapturedReply.errorBlackholeRoute[0]).first)
        let routeRequest = NetlinkMessage(type: .getRoute, flags: .request, sequence: 1,
                                          payload: RouteMessage.lookupPayload(destination: address("198.51.100.65"))[...])
        XCTAssertEqual(hexString(routeError.payload.dropFirst(4)), hexString(routeRequest.encoded()))
    }

    func testAcknowledgementFollowsTheAnswer() throws {
        XCTAssertEqual(CapturedReply.routeWithAcknowledgement.count, 2, "answer and ACK come as two datagrams")
        let answer = try NetlinkMessage.parseAll(CapturedReply.routeWithAcknowledgement[0])
        XCTAssertEqual(answer.map(\.type), [.newRoute])
        let ack = try NetlinkMessage.parseAll(CapturedReply.routeWithAcknowledgement[1])
        XCTAssertEqual(ack.map(\.type), [.error])
        XCTAssertEqual(try ack[0].errorCode(), 0)
        // NLM_F_CAPPED (0x100): with extended ACKs on, the kernel echoes only the request's header.
        XCTAssertEqual(ack[0].flags.rawValue, 0x100)
        XCTAssertEqual(ack[0].payload.count, 4 + 16)
    }

    // MARK: Malformed input: a ParseError, never a trap

    func testEveryTruncationOfACapturedDatagramThrows() {
        let datagrams = [CapturedReply.routeViaGatewayInTable100[0], CapturedReply.linkVeth[0],
                         CapturedReply.linkDump[0], CapturedReply.errorNoRoute[0], CapturedReply.linkDump[1]]
        for datagram in datagrams {
            // A cut between two whole messages leaves a shorter valid datagram.
            var boundaries: Set<Int> = []
            var offset = 0
            while offset < datagram.count {
                offset += Int(datagram[offset]) | Int(datagram[offset + 1]) << 8
                boundaries.insert(offset)
                offset = (offset + 3) & ~3
                boundaries.insert(offset)
            }
            for length in 1..<datagram.count where !boundaries.contains(length) {
                XCTAssertThrowsError(try NetlinkMessage.parseAll(Array(datagram.prefix(length))), "cut at \(length)") { error in
                    XCTAssertTrue(error is ParseError, "cut at \(length): \(error)")
                }
            }
        }
    }

    func testEmptyDatagramHoldsNoMessages() throws {
        XCTAssertEqual(try NetlinkMessage.parseAll([]), [])
    }

    func testHeaderShorterThanItselfThrows() {
        // nlmsg_len 0 (or anything below 16) would never advance: it must be refused.
        for length: UInt8 in [0, 1, 15] {
            let datagram = hex("""
                \(hexString([length]))000000   // nlmsg_len
                1800 0000 01000000 00000000     // type, flags, seq, pid
                """)
            XCTAssertThrowsError(try NetlinkMessage.parseAll(datagram)) { error in
                XCTAssertEqual((error as? ParseError)?.offset, 0)
            }
        }
    }

    func testLengthPastTheDatagramNamesTheMessageOffset() throws {
        let good = NetlinkMessage(type: .done, flags: .multi, sequence: 1, payload: [0, 0, 0, 0][...]).encoded()
        var bad = good
        bad[0] = 0x40 // claims 64 bytes, 20 arrived
        XCTAssertThrowsError(try NetlinkMessage.parseAll(good + bad)) { error in
            XCTAssertEqual((error as? ParseError)?.offset, good.count, "the second message's offset")
        }
    }

    func testTrailingBytesShorterThanAHeaderThrow() {
        let message = NetlinkMessage(type: .done, flags: [], sequence: 1, payload: [0, 0, 0, 0][...]).encoded()
        XCTAssertThrowsError(try NetlinkMessage.parseAll(message + [1, 2, 3])) { error in
            XCTAssertEqual((error as? ParseError)?.offset, message.count)
        }
    }

    func testLastMessageMayOmitItsPadding() throws {
        let message = NetlinkMessage(type: .newRoute, flags: [], sequence: 3, payload: [9][...]).encoded()
        let unpadded = Array(message.prefix(17))
        let parsed = try NetlinkMessage.parseAll(unpadded)
        XCTAssertEqual(parsed.map { Array($0.payload) }, [[9]])
    }

    func testErrorCodeOfAShortErrorThrows() {
        let message = NetlinkMessage(type: .error, flags: [], sequence: 1, payload: [0xff, 0xff][...])
        XCTAssertThrowsError(try message.errorCode()) { error in
            XCTAssertTrue(error is ParseError)
        }
    }

    func testErrorCodeOfTheMostNegativeValueDoesNotOverflow() throws {
        let message = NetlinkMessage(type: .error, flags: [], sequence: 1, payload: [0x00, 0x00, 0x00, 0x80][...])
        XCTAssertEqual(try message.errorCode(), Int32.max)
    }

    func testUnknownMessageTypesSurviveAsNumbers() throws {
        let message = NetlinkMessage(type: NetlinkMessageType(rawValue: 0x4242), flags: [], sequence: 1, payload: [][...])
        let parsed = try NetlinkMessage.parseAll(message.encoded())
        XCTAssertEqual(parsed.first?.type.rawValue, 0x4242)
        XCTAssertEqual(parsed.first?.type.description, "16962")
    }

    func testParseErrorSaysWhere() {
        XCTAssertEqual(ParseError(offset: 12, "attribute 4 length 9 does not fit").description,
                       "malformed data at offset 12: attribute 4 length 9 does not fit")
    }
}
