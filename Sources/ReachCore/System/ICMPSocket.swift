#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// Why no ICMP socket could be opened, with what decides it on Linux (ping_init_sock in net/ipv4/ping.c):
/// the process's groups against net.ipv4.ping_group_range, and CAP_NET_RAW.
public struct ICMPPermissionDenied: Error, Equatable, CustomStringConvertible {
    public var family: AddressFamily
    public var groups: [UInt32]
    /// The sysctl's text ("1 0" closes it to everyone), nil when unreadable.
    public var pingGroupRange: String?
    public var netRawPermitted: Bool
    /// What socket() said for the datagram socket, and for the raw one when tried.
    public var datagramError: Errno
    public var rawError: Errno?

    public var description: String {
        let group = groups.first.map { "gid \($0)" } ?? "the process's groups"
        let others = groups.count > 1 ? " (nor groups \(groups.dropFirst().map(String.init).joined(separator: ",")))" : ""
        let range = pingGroupRange.map { "net.ipv4.ping_group_range \"\($0)\"" } ?? "net.ipv4.ping_group_range (unreadable)"
        let capability =
            netRawPermitted
            ? "CAP_NET_RAW is permitted but the raw socket was refused (\(rawError.map { "\($0)" } ?? "?"))"
            : "CAP_NET_RAW is not permitted"
        return "cannot open an \(family.label) ICMP socket (\(datagramError)): \(group)\(others) is outside "
            + "\(range) and \(capability); fix: sysctl -w net.ipv4.ping_group_range=\"0 2147483647\", "
            + "or setcap cap_net_raw+p on the reach binary"
    }
}

/// Options that shape the socket (iputils -I and -t).
public struct ICMPSocketOptions: Sendable, Equatable {
    /// -I: an interface name (SO_BINDTODEVICE) or a source address (bind).
    public var interface: String?
    public var sourceAddress: IPAddress?
    /// -t: IP_TTL / IPV6_UNICAST_HOPS.
    public var ttl: Int?
    public init(interface: String? = nil, sourceAddress: IPAddress? = nil, ttl: Int? = nil) {
        self.interface = interface
        self.sourceAddress = sourceAddress
        self.ttl = ttl
    }
}

/// An ICMP echo socket: SOCK_DGRAM first, SOCK_RAW when that is refused and CAP_NET_RAW
/// is permitted (iputils' order). The only place ping makes syscalls.
public final class ICMPSocket: PingTransport {
    public let fileDescriptor: Int32
    public let kind: ICMPSocketKind
    public let family: AddressFamily
    public let identifier: UInt16
    private let interruption: (read: Int32, write: Int32)
    @exclusivity(unchecked) private var buffer = [UInt8](repeating: 0, count: 65_536 + 512)
    @exclusivity(unchecked) private var control = [UInt8](repeating: 0, count: 512)
    /// The sender of the last datagram, and its sockaddr as recvmsg gave it (zeroed, no
    /// family, before the first). A flood's replies all come from one address: it is reused
    /// rather than built again (an array allocated) per datagram, and recognised by comparing
    /// plain sockaddrs (passing an IPAddress around copies it through value witnesses).
    @exclusivity(unchecked) private var lastSender: IPAddress
    @exclusivity(unchecked) private var lastSenderName = sockaddr_storage()
    /// Where recvmsg writes the sender of each datagram (kept here, not copied per datagram).
    @exclusivity(unchecked) private var receivedName = sockaddr_storage()
    /// Raw IPv4: each datagram carries its sender in its own IP header; the last one seen.
    private var sourceInHeader: Bool { kind == .raw && family == .ipv4 }
    @exclusivity(unchecked) private var lastHeaderSource: UInt32?
    @exclusivity(unchecked) private var waits = 0
    @exclusivity(unchecked) private var optimistic = true
    @exclusivity(unchecked) private var streak = 0

