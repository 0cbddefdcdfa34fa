/// An entry from a datagram socket's error queue (IP_RECVERR / IPV6_RECVERR with
/// MSG_ERRQUEUE): `struct sock_extended_err` and the probe it concerns.
public struct QueuedError: Sendable {
    public enum Origin: Sendable, Equatable {
        /// SO_EE_ORIGIN_ICMP / SO_EE_ORIGIN_ICMP6: a router or the host answered with an error.
        case icmp
        /// SO_EE_ORIGIN_LOCAL: the local stack (EMSGSIZE with the MTU, ...).
        case local
    }
    public var origin: Origin
    public var errno: Errno
    public var type: UInt8
    public var code: UInt8
    public var info: UInt32
    /// SO_EE_OFFENDER: who sent the error.
    public var offender: IPAddress?
    /// The echo request the error concerns, as we sent it (the queue returns our payload).
    public var originalPacket: [UInt8]
    /// Where that request was going: recvmsg's address on the error queue, read from the
    /// quoted IP header. The kernel hands a datagram socket every error that quotes its
    /// identifier, whatever the destination; nil when unknown.
    public var destination: IPAddress?
    /// SO_TIMESTAMPNS: when the kernel received the ICMP error, on CLOCK_REALTIME.
    public var kernelTimestamp: RealtimeInstant?
    public init(
        origin: Origin, errno: Errno, type: UInt8, code: UInt8, info: UInt32, offender: IPAddress?, originalPacket: [UInt8],
        destination: IPAddress? = nil, kernelTimestamp: RealtimeInstant? = nil
    ) {
        self.origin = origin
        self.errno = errno
        self.type = type
        self.code = code
        self.info = info
        self.offender = offender
        self.originalPacket = originalPacket
        self.destination = destination
        self.kernelTimestamp = kernelTimestamp
    }
}
