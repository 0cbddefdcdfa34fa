import Glibc
import XCTest
@testable import ReachCore
import ReachSystem

/// The one HTTP probe as its two users call it: the command line's User-Agent and verdicts,
/// the exporter's phases summed over two requests, against a server on loopback.
final class HTTPProbeTests: XCTestCase {
    func testRequestCarriesEachUsersAgentAndRFC9110sHost() {
        let cli = HTTPProbe(userAgent: "reach/1").request(host: "example.test", port: 80, path: "/generate_204")
        XCTAssertEqual(
            cli, "GET /generate_204 HTTP/1.1\r\nHost: example.test\r\nUser-Agent: reach/1\r\nAccept: */*\r\nConnection: close\r\n\r\n")
        let exporter = HTTPProbe(userAgent: "reach-exporter/1").request(host: "2001:db8::1", port: 8080, path: "/")
        XCTAssertTrue(exporter.contains("\r\nHost: [2001:db8::1]:8080\r\n"), exporter)
        XCTAssertTrue(exporter.contains("\r\nUser-Agent: reach-exporter/1\r\n"), exporter)
    }

    func testResponseAndVersionAndPhasesSummedOverRequests() throws {
        let server = try LoopbackServer(answers: ["HTTP/1.0 204 No Content\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"])
        let probe = HTTPProbe(userAgent: "reach-exporter/1")
        let deadline = MonotonicInstant.now() + .seconds(5)
        var phases = HTTPProbe.Phases()
        let first = try probe.get(.loopback4, host: "127.0.0.1", port: server.port, path: "/", deadline: deadline, phases: &phases)
        guard case .response(let response, let version) = first else { return XCTFail("\(first)") }
        XCTAssertEqual(response.statusCode, 204)
        XCTAssertEqual(version, 1.0)
        let afterOne = phases
        XCTAssertGreaterThan(afterOne.connect, .zero)
        XCTAssertGreaterThan(afterOne.processing, .zero)
        let second = try probe.get(.loopback4, host: "127.0.0.1", port: server.port, path: "/", deadline: deadline, phases: &phases)
        guard case .response(let ok, let okVersion) = second else { return XCTFail("\(second)") }
        XCTAssertEqual(ok.body, Array("ok".utf8))
        XCTAssertEqual(okVersion, 1.1)
        XCTAssertGreaterThan(phases.connect, afterOne.connect)
        XCTAssertGreaterThan(phases.processing, afterOne.processing)
        XCTAssertTrue(server.requests.allSatisfy { $0.contains("User-Agent: reach-exporter/1\r\n") }, "\(server.requests)")
    }

    func testOutcomesTheCommandLineTurnsIntoLines() throws {
        let deadline = MonotonicInstant.now() + .seconds(5)
        var phases = HTTPProbe.Phases()
        let probe = HTTPProbe(userAgent: "reach/1")
        let silent = try LoopbackServer(answers: [""])
        XCTAssertEqual(
            try probe.get(.loopback4, host: "127.0.0.1", port: silent.port, path: "/", deadline: deadline, phases: &phases),
            .noResponse("connection closed with no response"))
        let garbage = try LoopbackServer(answers: ["SSH-2.0-OpenSSH\r\n"])
        XCTAssertEqual(
            try probe.get(.loopback4, host: "127.0.0.1", port: garbage.port, path: "/", deadline: deadline, phases: &phases),
            .malformed("not an HTTP response"))
        let closedPort = try LoopbackServer(answers: []).port // listens no more once its answers are given
        guard case .notConnected(let why) = try probe.get(
            .loopback4, host: "127.0.0.1", port: closedPort, path: "/", deadline: deadline, phases: &phases)
        else { return XCTFail("connected to a closed port") }
        XCTAssertEqual(why, TCPProbe.Failure(.refused, detail: "connection refused by 127.0.0.1 port \(closedPort)"))
    }

    func testTCPFailuresKeepTheRouteTypeForTheExporterAndALineForTheCommandLine() throws {
        let address = try IPAddress.parse("198.51.100.7")
        guard case .failure(let refused) = TCPProbe.result(of: .routeRefused(.invalidArgument), address: address, port: 443) else {
            return XCTFail("a refused route connected")
        }
        XCTAssertEqual(refused.routeRefusal, .blackholeRoute)
        XCTAssertEqual(refused.detail, "198.51.100.7 port 443: \(Errno.invalidArgument) (blackhole route)")
        guard case .failure(let late) = TCPProbe.result(of: .timedOut, address: address, port: 443) else { return XCTFail() }
        XCTAssertEqual(late, TCPProbe.Failure(.timedOut, detail: "timed out connecting to 198.51.100.7 port 443"))
    }
}

extension IPAddress {
    fileprivate static let loopback4 = try! IPAddress.parse("127.0.0.1")
}

/// A TCP server on 127.0.0.1 that answers each connection, in turn, with the next canned
/// bytes after reading the request's head, then closes it; gone once every answer is given.
private final class LoopbackServer: @unchecked Sendable {
    let port: UInt16
    private let lock = Lock()
    private var received: [String] = []
    var requests: [String] { lock.withLock { received } }

    init(answers: [String]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 4) == 0 else {
            close(fd)
            throw SystemCallError("bind", Errno(rawValue: errno))
        }
        port = UInt16(bigEndian: address.sin_port)
        guard !answers.isEmpty else {
            close(fd)
            return
        }
        try DetachedThread.start { [self] in
            for answer in answers {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { break }
                var head: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while !String(decoding: head, as: UTF8.self).contains("\r\n\r\n") {
                    let count = read(client, &buffer, buffer.count)
                    if count <= 0 { break }
                    head += buffer[0..<count]
                }
                lock.withLock { received.append(String(decoding: head, as: UTF8.self)) }
                _ = Array(answer.utf8).withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
            close(fd)
        }
    }
}
