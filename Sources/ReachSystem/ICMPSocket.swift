#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// Why no ICMP socket could be opened, with what decides it on Linux: the process's groups
/// against net.ipv4.ping_group_range (net/ipv4/ping.c, ping_init_sock), and CAP_NET_RAW for
/// a raw socket. The facts only; the command line says what to do about them.
public struct ICMPPermissionDenied: Error, Equatable, Sendable, CustomStringConvertible {
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
            + "\(range) and \(capability)"
    }
}

/// Options that shape the socket (iputils -I and -t).
public struct ICMPSocketOptions: Sendable, Equatable {
    /// -I: an interface name (SO_BINDTODEVICE) or a source address (bind).
    public var interface: String?
    public var sourceAddress: IPAddress?
    /// The call a refused `interface` names in the error the socket's opening throws.
    public static let bindToDeviceCall = "setsockopt(SO_BINDTODEVICE)"
    /// -t: IP_TTL / IPV6_UNICAST_HOPS.
    public var ttl: Int?
    /// -M: IP_MTU_DISCOVER / IPV6_MTU_DISCOVER; nil leaves the kernel's default.
    public var pathMTUDiscovery: PathMTUDiscovery?
    /// -b: SO_BROADCAST, without which the kernel refuses a send to a broadcast address
    /// (EACCES: raw_sendmsg in net/ipv4/raw.c, ping_v4_sendmsg in net/ipv4/ping.c).
    public var broadcast = false
    /// traceroute -t: IP_TOS / IPV6_TCLASS.
    public var trafficClass: UInt8?
    public init(interface: String? = nil, sourceAddress: IPAddress? = nil, ttl: Int? = nil) {
        self.interface = interface
        self.sourceAddress = sourceAddress
        self.ttl = ttl
    }
}

/// Path MTU discovery for the probes (ip(7) IP_MTU_DISCOVER, ipv6(7) IPV6_MTU_DISCOVER; the
/// IPv6 values are the same numbers): `do` sets DF and never fragments, so a probe above
/// the path MTU fails with EMSGSIZE; `want` fragments once the path MTU is known; `dont`
/// never sets DF.
public enum PathMTUDiscovery: Int32, Sendable, Equatable {
    case dont = 0
    case want = 1
    case `do` = 2
}

/// SOCK_DGRAM (unprivileged, ping_group_range) or SOCK_RAW (CAP_NET_RAW); or a UDP
/// socket whose ICMP errors come on its error queue (traceroute's default probes).
public enum ICMPSocketKind: String, Equatable, Sendable {
    case datagram
    case raw
    case udp
    /// A raw TCP socket (traceroute -T, CAP_NET_RAW): SYN probes out, the destination's
    /// SYN-ACK or RST in, ICMP errors on its error queue.
    case tcp
}

/// What an ICMP socket hands back while waiting.
public enum TransportInput: Sendable {
    case datagram(ReceivedDatagram)
    case queuedError(QueuedError)
    /// `interrupt()` was called (Ctrl-C, stop).
    case interrupted
    /// The statistics so far were asked for (SIGQUIT); the run goes on.
    case statusRequested
}

/// An ICMP echo socket: SOCK_DGRAM first, SOCK_RAW when that is refused and CAP_NET_RAW
/// is permitted (iputils' order, ping/ping.c main). `reach ping`'s system calls are made
/// here; the engine that decides what to send and what a reply means is ReachCore's.
public final class ICMPSocket {
    private let socket: FileDescriptor
    public let kind: ICMPSocketKind
    public let family: AddressFamily
    public let identifier: UInt16
    private let interruption: Pipe
    @exclusivity(unchecked) private var buffer = [UInt8](receiveRoom: 65_536 + 512)
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
    private var sourceInHeader: Bool { kind != .datagram && kind != .udp && family == .ipv4 }
    /// TCP: the socket that holds the probes' source port (bound, never connected: the
    /// kernel answers a SYN-ACK to that port with a reset, traceroute's half-open technique,
    /// traceroute/mod-tcp.c), and the source address a probe's checksum covers.
    private let portHolder: FileDescriptor?
    public private(set) var localAddress: IPAddress?
    @exclusivity(unchecked) private var lastHeaderSource: UInt32?
    @exclusivity(unchecked) private var waits = 0
    @exclusivity(unchecked) private var optimistic = true
    @exclusivity(unchecked) private var streak = 0