    /// Opens and configures the socket. CAP_NET_RAW is raised only around socket() and
    /// the options that need it, then lowered; the caller drops capabilities after.
    public init(family: AddressFamily, options: ICMPSocketOptions = ICMPSocketOptions()) throws {
        self.family = family
        lastSender = IPAddress(family: family, bytes: [UInt8](repeating: 0, count: family.addressLength))!
        let proto = family == .ipv4 ? Int32(IPPROTO_ICMP) : Int32(IPPROTO_ICMPV6)
        var opened: (Int32, ICMPSocketKind)
        do {
            opened = (try System.socket(family.kernelValue, Int32(SOCK_DGRAM.rawValue), proto), .datagram)
        } catch let error as SystemCallError {
            var refusals: [Errno] = [.permissionDenied, .protocolNotSupported]
            if family == .ipv4 { refusals.append(.addressFamilyNotSupported) }
            guard refusals.contains(error.errno) else { throw error }
            // Said only when both sockets fail (reading the sysctl and groups costs start-up time).
            func denial(permitted: Bool, rawError: Errno?) -> ICMPPermissionDenied {
                ICMPPermissionDenied(
                    family: family, groups: Capabilities.groups, pingGroupRange: Self.pingGroupRange,
                    netRawPermitted: permitted, datagramError: error.errno, rawError: rawError)
            }
            guard Capabilities.netRawPermitted else { throw denial(permitted: false, rawError: nil) }
            do {
                opened = (try Capabilities.withNetRaw { try System.socket(family.kernelValue, Int32(SOCK_RAW.rawValue), proto) }, .raw)
            } catch let rawError as SystemCallError where [.permissionDenied, .notPermitted].contains(rawError.errno) {
                throw denial(permitted: true, rawError: rawError.errno)
            }
        }
        fileDescriptor = opened.0
        kind = opened.1
        do {
            interruption = try System.pipe()
            identifier = try Capabilities.withNetRaw { try Self.configure(opened.0, kind: opened.1, family: family, options: options) }
        } catch {
            System.close(opened.0)
            throw error
        }
    }

    deinit {
        System.close(fileDescriptor)
        System.close(interruption.read)
        System.close(interruption.write)
    }

