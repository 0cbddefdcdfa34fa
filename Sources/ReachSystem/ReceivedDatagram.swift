/// A datagram the socket delivered, with what the kernel said about it.
public struct ReceivedDatagram: Sendable {
    /// A slice of the socket's receive buffer, not a copy: the buffer is reused for the
    /// next datagram once this one is handled (copy-on-write keeps a kept datagram intact).
    public var bytes: ArraySlice<UInt8>
    public var from: IPAddress
    /// From IP_TTL / IPV6_HOPLIMIT control messages (datagram sockets and raw IPv6).
    public var ttl: Int?
    /// SO_TIMESTAMPNS: the kernel's receive time on CLOCK_REALTIME.
    public var kernelTimestamp: RealtimeInstant?
    /// When user space got it (the fallback clock).
    public var monotonicTime: MonotonicInstant
    /// Whether the bytes start with an IPv4 header (raw IPv4 sockets).
    public var includesIPHeader: Bool
    public init(
        bytes: ArraySlice<UInt8>, from: IPAddress, ttl: Int?, kernelTimestamp: RealtimeInstant?, monotonicTime: MonotonicInstant,
        includesIPHeader: Bool
    ) {
        self.bytes = bytes
        self.from = from
        self.ttl = ttl
        self.kernelTimestamp = kernelTimestamp
        self.monotonicTime = monotonicTime
        self.includesIPHeader = includesIPHeader
    }

    public init(
        bytes: [UInt8], from: IPAddress, ttl: Int?, kernelTimestamp: RealtimeInstant?, monotonicTime: MonotonicInstant,
        includesIPHeader: Bool
    ) {
        self.init(
            bytes: bytes[...], from: from, ttl: ttl, kernelTimestamp: kernelTimestamp, monotonicTime: monotonicTime,
            includesIPHeader: includesIPHeader)
    }
}
