#if canImport(Glibc)
import Glibc
#endif
import XCTest

@testable import ReachSystem

/// The sockaddr checks the receive path makes per datagram instead of building an address.
final class SocketAddressTests: XCTestCase {
    private func storage(of address: IPAddress) -> sockaddr_storage {
        var storage = sockaddr_storage()
        SocketAddress.with(address) { pointer, length in
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: Int(length))) }
        }
        return storage
    }

    /// A raw IPv4 datagram's sender is read from its header: bytes 12-15, network order.
    func testStorageFromAnIPv4HeaderSourceIsThatAddress() throws {
        let header: [UInt8] = [0x45, 0, 0, 84, 0, 0, 0, 0, 64, 1, 0, 0, 198, 18, 0, 2, 198, 18, 0, 1]
        let source = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) }
        let built = SocketAddress.storage(ipv4: source)
        XCTAssertEqual(SocketAddress.address(of: built), try IPAddress.parse("198.18.0.2"))
        XCTAssertTrue(SocketAddress.sameAddress(built, storage(of: try IPAddress.parse("198.18.0.2"))))
    }

    func testSameAddressComparesFamilyBytesAndScope() throws {
        let v4 = storage(of: try IPAddress.parse("198.18.0.2"))
        XCTAssertTrue(SocketAddress.sameAddress(v4, storage(of: try IPAddress.parse("198.18.0.2"))))
        XCTAssertFalse(SocketAddress.sameAddress(v4, storage(of: try IPAddress.parse("198.18.0.3"))))
        var withPort = v4
        withUnsafeMutableBytes(of: &withPort) { $0[2] = 0x12 } // a datagram socket's sin_port: the echo id
        XCTAssertTrue(SocketAddress.sameAddress(v4, withPort), "the port is not part of the address")
        let address6 = try IPAddress.parse("2001:db8::2")
        let v6 = storage(of: address6)
        XCTAssertTrue(SocketAddress.sameAddress(v6, storage(of: address6)))
        XCTAssertFalse(SocketAddress.sameAddress(v6, v4), "another family")
        let scoped = storage(of: IPAddress(family: .ipv6, bytes: address6.bytes, scopeID: 1, zone: "lo")!)
        XCTAssertFalse(SocketAddress.sameAddress(v6, scoped), "another scope")
        XCTAssertFalse(SocketAddress.sameAddress(sockaddr_storage(), sockaddr_storage()), "no family: no address")
        XCTAssertEqual(SocketAddress.address(of: scoped), IPAddress(family: .ipv6, bytes: address6.bytes, scopeID: 1, zone: "lo"))
    }
}