    static var pingGroupRange: String? {
        System.readSmallFile("/proc/sys/net/ipv4/ping_group_range").map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).joined(separator: " ")
        }
    }

    private static func configure(_ fd: Int32, kind: ICMPSocketKind, family: AddressFamily, options: ICMPSocketOptions) throws -> UInt16 {
        let on: Int32 = 1
        try System.setOption(fd, SOL_SOCKET, Int32(creach_so_timestampns), on)
        switch family {
        case .ipv4:
            if kind == .datagram {
                // Datagram replies come without the IP header: the TTL comes by cmsg. A raw
                // socket reads it from the header, and skips a cmsg per packet.
                try System.setOption(fd, Int32(IPPROTO_IP), Int32(creach_ip_recvttl), on)
                try System.setOption(fd, Int32(IPPROTO_IP), Int32(creach_ip_recverr), on)
            } else {
                // Bits set are blocked: pass echo replies and the errors that quote a probe.
                let passed: [UInt32] = [0, 3, 4, 5, 11, 12]
                let mask = ~passed.reduce(UInt32(0)) { $0 | (1 << $1) }
                try System.setOption(fd, Int32(creach_sol_raw), Int32(creach_icmp_filter), mask)
            }
            if let ttl = options.ttl { try System.setOption(fd, Int32(IPPROTO_IP), Int32(creach_ip_ttl), Int32(ttl)) }
        case .ipv6:
            try System.setOption(fd, Int32(IPPROTO_IPV6), Int32(creach_ipv6_recvhoplimit), on)
            if kind == .datagram {
                try System.setOption(fd, Int32(IPPROTO_IPV6), Int32(creach_ipv6_recverr), on)
            } else {
                var filter = icmp6_filter()
                withUnsafeMutableBytes(of: &filter) { raw in
                    for index in 0..<raw.count { raw[index] = 0xff }
                    for type in [129, 1, 2, 3, 4] { raw[type >> 3] &= ~UInt8(1 << (type & 7)) }
                }
                try System.setOption(fd, Int32(IPPROTO_ICMPV6), Int32(creach_icmp6_filter), filter)
            }
            if let ttl = options.ttl {
                try System.setOption(fd, Int32(IPPROTO_IPV6), Int32(creach_ipv6_unicast_hops), Int32(ttl))
            }
        }
        if let name = options.interface {
            var bytes = Array(name.utf8CString)
            _ = try syscall("setsockopt(SO_BINDTODEVICE)") {
                setsockopt(fd, SOL_SOCKET, Int32(creach_so_bindtodevice), &bytes, socklen_t(bytes.count))
            }
        }
        if kind == .raw {
            if let source = options.sourceAddress { try bind(fd, to: source) }
            // Raw sockets see every ICMP packet on the host: a random identifier, matched on receipt.
            return UInt16.random(in: 1...UInt16.max)
        }
        // A datagram socket's identifier is its port: bind to get one, then read it back.
        let local = options.sourceAddress ?? IPAddress(family: family, bytes: [UInt8](repeating: 0, count: family.addressLength))!
        try bind(fd, to: local)
        return try boundPort(fd)
    }

    private static func bind(_ fd: Int32, to address: IPAddress) throws {
        _ = try SocketAddress.with(address) { pointer, length in
            try syscall("bind") { Glibc.bind(fd, pointer, length) }
        }
    }

    private static func boundPort(_ fd: Int32) throws -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try syscall("getsockname") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        return SocketAddress.port(of: storage)
    }

    // MARK: - PingTransport

    public func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws -> Errno? {
        // `beforeSend` runs outside the buffer accesses: an opaque call inside them made the
        // packet and the socket be retained and released around it, per probe.
        let descriptor = fileDescriptor
        var failure: Errno?
        repeat {
            beforeSend()
            let sent = SocketAddress.with(target) { pointer, length in
                packet.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), pointer, length) }
            }
            failure = sent >= 0 ? nil : Errno.current
        } while failure == .interrupted
        guard let failure else { return nil }
        if Self.sendVerdicts.contains(failure.rawValue) { return failure }
        throw SystemCallError("sendto", failure)
    }

    /// What sendto can say about the path rather than about this program: no route, a
    /// reject route or a firewall (EPERM/EACCES from netfilter), a link down, a datagram
    /// above the MTU, full queues. iputils counts these as errors and goes on.
    static let sendVerdicts: Set<Int32> = [
        ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN, EPERM, EACCES, EMSGSIZE,
        ENOBUFS, EAGAIN, ENOMEM, EADDRNOTAVAIL, ECONNREFUSED, ENXIO,
    ]

    /// Makes a `wait` in progress (or the next one) return `.interrupted`. Safe from any
    /// thread and from a signal handler's pipe.
    public func interrupt() {
        var byte = InterruptSignal.Byte.stop.rawValue
        _ = write(interruption.write, &byte, 1)
    }

    /// Hits in a row before one ppoll that looks at the interruption pipe: 1,024 echoes of a
    /// loopback flood take under 10 ms, so Ctrl-C is seen that late at most, and a flood of
    /// 10,000 makes 10 ppoll calls instead of 300 (iputils makes none).
    static let hitsBeforePoll = 1024

    /// The descriptor a SIGINT handler writes to, to interrupt the wait.
    public var interruptionDescriptor: Int32 { interruption.write }

    public func wait(until deadline: Int64?, _ deliver: (TransportInput) -> Void) throws {
        // On loopback (and in a flood) the reply is often queued by the time sendto returns:
        // try recvmsg first and skip ppoll, as iputils gets by with sendto + recvmsg per echo.
        // After a miss, try again only every 16th wait; after `hitsBeforePoll` hits in a row,
        // poll once so an interruption (Ctrl-C, stop) is seen.
        waits &+= 1
        if optimistic || waits % 16 == 0 {
            if streak < Self.hitsBeforePoll, try receiveDatagram(deliver) {
                streak += 1
                optimistic = true
                return
            }
            if streak < Self.hitsBeforePoll { optimistic = false }
            streak = 0
        }
        let ready = try System.poll(
            [(fileDescriptor, Int16(POLLIN)), (interruption.read, Int16(POLLIN))],
            until: deadline)
        if ready[0] & Int16(POLLERR) != 0 { drainErrorQueue(deliver) }
        // One datagram per wait: a second recvmsg would mostly answer EAGAIN, a wasted
        // syscall per echo in a flood; if more are queued the next poll returns at once.
        if ready[0] & Int16(POLLIN) != 0 { _ = try receiveDatagram(deliver) }
        if ready[1] & Int16(POLLIN) != 0 {
            // Status requests (SIGQUIT) first, then a stop (SIGINT, interrupt()) if one came.
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = bytes.withUnsafeMutableBytes { read(interruption.read, $0.baseAddress, $0.count) }
            let received = bytes.prefix(max(count, 0))
            let status = InterruptSignal.Byte.status.rawValue
            if received.contains(status) { deliver(.statusRequested) }
            if received.contains(where: { $0 != status }) { deliver(.interrupted) }
        }
    }

    /// What recvmsg gave, as plain values; `length` < 0 when nothing was queued. Nothing
    /// in it holds a reference: an IPAddress? or QueuedError? field here made each copy and
    /// destruction, per echo, a call through generic value witnesses. (Not an Optional
    /// itself for the same reason.)
    private struct Received {
        var length = -1
        var ttl: Int? = nil
        var timestamp: Int64? = nil
        /// IP_RECVERR / IPV6_RECVERR, and where in `control` the offender's address that
        /// follows it lies (SO_EE_OFFENDER).
        var extendedError: sock_extended_err? = nil
        var offender: Range<Int>? = nil
        /// How many bytes of `receivedName` recvmsg wrote (0: no address).
        var nameLength = 0
    }

    /// Receives one datagram and hands it to `deliver`; false when none was queued.
    private func receiveDatagram(_ deliver: (TransportInput) -> Void) throws -> Bool {
        let received = try receive(flags: Int32(creach_msg_dontwait))
        guard received.length >= 0 else { return false }
        let now = System.monotonicNanoseconds
        guard takeSender(datagramLength: received.length) else { return true }
        // The datagram borrows the buffer (no copy per echo); it is done with before the next
        // recvmsg writes there, or copy-on-write gives it its own bytes.
        deliver(
            .datagram(
                ReceivedDatagram(
                    bytes: buffer[0..<received.length], from: lastSender, ttl: received.ttl,
                    kernelTimestamp: received.timestamp, monotonicTime: now,
                    includesIPHeader: kind == .raw && family == .ipv4)))
        return true
    }

    private func drainErrorQueue(_ deliver: (TransportInput) -> Void) {
        for _ in 0..<64 {
            guard let received = try? receive(flags: Int32(creach_msg_errqueue | creach_msg_dontwait)),
                received.length >= 0, let error = received.extendedError
            else { break }
            let origin = Int32(error.ee_origin)
            let isICMP = origin == Int32(creach_so_ee_origin_icmp) || origin == Int32(creach_so_ee_origin_icmp6)
            deliver(
                .queuedError(
                    QueuedError(
                        origin: isICMP ? .icmp : .local, errno: Errno(rawValue: Int32(error.ee_errno)),
                        type: error.ee_type, code: error.ee_code, info: error.ee_info,
                        offender: received.offender.flatMap { range in
                            control.withUnsafeBytes { SocketAddress.address(at: $0.baseAddress! + range.lowerBound, length: range.count) }
                        },
                        originalPacket: Array(buffer[0..<received.length]),
                        // On the error queue, recvmsg's address is the errored packet's destination.
                        destination: received.nameLength > 0 ? SocketAddress.address(of: receivedName) : nil)))
        }
    }

    /// recvmsg with the control messages ping uses; a negative length when nothing is queued.
    private func receive(flags: Int32) throws -> Received {
        var result = Received()
        let capacity = buffer.count
        try buffer.withUnsafeMutableBytes { data in
            try control.withUnsafeMutableBytes { controlBytes in
                try withUnsafeMutablePointer(to: &receivedName) { namePointer in
                    var vector = iovec(iov_base: data.baseAddress, iov_len: capacity)
                    try withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var message = msghdr()
                        // A raw IPv4 datagram starts with its IP header, whose source is what the
                        // kernel would copy out as the name (raw_recvmsg): read it there instead
                        // (takeSender), one copy to user space fewer per echo. The error queue
                        // names the errored packet's destination: asked for there.
                        if !sourceInHeader || flags & Int32(creach_msg_errqueue) != 0 {
                            message.msg_name = UnsafeMutableRawPointer(namePointer)
                            message.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                        }
                        message.msg_iov = vectorPointer
                        message.msg_iovlen = 1
                        message.msg_control = controlBytes.baseAddress
                        message.msg_controllen = controlBytes.count
                        var length = 0
                        while true {
                            length = recvmsg(fileDescriptor, &message, flags)
                            if length >= 0 { break }
                            let failure = Errno.current
                            if failure == .interrupted { continue }
                            if failure == .wouldBlock { return }
                            // A pending socket error (ICMP errors on a datagram socket without
                            // MSG_ERRQUEUE) is read from the queue; nothing more is queued here.
                            if flags & Int32(creach_msg_errqueue) == 0 { return }
                            throw SystemCallError("recvmsg", failure)
                        }
                        result.length = min(length, capacity)
                        result.nameLength = Int(message.msg_namelen)
                        Self.readControl(&message, control: controlBytes, into: &result)
                    }
                }
            }
        }
        return result
    }

    /// Makes `lastSender` the address in `receivedName`; false when it holds no IP address.
    private func takeSender(datagramLength: Int) -> Bool {
        if sourceInHeader {
            // The IPv4 header's source address, bytes 12-15 (raw sockets deliver the header whole).
            guard datagramLength >= 20 else { return false }
            let source = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) }
            if source == lastHeaderSource { return true }
            receivedName = SocketAddress.storage(ipv4: source)
            lastHeaderSource = source
        }
        if SocketAddress.sameAddress(receivedName, lastSenderName) { return true }
        guard let sender = SocketAddress.address(of: receivedName) else { return false }
        lastSender = sender
        lastSenderName = receivedName
        return true
    }

    private static func readControl(_ message: inout msghdr, control: UnsafeMutableRawBufferPointer, into received: inout Received) {
        var header = creach_cmsg_firsthdr(&message)
        while let current = header {
            let level = current.pointee.cmsg_level
            let type = current.pointee.cmsg_type
            let data = UnsafeRawPointer(creach_cmsg_data(current))
            let dataLength = Int(current.pointee.cmsg_len) - Int(creach_cmsg_len(0))
            if level == SOL_SOCKET && type == Int32(creach_scm_timestampns), dataLength >= MemoryLayout<timespec>.size {
                let stamp = data.loadUnaligned(as: timespec.self)
                received.timestamp = Int64(stamp.tv_sec) * 1_000_000_000 + Int64(stamp.tv_nsec)
            } else if (level == Int32(IPPROTO_IP) && type == Int32(creach_ip_ttl))
                || (level == Int32(IPPROTO_IPV6) && type == Int32(creach_ipv6_hoplimit)),
                dataLength >= 4
            {
                received.ttl = Int(data.loadUnaligned(as: Int32.self))
            } else if (level == Int32(IPPROTO_IP) && type == Int32(creach_ip_recverr))
                || (level == Int32(IPPROTO_IPV6) && type == Int32(creach_ipv6_recverr)),
                dataLength >= MemoryLayout<sock_extended_err>.size
            {
                received.extendedError = data.loadUnaligned(as: sock_extended_err.self)
                let offenderLength = dataLength - MemoryLayout<sock_extended_err>.size
                if offenderLength >= MemoryLayout<sockaddr_in>.size {
                    let start = data + MemoryLayout<sock_extended_err>.size - UnsafeRawPointer(control.baseAddress!)
                    received.offender = start..<start + offenderLength
                }
            }
            header = creach_cmsg_nxthdr(&message, current)
        }
    }
}

