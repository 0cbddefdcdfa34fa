import ReachSystem

/// One race of TCP connections to a name's addresses, as Happy Eyeballs v2 runs it
/// (RFC 8305): the addresses in the resolver's order with the families taking turns
/// (section 4), a new attempt each Connection Attempt Delay (250 ms, section 5) or at once
/// when none is left in flight, the first connection wins and the others are closed. A value
/// with no sockets and no clock: `HappyEyeballs` drives it, tests drive it by hand.
public struct HappyEyeballsRace: Hashable, Sendable {
    /// RFC 8305 section 5's recommended Connection Attempt Delay.
    public static let attemptDelay = TimeSpan(milliseconds: 250)

    /// How one attempt ended.
    public enum Result: Hashable, Sendable {
        case connected
        case refused
        /// An ICMP error, or no neighbour: the errno's words.
        case unreachable(String)
        /// The route lookup refused the connect before a packet left.
        case routeRefused(String)
        /// No answer before the race's end.
        case timedOut
        /// Still in flight when another attempt won: closed.
        case cancelled
    }

    public struct Attempt: Hashable, Sendable {
        public var address: IPAddress
        /// From the race's start.
        public var started: TimeSpan
        public var ended: TimeSpan?
        public var result: Result?
    }

    /// The addresses in the order they are tried.
    public let order: [IPAddress]
    public private(set) var attempts: [Attempt] = []
    /// The index of the attempt that connected.
    public private(set) var winner: Int?
    private let start: MonotonicInstant

    public init(addresses: [IPAddress], start: MonotonicInstant) {
        order = Self.interleaved(addresses)
        self.start = start
    }

    /// RFC 8305 section 4: the first address's family first, then one address of each family
    /// in turn, each family's addresses in the resolver's order.
    public static func interleaved(_ addresses: [IPAddress]) -> [IPAddress] {
        guard let first = addresses.first?.family else { return [] }
        var preferred = addresses.filter { $0.family == first }[...]
        var other = addresses.filter { $0.family != first }[...]
        var order: [IPAddress] = []
        while !preferred.isEmpty || !other.isEmpty {
            if let next = preferred.popFirst() { order.append(next) }
            if let next = other.popFirst() { order.append(next) }
        }
        return order
    }

    public var inFlight: [Int] { attempts.indices.filter { attempts[$0].result == nil } }

    public var isOver: Bool { winner != nil || (attempts.count == order.count && inFlight.isEmpty) }

    /// Whether the next address is to be tried now.
    public func nextAttemptDue(at now: MonotonicInstant) -> Bool {
        guard winner == nil, attempts.count < order.count else { return false }
        guard let last = attempts.last else { return true }
        return inFlight.isEmpty || now >= start + last.started + Self.attemptDelay
    }

    /// When the next attempt falls due while others are in flight; nil when none will.
    public var nextAttemptDeadline: MonotonicInstant? {
        guard winner == nil, attempts.count < order.count, let last = attempts.last else { return nil }
        return start + last.started + Self.attemptDelay
    }

    /// The next address is being tried from `now`; its attempt's index.
    public mutating func started(at now: MonotonicInstant) -> Int {
        attempts.append(Attempt(address: order[attempts.count], started: now - start))
        return attempts.count - 1
    }

    /// Attempt `index` ended; the first connection wins and the others in flight are cancelled.
    public mutating func finished(_ index: Int, _ result: Result, at now: MonotonicInstant) {
        guard attempts[index].result == nil else { return }
        attempts[index].result = result
        attempts[index].ended = now - start
        guard result == .connected, winner == nil else { return }
        winner = index
        for other in inFlight { finished(other, .cancelled, at: now) }
    }

    /// The race's time ran out: what is still in flight timed out.
    public mutating func timeOut(at now: MonotonicInstant) {
        for index in inFlight { finished(index, .timedOut, at: now) }
    }

    /// A family's outcome: its winning attempt, else its last attempt; nil when none was made.
    public func outcome(of family: AddressFamily) -> Attempt? {
        if let winner, attempts[winner].address.family == family { return attempts[winner] }
        return attempts.last { $0.address.family == family }
    }
}
