#if canImport(Glibc)
import Glibc
#endif

/// The name of an address, as traceroute prints a hop without -n (traceroute.c print_addr:
/// getnameinfo(3) with NI_IDN): /etc/hosts, then the resolver's PTR lookup, per nsswitch.
public enum AddressName {
    /// The address's name, or nil when it has none (NI_NAMEREQD: no numeric stand-in).
    public static func lookup(_ address: IPAddress) -> String? {
        var name = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = SocketAddress.with(address) { pointer, length in
            name.withUnsafeMutableBufferPointer { getnameinfo(pointer, length, $0.baseAddress, socklen_t($0.count), nil, 0, NI_NAMEREQD) }
        }
        guard status == 0 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