/// The system clocks (CLOCK_MONOTONIC for scheduling, CLOCK_REALTIME to match SO_TIMESTAMPNS).
public final class SystemClock: PingClock {
    public init() {}
    public var monotonicNanoseconds: Int64 { System.monotonicNanoseconds }
    public var realtimeNanoseconds: Int64 { System.clockNanoseconds(CLOCK_REALTIME) }
}

extension ICMPSocketOptions {
    /// The index of a network interface, nil when there is none by that name.
    public static func interfaceIndex(named name: String) -> UInt32? {
        let index = System.interfaceIndex(named: name)
        return index == 0 ? nil : index
    }

    /// The source address the kernel would use toward `target` (through `interface`),
    /// learned as iputils does: connect a UDP socket (no packet is sent) and read it back.
    public static func sourceAddress(toward target: IPAddress, interface: String?) -> IPAddress? {
        guard let fd = try? System.socket(target.family.kernelValue, Int32(SOCK_DGRAM.rawValue), 0) else { return nil }
        defer { System.close(fd) }
        if let interface {
            var bytes = Array(interface.utf8CString)
            _ = setsockopt(fd, SOL_SOCKET, Int32(creach_so_bindtodevice), &bytes, socklen_t(bytes.count))
        }
        let connected = SocketAddress.with(target) { pointer, length -> Bool in
            var withPort = [UInt8](UnsafeRawBufferPointer(start: pointer, count: Int(length)))
            withPort[2] = 0x04 // port 1025, as iputils uses
            withPort[3] = 0x01
            return withPort.withUnsafeBytes {
                connect(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) == 0
            }
        }
        guard connected else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return named == 0 ? SocketAddress.address(of: storage) : nil
    }
}
