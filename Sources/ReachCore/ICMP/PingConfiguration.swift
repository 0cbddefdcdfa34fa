import ReachSystem

/// How a ping run goes.
public struct PingConfiguration: Equatable, Sendable {
    /// Probes to send; nil sends until stopped or the deadline.
    public var count: Int?
    /// Between probes; 0 is flood pacing: the next probe as soon as the last is
    /// answered, or 10 ms after it (iputils -f).
    public var interval = TimeSpan.seconds(1)
    /// How long a probe may wait for its reply before it is reported timed out
    /// (iputils -W; its default lingertime is 10 s).
    public var timeout = TimeSpan.seconds(10)
    /// The whole run ends then, whatever is outstanding (iputils -w).
    public var deadline: TimeSpan?
    /// ICMP data bytes (iputils -s, default 56: a 64-byte ICMP packet).
    public var payloadSize = 56
    /// Bytes repeated to fill the ICMP data (iputils -p); empty: byte i is i.
    public var payloadPattern: [UInt8] = []

    public init(
        count: Int? = nil, interval: TimeSpan = .seconds(1), timeout: TimeSpan = .seconds(10), deadline: TimeSpan? = nil,
        payloadSize: Int = 56
    ) {
        self.count = count
        self.interval = interval
        self.timeout = timeout
        self.deadline = deadline
        self.payloadSize = payloadSize
    }

    /// iputils flood pacing: one probe in flight, or one per 10 ms.
    public static let floodPacing = TimeSpan.milliseconds(10)
}
