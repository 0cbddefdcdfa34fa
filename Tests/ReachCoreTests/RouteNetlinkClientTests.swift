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

    // MARK: many lookups in flight

    func testManyLookupsGoInOneDatagramAndAnswersAreMatchedBySequence() throws {
        let targets = ["198.18.0.2", "198.51.100.1", "198.18.0.3"].map(address)
        // The answers come back in another order, two in one datagram: each is filed by its sequence number.
        let transport = BatchingTransport(batches: [[
            resequenced(CapturedReply.errorNoRoute[0], to: 2) + resequenced(CapturedReply.routeDirectIPv4[0], to: 3),
            resequenced(CapturedReply.routeDirectIPv4[0], to: 1),
        ]])
        let client = RouteNetlinkClient(transport: transport)
        let results = try client.lookupRoutes(to: targets, selectors: RouteSelectors(mark: 7))
        XCTAssertEqual(transport.sent.count, 1, "one send for the three requests")
        let requests = try NetlinkMessage.parseAll(transport.sent[0])
        XCTAssertEqual(requests.map(\.sequence), [1, 2, 3])
        XCTAssertEqual(requests.map { Array($0.payload) },
                       targets.map { RouteMessage.lookupPayload(destination: $0, selectors: RouteSelectors(mark: 7)) })
        XCTAssertEqual(results[1], .rejected(.networkUnreachable))
        guard case .route = results[0], case .route = results[2] else { return XCTFail("\(results)") }
    }

    func testAWindowAtATime() throws {
        let count = RouteNetlinkClient.window + 3
        let targets = (0..<count).map { address("198.18.1.\($0)") }
        let replies = (1...count).map { resequenced(CapturedReply.routeDirectIPv4[0], to: UInt32($0)) }
        let window = RouteNetlinkClient.window
        let transport = BatchingTransport(batches: [Array(replies.prefix(window)), Array(replies.dropFirst(window))])
        let results = try RouteNetlinkClient(transport: transport).lookupRoutes(to: targets, selectors: .none)
        XCTAssertEqual(results.count, count)
        XCTAssertEqual(try transport.sent.map { try NetlinkMessage.parseAll($0).count }, [RouteNetlinkClient.window, 3])
    }

    func testAnswersTheKernelDroppedAreAskedAgain() throws {
        let targets = ["198.18.0.2", "198.18.0.3", "198.18.0.4"].map(address)
        // The first answer arrives, then ENOBUFS: the others were dropped. The client reads
        // what is queued (nothing), then asks for those two again under new numbers.
        let transport = BatchingTransport(batches: [
            [resequenced(CapturedReply.routeDirectIPv4[0], to: 1)],
            nil,
            [resequenced(CapturedReply.errorNoRoute[0], to: 4), resequenced(CapturedReply.routeDirectIPv4[0], to: 5)],
        ])
        let results = try RouteNetlinkClient(transport: transport).lookupRoutes(to: targets, selectors: .none)
        XCTAssertEqual(try transport.sent.map { try NetlinkMessage.parseAll($0).map(\.sequence) }, [[1, 2, 3], [4, 5]])
        XCTAssertEqual(results[1], .rejected(.networkUnreachable))
        guard case .route = results[0], case .route = results[2] else { return XCTFail("\(results)") }
    }
}

/// A transport that hands out datagrams a batch at a time; a nil batch is the kernel's
/// ENOBUFS. Not waiting, it answers only what the current batch has left.
private final class BatchingTransport: NetlinkTransport {
    var sent: [[UInt8]] = []
    var batches: [[[UInt8]]?]

    init(batches: [[[UInt8]]?]) { self.batches = batches }

    func send(_ datagram: [UInt8]) throws { sent.append(datagram) }

    func receive() throws -> [UInt8] { throw FakeNetlinkTransport.Exhausted() }

    func receiveBatch(waiting: Bool) throws -> [ArraySlice<UInt8>] {
        guard waiting else { return [] }
        guard !batches.isEmpty else { throw FakeNetlinkTransport.Exhausted() }
        guard let batch = batches.removeFirst() else { throw SystemCallError("recvmmsg", .noBufferSpace) }
        return batch.map { $0[...] }
    }
}
