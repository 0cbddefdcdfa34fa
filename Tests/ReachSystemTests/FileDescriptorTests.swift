#if canImport(Glibc)
import Glibc
#endif
import XCTest

@testable import ReachSystem

/// A descriptor is closed once, when its owner ends, and not at all once released; the
/// sockets it opens are close-on-exec and non-blocking.
final class FileDescriptorTests: XCTestCase {
    /// fcntl(2) F_GETFD answers EBADF for a number that is not open.
    private func isOpen(_ number: FileDescriptor.Number) -> Bool {
        fcntl(number.rawValue, F_GETFD) != -1
    }

    func testClosedWhenItsOwnerEnds() throws {
        var number = FileDescriptor.Number.none
        do {
            let socket = try FileDescriptor.socket(.ipv4, .datagram)
            number = socket.number
            XCTAssertTrue(isOpen(number))
        }
        let stillOpen = isOpen(number)
        let error = errno
        XCTAssertFalse(stillOpen)
        XCTAssertEqual(error, EBADF)
    }

    func testSocketIsCloseOnExecAndNonBlocking() throws {
        let socket = try FileDescriptor.socket(.ipv4, .stream)
        let descriptorFlags = fcntl(socket.rawValue, F_GETFD)
        let statusFlags = fcntl(socket.rawValue, F_GETFL)
        XCTAssertEqual(descriptorFlags & FD_CLOEXEC, FD_CLOEXEC)
        XCTAssertNotEqual(statusFlags & O_NONBLOCK, 0)
    }

    func testPipeEndsCloseWithThePipe() throws {
        var ends: (FileDescriptor.Number, FileDescriptor.Number) = (.none, .none)
        do {
            let pipe = try ReachSystem.Pipe()  // Foundation, which XCTest imports, has a Pipe too
            ends = (pipe.read.number, pipe.write.number)
            XCTAssertTrue(isOpen(ends.0) && isOpen(ends.1))
        }
        XCTAssertFalse(isOpen(ends.0))
        XCTAssertFalse(isOpen(ends.1))
    }

    /// bind(2) to an address that is not this host's (TEST-NET-1, RFC 5737) is refused
    /// before anything is sent: an errno to decide on, not a thrown error.
    func testBindRefusalIsAnErrno() throws {
        let socket = try FileDescriptor.socket(.ipv4, .datagram)
        let elsewhere = socket.bind(to: try IPAddress.parse("192.0.2.1"))
        let loopback = socket.bind(to: try IPAddress.parse("127.0.0.1"))
        XCTAssertEqual(elsewhere, .addressNotAvailable)
        XCTAssertNil(loopback)
    }

    /// SO_BINDTODEVICE to a link that does not exist is refused with ENODEV
    /// (sock_bindtoindex_locked in net/core/sock.c), before the address is tried; to lo it
    /// is taken, and the address is then bound (or refused) as alone.
    func testBindingToALinkThenAnAddress() throws {
        let socket = try FileDescriptor.socket(.ipv4, .datagram)
        let missing = socket.bind(SocketBinding(address: try IPAddress.parse("127.0.0.1"), interface: "rch-nosuch0"))
        let elsewhere = socket.bind(SocketBinding(address: try IPAddress.parse("192.0.2.1"), interface: "lo"))
        let loopback = socket.bind(SocketBinding(address: try IPAddress.parse("127.0.0.1"), interface: "lo"))
        let unbound = try FileDescriptor.socket(.ipv6, .stream).bind(.unbound)
        XCTAssertEqual(missing, .interface(.noDevice))
        XCTAssertEqual(elsewhere, .address(.addressNotAvailable))
        XCTAssertNil(loopback)
        XCTAssertNil(unbound)
    }

    /// Two datagram sockets on loopback: connect fixes the peer, send and receive move bytes,
    /// and a wait with nothing queued times out empty.
    func testDatagramOnLoopback() throws {
        let loopback = try IPAddress.parse("127.0.0.1")
        // Results are taken into locals first: a test macro's autoclosure cannot capture a
        // non-copyable value.
        let receiver = try FileDescriptor.socket(.ipv4, .datagram)
        let bound = receiver.bind(to: loopback)
        let port = SocketAddress.port(of: try System.localName(receiver.rawValue))
        let sender = try FileDescriptor.socket(.ipv4, .datagram)
        let connected = sender.connect(to: loopback, port: port)
        let before = try receiver.wait(for: .readable, timeout: .zero)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: [1, 2, 3] as [UInt8])
        let sent = sender.send(UnsafeRawBufferPointer(rebasing: buffer[0..<3]))
        let after = try receiver.wait(for: .readable, timeout: .seconds(5))
        buffer.copyBytes(from: [UInt8](repeating: 0, count: 8))
        let received = receiver.receive(into: buffer)
        XCTAssertNil(bound)
        XCTAssertNil(connected)
        XCTAssertEqual(before, [])
        XCTAssertEqual(try sent.get(), 3)
        XCTAssertEqual(after, .readable)
        XCTAssertEqual(try received.get(), 3)
        XCTAssertEqual(Array(buffer[0..<3]), [1, 2, 3])
    }
}
