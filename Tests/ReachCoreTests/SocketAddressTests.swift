#if canImport(Glibc)
import Glibc
#endif
import XCTest

@testable import ReachCore

/// The sockaddr checks the receive path makes per datagram instead of building an address.
final class SocketAddressTests: XCTestCase {
    private func storage(of address: IPAddress) -> sockaddr_storage {
        var storage = sockaddr_storage()
        SocketAddress.with(address) { pointer, length in
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: Int(length))) }
        }
        return storage
    }

    func testStorageHoldsTheSameAddressOnly() throws {
        let v4 = try IPAddress.parse("198.18.0.2")
        XCTAssertTrue(SocketAddress.storage(storage(of: v4), holds: v4))
        XCTAssertFalse(SocketAddress.storage(storage(of: try IPAddress.parse("198.18.0.3")), holds: v4))
        let v6 = try IPAddress.parse("2001:db8::2")
        XCTAssertTrue(SocketAddress.storage(storage(of: v6), holds: v6))
        XCTAssertFalse(SocketAddress.storage(storage(of: v6), holds: v4), "another family")
        XCTAssertFalse(SocketAddress.storage(storage(of: v4), holds: v6))
        let scoped = IPAddress(family: .ipv6, bytes: v6.bytes, scopeID: 1, zone: "lo")!
        XCTAssertFalse(SocketAddress.storage(storage(of: scoped), holds: v6), "another scope")
        XCTAssertTrue(SocketAddress.storage(storage(of: scoped), holds: scoped))
        XCTAssertEqual(SocketAddress.address(of: storage(of: scoped)), IPAddress(family: .ipv6, bytes: v6.bytes, scopeID: 1, zone: "lo"))
    }

    func testBytesEqual() {
        let payload = ICMPCodec.standardPayload(size: 56)
        let datagram = [8, 0, 0, 0, 0, 1, 0, 1] + payload
        XCTAssertTrue(System.bytesEqual(datagram[8...], payload))
        XCTAssertFalse(System.bytesEqual(datagram[7...], payload), "a byte longer")
        XCTAssertFalse(System.bytesEqual(datagram[8..<63], payload), "a byte shorter")
        var changed = datagram
        changed[63] ^= 1
        XCTAssertFalse(System.bytesEqual(changed[8...], payload))
        XCTAssertTrue(System.bytesEqual([][...], []))
    }
}
