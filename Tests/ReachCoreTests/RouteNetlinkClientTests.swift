import XCTest
@testable import ReachCore
import ReachSystem

final class RouteNetlinkClientTests: XCTestCase {
    func testSendsTheEncodedRequestAndDecodesTheAnswer() throws {
        let transport = FakeNetlinkTransport(replies: CapturedReply.routeViaGatewayInTable100)
        let client = RouteNetlinkClient(transport: transport)
        let result = try client.lookupRoute(to: address("203.0.113.7"))

        let expected = NetlinkMessage(type: .getRoute, flags: .request, sequence: 1,
                                      payload: RouteMessage.lookupPayload(destination: address("203.0.113.7"))[...])
        XCTAssertEqual(transport.sent.map { hexString($0) }, [hexString(expected.encoded())])
        guard case .route(let route) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(route.gateway, address("198.18.0.2"))
        XCTAssertEqual(route.outputInterface, 2)
    }

    func testZoneBecomesTheOutputInterface() throws {
        let transport = FakeNetlinkTransport(replies: CapturedReply.routeIPv6LinkLocalWithZone)
        let client = RouteNetlinkClient(transport: transport)
        let zoned = try XCTUnwrap(IPAddress(family: .ipv6, bytes: address("fe80::2").bytes, scopeID: 2, zone: "u0"))
        _ = try client.lookupRoute(to: zoned)
        let expected = hex("""
            38000000 1a00 0100 01000000 00000000   // nlmsghdr: 56 bytes, RTM_GETROUTE, NLM_F_REQUEST, seq 1
            0a 80 00 00 00 00 00 00 00000000       // rtmsg: AF_INET6, /128
            1400 0100 fe800000 00000000            // RTA_DST fe80::2
            00000000 00000002
            0800 0400 02000000                     // RTA_OIF 2: the zone
            """)
        XCTAssertEqual(transport.sent.map { hexString($0) }, [hexString(expected)])
    }

    func testSequenceNumbersAdvanceAndRepliesMustMatchThem() throws {
        let transport = FakeNetlinkTransport(replies: [
            CapturedReply.routeDirectIPv4[0],
            // The late answer to request 1 arrives during request 2, then the real one.
            CapturedReply.linkVeth[0],
            resequenced(CapturedReply.linkVeth[0], to: 2),
        ])
        let client = RouteNetlinkClient(transport: transport)
        _ = try client.lookupRoute(to: address("198.18.0.2"))
        let link = try client.link(index: 2)
        XCTAssertEqual(link?.name, "u0")
        XCTAssertEqual(try transport.sent.map { try NetlinkMessage.parseAll($0)[0].sequence }, [1, 2])
        XCTAssertTrue(transport.replies.isEmpty)
    }

    func testSkipsStrayMessagesBeforeTheAnswer() throws {
        let multicastNotice = NetlinkMessage(type: .newLink, flags: [], sequence: 0,
                                             payload: try NetlinkMessage.parseAll(CapturedReply.linkVeth[0])[0].payload).encoded()
        let wrongTypeSameSequence = NetlinkMessage(type: .newAddress, flags: [], sequence: 1, payload: [0, 0, 0, 0][...]).encoded()
        let transport = FakeNetlinkTransport(replies: [
            multicastNotice,
            resequenced(CapturedReply.errorNoRoute[0], to: 77), // someone else's verdict
            wrongTypeSameSequence + CapturedReply.routeDirectIPv4[0], // two messages in one datagram
        ])
        let client = RouteNetlinkClient(transport: transport)
        guard case .route(let route) = try client.lookupRoute(to: address("198.18.0.2")) else { return XCTFail() }
        XCTAssertEqual(route.destination, address("198.18.0.2"))
    }

    func testAcknowledgementBeforeTheAnswerIsSkipped() throws {
        let transport = FakeNetlinkTransport(replies: [
            CapturedReply.routeWithAcknowledgement[1], // the ACK (error 0), first for once
            CapturedReply.routeWithAcknowledgement[0],
        ])
        let client = RouteNetlinkClient(transport: transport)
        guard case .route(let route) = try client.lookupRoute(to: address("198.18.0.2")) else { return XCTFail() }
        XCTAssertEqual(route.outputInterface, 2)
    }

    func testVerdictErrorsAreResultsNotFailures() throws {
        let cases: [([[UInt8]], Errno)] = [
            (CapturedReply.errorNoRoute, .networkUnreachable),
            (CapturedReply.errorThrowRoute, .networkUnreachable),
            (CapturedReply.errorUnreachableRoute, .hostUnreachable),
            (CapturedReply.errorBlackholeRoute, .invalidArgument),
            (CapturedReply.errorProhibitRoute, .permissionDenied),
            (CapturedReply.errorIPv6ProhibitRoute, .permissionDenied),
        ]
        for (replies, errno) in cases {
            let client = RouteNetlinkClient(transport: FakeNetlinkTransport(replies: replies))
            XCTAssertEqual(try client.lookupRoute(to: address("198.51.100.1")), .rejected(errno))
        }
    }

    func testMissingLinkIsNil() throws {
        let client = RouteNetlinkClient(transport: FakeNetlinkTransport(replies: CapturedReply.errorNoSuchLink))
        XCTAssertNil(try client.link(index: 9999))
    }

    func testOtherLinkErrorsAreFailures() {
        var reply = CapturedReply.errorNoSuchLink[0]
        reply[16] = 0xf0 // -16: EBUSY instead of -ENODEV
        let client = RouteNetlinkClient(transport: FakeNetlinkTransport(replies: [reply]))
        XCTAssertThrowsError(try client.link(index: 9999)) { error in
            XCTAssertEqual(error as? NetlinkRequestError, NetlinkRequestError(request: "RTM_GETLINK", errno: Errno(rawValue: 16)))
            XCTAssertEqual((error as? NetlinkRequestError)?.description, "RTM_GETLINK: Device or resource busy")
        }
    }

    func testUnknownRouteErrnoIsPassedOnForTheEvaluatorToJudge() throws {
        var reply = CapturedReply.errorNoRoute[0]
        reply[16] = 0xff // -1: EPERM
        let client = RouteNetlinkClient(transport: FakeNetlinkTransport(replies: [reply]))
        XCTAssertEqual(try client.lookupRoute(to: address("198.19.0.1")), .rejected(.notPermitted))
    }

    func testMalformedReplyThrowsParseError() {
        let cut = Array(CapturedReply.routeDirectIPv4[0].dropLast(10))
        let client = RouteNetlinkClient(transport: FakeNetlinkTransport(replies: [cut]))
        XCTAssertThrowsError(try client.lookupRoute(to: address("198.18.0.2"))) { error in
            XCTAssertTrue(error is ParseError, "\(error)")
        }
    }

    func testTransportFailuresPropagate() {
        let transport = FakeNetlinkTransport()
        transport.sendError = SystemCallError("send", .noBufferSpace)
        let client = RouteNetlinkClient(transport: transport)
        XCTAssertThrowsError(try client.link(index: 1)) { error in
            XCTAssertEqual(error as? SystemCallError, SystemCallError("send", .noBufferSpace))
        }
        let silent = RouteNetlinkClient(transport: FakeNetlinkTransport(replies: []))
        XCTAssertThrowsError(try silent.lookupRoute(to: address("198.18.0.2"))) { error in
            XCTAssertTrue(error is FakeNetlinkTransport.Exhausted)
        }
    }
}