    /// Opens and configures the socket. CAP_NET_RAW is raised only around socket() and
    /// the options that need it, then lowered; the caller drops capabilities after.
    public init(family: AddressFamily, options: ICMPSocketOptions = ICMPSocketOptions()) throws {
        self.family = family
        lastSender = IPAddress(family: family, bytes: [UInt8](repeating: 0, count: family.addressLength))!
        let opened = try Self.openSocket(family: family)
        // Owned at once: a failure below closes it with the half-made object.
        socket = FileDescriptor(owning: opened.0)
        kind = opened.1
        portHolder = nil
        interruption = try Pipe()
        identifier = try Capabilities.withNetRaw { () throws(SystemCallError) in
            try Self.configure(opened.0, kind: opened.1, family: family, options: options)
        }
    }

    /// A UDP socket that reads the ICMP errors its datagrams cause from its error queue
    /// (IP_RECVERR / IPV6_RECVERR), without privilege: traceroute's default method
    /// (traceroute/mod-udp.c). Its identifier is its local port, fixed for its life.
    public init(udpFamily family: AddressFamily, options: ICMPSocketOptions = ICMPSocketOptions()) throws {
        self.family = family
        lastSender = IPAddress(family: family, bytes: [UInt8](repeating: 0, count: family.addressLength))!
        let fd = try System.socket(family.kernelValue, Int32(SOCK_DGRAM.rawValue), Int32(IPPROTO_UDP))
        socket = FileDescriptor(owning: fd)
        kind = .udp
        portHolder = nil
        interruption = try Pipe()
        identifier = try Self.configure(fd, kind: .udp, family: family, options: options)
    }

    /// A raw TCP socket connected to `target` (it then sees only that host's segments and
    /// the errors about them), and a TCP socket holding the source port: the identifier.
    /// CAP_NET_RAW is raised around socket() alone.
    public init(tcpToward target: IPAddress, options: ICMPSocketOptions = ICMPSocketOptions()) throws {
        family = target.family
        lastSender = IPAddress(family: family, bytes: [UInt8](repeating: 0, count: family.addressLength))!
        let domain = family.kernelValue
        let fd = try Capabilities.withNetRaw { () throws(SystemCallError) in
            try System.socket(domain, Int32(SOCK_RAW.rawValue), Int32(IPPROTO_TCP))
        }
        socket = FileDescriptor(owning: fd)
        kind = .tcp
        interruption = try Pipe()
        let holder = try System.socket(domain, Int32(SOCK_STREAM.rawValue), 0)
        portHolder = FileDescriptor(owning: holder)
        _ = try Self.configure(fd, kind: .tcp, family: family, options: options)
        if let failure = SocketAddress.with(target, { System.connect(fd, $0, $1) }) { throw SystemCallError("connect", failure) }
        let local = SocketAddress.address(of: try System.localName(fd))
        localAddress = local
        if let local { try Self.bind(holder, to: local) }
        identifier = try Self.boundPort(holder)
    }

    /// The hop limit of the datagrams sent from now on (IP_TTL / IPV6_UNICAST_HOPS), set
    /// per probe by a trace.
    public func setHopLimit(_ hops: Int) throws(SystemCallError) {
        switch family {
        case .ipv4: try System.setOption(socket.rawValue, Int32(IPPROTO_IP), Int32(creach_ip_ttl), Int32(hops))
        case .ipv6: try System.setOption(socket.rawValue, Int32(IPPROTO_IPV6), Int32(creach_ipv6_unicast_hops), Int32(hops))
        }
    }

    /// A datagram socket, else a raw one when the datagram socket is refused and CAP_NET_RAW
    /// is permitted (raised only around socket()).
    private static func openSocket(family: AddressFamily) throws -> (Int32, ICMPSocketKind) {
        let proto = family == .ipv4 ? Int32(IPPROTO_ICMP) : Int32(IPPROTO_ICMPV6)
        let datagramError: Errno
        switch System.openSocket(family.kernelValue, Int32(SOCK_DGRAM.rawValue), proto) {
        case .success(let fd): return (fd, .datagram)
        case .failure(let errno): datagramError = errno
        }
        var refusals: [Errno] = [.permissionDenied, .protocolNotSupported]
        if family == .ipv4 { refusals.append(.addressFamilyNotSupported) }
        guard refusals.contains(datagramError) else { throw SystemCallError("socket", datagramError) }
        let permitted = Capabilities.netRawPermitted
        var rawError: Errno?
        if permitted {
            switch Capabilities.withNetRaw({ System.openSocket(family.kernelValue, Int32(SOCK_RAW.rawValue), proto) }) {
            case .success(let fd): return (fd, .raw)
            case .failure(let errno):
                guard [.permissionDenied, .notPermitted].contains(errno) else { throw SystemCallError("socket", errno) }
                rawError = errno
            }
        }
        // Said only when both sockets fail (reading the sysctl and groups costs start-up time).
        throw ICMPPermissionDenied(
            family: family, groups: System.groups(), pingGroupRange: pingGroupRange,
            netRawPermitted: permitted, datagramError: datagramError, rawError: rawError)
    }

