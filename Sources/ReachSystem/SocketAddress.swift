#if canImport(Glibc)
import Glibc
#endif

/// sockaddr_in / sockaddr_in6 to and from `IPAddress`.
enum SocketAddress {
    static func with<T>(_ address: IPAddress, port: UInt16 = 0, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> T) rethrows -> T {
        switch address.family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: address.bytes) }
            return try withUnsafePointer(to: &sin) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            sin6.sin6_scope_id = address.scopeID
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: address.bytes) }
            return try withUnsafePointer(to: &sin6) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// Whether two sockaddrs name the same IP address: family, address bytes, and the IPv6
    /// scope (ports and flow labels aside).
    static func sameAddress(_ lhs: sockaddr_storage, _ rhs: sockaddr_storage) -> Bool {
        guard lhs.ss_family == rhs.ss_family else { return false }
        let range: Range<Int>
        switch Int32(lhs.ss_family) {
        case AF_INET:
            // One 32-bit word, compared as such (a reply per echo in a flood).
            return withUnsafeBytes(of: lhs) { left in
                withUnsafeBytes(of: rhs) { right in
                    let offset = MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr)!
                    return left.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                        == right.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                }
            }
        case AF_INET6:
            let start = MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr)!
            // sin6_addr, then sin6_scope_id right after it.
            range = start..<MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_scope_id)! + MemoryLayout<UInt32>.size
        default:
            return false
        }
        return withUnsafeBytes(of: lhs) { left in
            withUnsafeBytes(of: rhs) { right in
                memcmp(left.baseAddress! + range.lowerBound, right.baseAddress! + range.lowerBound, range.count) == 0
            }
        }
    }

    /// A sockaddr_in for an IPv4 address as it sits in a packet (network order).
    static func storage(ipv4 networkOrder: UInt32) -> sockaddr_storage {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.storeBytes(of: sa_family_t(AF_INET), toByteOffset: 0, as: sa_family_t.self)
            raw.storeBytes(of: networkOrder, toByteOffset: MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr)!, as: UInt32.self)
        }
        return storage
    }

    static func address(of storage: sockaddr_storage) -> IPAddress? {
        withUnsafeBytes(of: storage) { address(at: $0.baseAddress!, length: $0.count) }
    }

    static func address(at pointer: UnsafeRawPointer, length: Int) -> IPAddress? {
        guard length >= 2 else { return nil }
        let family = Int32(pointer.loadUnaligned(as: sa_family_t.self))
        if family == AF_INET, length >= MemoryLayout<sockaddr_in>.size {
            let sin = pointer.loadUnaligned(as: sockaddr_in.self)
            return withUnsafeBytes(of: sin.sin_addr) { IPAddress(family: .ipv4, bytes: Array($0)) }
        }
        if family == AF_INET6, length >= MemoryLayout<sockaddr_in6>.size {
            let sin6 = pointer.loadUnaligned(as: sockaddr_in6.self)
            let scope = sin6.sin6_scope_id
            return withUnsafeBytes(of: sin6.sin6_addr) {
                IPAddress(family: .ipv6, bytes: Array($0), scopeID: scope, zone: scope == 0 ? nil : NetworkInterface.name(index: scope))
            }
        }
        return nil
    }

    static func port(of storage: sockaddr_storage) -> UInt16 {
        withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, in network order.
            UInt16(raw[2]) << 8 | UInt16(raw[3])
        }
    }
}
