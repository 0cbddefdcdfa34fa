#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// One getaddrinfo call on a background job: getaddrinfo blocks and cannot be
/// cancelled, so the caller polls the job's descriptor with a timeout and may abandon it.
public final class HostResolution: Sendable {
    private let job: BackgroundJob<ResolutionOutcome>

    /// Readable once the lookup has finished (for poll loops).
    public var readinessDescriptor: FileDescriptor.Number { job.readinessDescriptor }

    /// Starts resolving `name`; `family` nil asks for both A and AAAA.
    public init(name: String, family: AddressFamily?) throws(SystemCallError) {
        job = try BackgroundJob { HostResolution.getaddrinfo(name: name, family: family) }
    }

    /// Waits up to `timeout`; nil when the lookup is still running.
    public func wait(timeout: TimeSpan) throws(SystemCallError) -> ResolutionOutcome? {
        try job.wait(timeout: timeout)
    }

    static func getaddrinfo(name: String, family: AddressFamily?) -> ResolutionOutcome {
        var hints = addrinfo()
        hints.ai_family = family?.kernelValue ?? AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue) // one entry per address, not one per socket type
        var list: UnsafeMutablePointer<addrinfo>?
        let status = Glibc.getaddrinfo(name, nil, &hints, &list)
        guard status == 0 else {
            let text = String(cString: gai_strerror(status))
            if status == EAI_SYSTEM { return .failed(SystemCallError("getaddrinfo", .current)) }
            if status == EAI_MEMORY { return .failed(SystemCallError("getaddrinfo", .outOfMemory)) }
            return .notResolved(text)
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let address = Self.address(of: current.pointee), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        return addresses.isEmpty ? .notResolved("no address of the requested family") : .resolved(addresses)
    }

    private static func address(of info: addrinfo) -> IPAddress? {
        guard let raw = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            return raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                withUnsafeBytes(of: sin.pointee.sin_addr) { IPAddress(family: .ipv4, bytes: Array($0)) }
            }
        case AF_INET6:
            return raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                let scope = sin6.pointee.sin6_scope_id
                let zone = scope == 0 ? nil : NetworkInterface.name(index: scope)
                return withUnsafeBytes(of: sin6.pointee.sin6_addr) {
                    IPAddress(family: .ipv6, bytes: Array($0), scopeID: scope, zone: zone)
                }
            }
        default:
            return nil
        }
    }
}

/// What a name lookup came to.
public enum ResolutionOutcome: Sendable, Equatable {
    case resolved([IPAddress])
    /// Not found, or the resolver failed to answer: a verdict, with the resolver's words.
    case notResolved(String)
    /// The lookup itself could not run (out of memory, a system error).
    case failed(SystemCallError)
}