    static var pingGroupRange: String? {
        System.readSmallFile("/proc/sys/net/ipv4/ping_group_range").map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).joined(separator: " ")
        }
    }

    private static func configure(
        _ fd: Int32, kind: ICMPSocketKind, family: AddressFamily, options: ICMPSocketOptions
    ) throws(SystemCallError) -> UInt16 {
        let on: Int32 = 1
        try System.setOption(fd, SOL_SOCKET, Int32(creach_so_timestampns), on)
        switch family {
        case .ipv4:
            if kind != .raw {
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
            if options.broadcast { try System.setOption(fd, SOL_SOCKET, SO_BROADCAST, on) }
            if let discovery = options.pathMTUDiscovery {
                try System.setOption(fd, Int32(IPPROTO_IP), Int32(IP_MTU_DISCOVER), discovery.rawValue)
            }
        case .ipv6:
            try System.setOption(fd, Int32(IPPROTO_IPV6), Int32(creach_ipv6_recvhoplimit), on)
            if kind != .raw {
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
            if let discovery = options.pathMTUDiscovery {
                try System.setOption(fd, Int32(IPPROTO_IPV6), Int32(IPV6_MTU_DISCOVER), discovery.rawValue)
            }
        }
        if let tos = options.trafficClass {
            let (level, name) = family == .ipv4 ? (Int32(IPPROTO_IP), Int32(IP_TOS)) : (Int32(IPPROTO_IPV6), Int32(IPV6_TCLASS))
            try System.setOption(fd, level, name, Int32(tos))
        }
        if let name = options.interface, case .failure(let errno) = System.bindToDevice(fd, name) {
            throw SystemCallError(ICMPSocketOptions.bindToDeviceCall, errno)
        }
        if kind == .raw || kind == .tcp {
            if let source = options.sourceAddress { try bind(fd, to: source) }
            // Raw sockets see every ICMP packet on the host: a random identifier, matched on receipt.
            return UInt16.random(in: 1...UInt16.max)
        }
        // A datagram socket's identifier is its port: bind to get one, then read it back.
        let local = options.sourceAddress ?? IPAddress(family: family, bytes: [UInt8](repeating: 0, count: family.addressLength))!
        try bind(fd, to: local)
        return try boundPort(fd)
    }

    private static func bind(_ fd: Int32, to address: IPAddress) throws(SystemCallError) {
        if case .failure(let errno) = SocketAddress.with(address, { System.bind(fd, $0, $1) }) {
            throw SystemCallError("bind", errno)
        }
    }

    private static func boundPort(_ fd: Int32) throws(SystemCallError) -> UInt16 {
        SocketAddress.port(of: try System.localName(fd))
    }

    // MARK: - The transport the ping loop drives

    /// Sends one probe; `beforeSend` runs right before sendto (it reads the send time).
    /// A refusal that is a verdict about the path is returned; any other failure is thrown.
    public func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws(SystemCallError) -> Errno? {
        try send(packet, to: target, port: 0, beforeSend: beforeSend)
    }

    /// The same to a port: a UDP socket's datagram.
    public func send(
        _ packet: [UInt8], to target: IPAddress, port: UInt16, beforeSend: () -> Void
    ) throws(SystemCallError) -> Errno? {
        // `beforeSend` runs outside the buffer accesses: an opaque call inside them made the
        // packet and the socket be retained and released around it, per probe.
        let descriptor = socket.rawValue
        beforeSend()
        let sent = SocketAddress.with(target, port: port) { pointer, length in
            packet.withUnsafeBytes { System.sendTo(descriptor, $0, pointer, length) }
        }
        guard case .failure(let failure) = sent else { return nil }
        if Self.sendVerdicts.contains(failure.rawValue) { return failure }
        throw SystemCallError("sendto", failure)
    }

    /// What sendto can say about the path rather than about this program: no route, a
    /// reject route (EINVAL for `blackhole`, EHOSTUNREACH for `unreachable`, EACCES for
    /// `prohibit`: fib_props in net/ipv4/fib_semantics.c, ip6_rt_type_to_error in
    /// net/ipv6/route.c) or a firewall (EPERM from netfilter), a link down, a datagram above
    /// the MTU, full queues. iputils counts these as errors and goes on.
    static let sendVerdicts: Set<Int32> = [
        ENETUNREACH, EHOSTUNREACH, EINVAL, ENETDOWN, EHOSTDOWN, EPERM, EACCES, EMSGSIZE,
        ENOBUFS, EAGAIN, ENOMEM, EADDRNOTAVAIL, ECONNREFUSED, ENXIO,
    ]

    /// Makes a `wait` in progress (or the next one) return `.interrupted`. Safe from any
    /// thread and from a signal handler's pipe.
    public func interrupt() {
        System.writeByte(interruption.write.rawValue, InterruptSignal.Byte.stop.rawValue)
    }

    /// Hits in a row before one ppoll that looks at the interruption pipe: a flood on loopback
    /// still sees Ctrl-C promptly, with a ppoll per 1,024 echoes rather than one per few
    /// (iputils makes none).
    static let hitsBeforePoll = 1024

    /// The descriptor a SIGINT handler writes to, to interrupt the wait.
    public var interruptionDescriptor: FileDescriptor.Number { interruption.write.number }

    /// Waits until input arrives or `deadline` passes (nil waits for input), and hands each
    /// input that arrived to `deliver`, in order.
    public func wait(until deadline: MonotonicInstant?, _ deliver: (TransportInput) -> Void) throws(SystemCallError) {
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
        // A tuple on the stack, not an array: a flood waits once per 16 echoes at least.
        var entries = (
            pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0),
            pollfd(fd: interruption.read.rawValue, events: Int16(POLLIN), revents: 0)
        )
        _ = try withUnsafeMutableBytes(of: &entries) { (raw) throws(SystemCallError) in
            let set = UnsafeMutableBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: pollfd.self), count: 2)
            return try System.poll(set, until: deadline)
        }
        if entries.0.revents & Int16(POLLERR) != 0 { drainErrorQueue(deliver) }
        // One datagram per wait: a second recvmsg would mostly answer EAGAIN, a wasted
        // syscall per echo in a flood; if more are queued the next poll returns at once.
        if entries.0.revents & Int16(POLLIN) != 0 { _ = try receiveDatagram(deliver) }
        if entries.1.revents & Int16(POLLIN) != 0 { try readInterruptions(deliver) }
    }

    /// Status requests (SIGQUIT) first, then a stop (SIGINT, interrupt()) if one came.
    /// EAGAIN is nothing to read (another wait took the bytes first); any other error would
    /// leave Ctrl-C unseen, so it ends the run.
    func readInterruptions(_ deliver: (TransportInput) -> Void) throws(SystemCallError) {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count: Int
        switch bytes.withUnsafeMutableBytes({ System.read(interruption.read.rawValue, into: $0) }) {
        case .success(let read): count = read
        case .failure(let errno) where errno == .wouldBlock: count = 0
        case .failure(let errno): throw SystemCallError("read", errno)
        }
        let received = bytes.prefix(count)
        let status = InterruptSignal.Byte.status.rawValue
        if received.contains(status) { deliver(.statusRequested) }
        if received.contains(where: { $0 != status }) { deliver(.interrupted) }
    }

    /// Readable when `interrupt()` (or a signal handler) has written to it.
    var interruptionReadDescriptor: Int32 { interruption.read.rawValue }
    var descriptor: Int32 { socket.rawValue }

    /// What recvmsg gave, as plain values; `length` < 0 when nothing was queued. Nothing
    /// in it holds a reference: an IPAddress? or QueuedError? field here made each copy and
    /// destruction, per echo, a call through generic value witnesses. (Not an Optional
    /// itself for the same reason.)
    private struct Received {
        var length = -1
        var ttl: Int? = nil
        var timestamp: RealtimeInstant? = nil
        /// IP_RECVERR / IPV6_RECVERR, and where in `control` the offender's address that
        /// follows it lies (SO_EE_OFFENDER).
        var extendedError: sock_extended_err? = nil
        var offender: Range<Int>? = nil
        /// How many bytes of `receivedName` recvmsg wrote (0: no address).
        var nameLength = 0
    }

    /// Receives one datagram and hands it to `deliver`; false when none was queued.
    func receiveDatagram(_ deliver: (TransportInput) -> Void) throws(SystemCallError) -> Bool {
        let received = try receive(flags: Int32(creach_msg_dontwait))
        guard received.length >= 0 else { return false }
        let now = MonotonicInstant.now()
        guard takeSender(datagramLength: received.length) else { return true }
        // The datagram borrows the buffer (no copy per echo); it is done with before the next
        // recvmsg writes there, or copy-on-write gives it its own bytes.
        deliver(
            .datagram(
                ReceivedDatagram(
                    bytes: buffer[0..<received.length], from: lastSender, ttl: received.ttl,
                    kernelTimestamp: received.timestamp, monotonicTime: now,
                    includesIPHeader: sourceInHeader)))
        return true
    }

    func drainErrorQueue(_ deliver: (TransportInput) -> Void) {
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
                        destination: received.nameLength > 0 ? SocketAddress.address(of: receivedName) : nil,
                        kernelTimestamp: received.timestamp)))
        }
    }

    /// recvmsg with the control messages ping uses; a negative length when nothing is queued.
    private func receive(flags: Int32) throws(SystemCallError) -> Received {
        var result = Received()
        let capacity = buffer.count
        // Set inside the closures below, which cannot throw a typed error through the
        // buffers' `rethrows`; thrown after them.
        var failure: SystemCallError?
        buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                withUnsafeMutablePointer(to: &receivedName) { namePointer in
                    var vector = iovec(iov_base: data.baseAddress, iov_len: capacity)
                    withUnsafeMutablePointer(to: &vector) { vectorPointer in
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
                        let length: Int
                        switch System.receiveMessage(socket.rawValue, &message, flags: flags) {
                        case .success(let count):
                            length = count
                        case .failure(let errno):
                            if errno == .wouldBlock { return }
                            // A pending socket error (ICMP errors on a datagram socket without
                            // MSG_ERRQUEUE) is read from the queue; nothing more is queued here.
                            if flags & Int32(creach_msg_errqueue) == 0 { return }
                            failure = SystemCallError("recvmsg", errno)
                            return
                        }
                        result.length = min(length, capacity)
                        result.nameLength = Int(message.msg_namelen)
                        Self.readControl(&message, control: controlBytes, into: &result)
                    }
                }
            }
        }
        if let failure { throw failure }
        return result
    }

    /// RFC 791: an IHL of at least 5 words.
    static let minimumIPv4HeaderLength = 20

    /// Makes `lastSender` the address in `receivedName`; false when it holds no IP address.
    private func takeSender(datagramLength: Int) -> Bool {
        if sourceInHeader {
            // The IPv4 header's source address, bytes 12-15 (raw sockets deliver the header whole).
            guard datagramLength >= Self.minimumIPv4HeaderLength else { return false }
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
                received.timestamp = RealtimeInstant(nanoseconds: Int64(stamp.tv_sec) * 1_000_000_000 + Int64(stamp.tv_nsec))
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

extension ICMPSocketOptions {
    /// The source address the kernel would use toward `target` (through `interface`),
    /// learned as iputils does: connect a UDP socket (no packet is sent) and read it back.
    public static func sourceAddress(toward target: IPAddress, interface: String?) -> IPAddress? {
        withConnectedUDPSocket(toward: target, interface: interface, broadcast: false) { connected in
            guard case .success(let fd) = connected, let name = try? System.localName(fd) else { return nil }
            return SocketAddress.address(of: name)
        }
    }

    /// Why connecting a UDP socket toward `target` fails, if it does: the kernel's route
    /// lookup for a send, without sending anything. `broadcast` sets SO_BROADCAST first.
    public static func connectFailure(toward target: IPAddress, interface: String?, broadcast: Bool) -> Errno? {
        withConnectedUDPSocket(toward: target, interface: interface, broadcast: broadcast) { connected in
            guard case .failure(let errno) = connected else { return nil }
            return errno
        }
    }

    /// A UDP socket connected toward `target` as iputils connects its probe socket (port
    /// 1025; connect(2) only asks the route, it sends nothing): `body` is given the socket,
    /// or the errno socket(2) or connect(2) failed with. The socket is closed after.
    private static func withConnectedUDPSocket<Answer>(
        toward target: IPAddress, interface: String?, broadcast: Bool, _ body: (Result<Int32, Errno>) -> Answer
    ) -> Answer {
        let socket: FileDescriptor
        do throws(Errno) {
            socket = try FileDescriptor.openSocket(domain: target.family.kernelValue, .datagram)
        } catch {
            return body(.failure(error))
        }
        let fd = socket.rawValue
        if let interface { _ = System.bindToDevice(fd, interface) }
        if broadcast { _ = try? System.setOption(fd, SOL_SOCKET, SO_BROADCAST, Int32(1)) }
        if let failure = SocketAddress.with(target, port: 1025, { System.connect(fd, $0, $1) }) { return body(.failure(failure)) }
        return body(.success(fd))
    }
}
