import ReachSystem

/// The pinger as a deterministic state machine with no sockets and no clocks, for one
/// target or many: one host is a list of one. A driver (`PingLoop` over a real transport,
/// or a test with a fake transport and a manual clock) asks it for the next probe, tells it
/// what happened, and gets events back in order. One sequence space for the run, so one
/// socket per family serves every target. Where iputils ping and fping differ (pacing, what
/// a late reply or an ICMP error counts for, the end of the run), the configuration's
/// `rules` decide; the matching of replies and errors to probes is the same for both.
public struct PingEngine {
    public let targets: [IPAddress]
    public let configuration: PingConfiguration
    /// Each target's counters, by its position in `targets`.
    public internal(set) var statistics: [PingStatistics]
    public internal(set) var isFinished = false
    /// When the first probe left; nil before.
    public private(set) var startTime: MonotonicInstant?
    public private(set) var lastSendTime: MonotonicInstant?
    /// Probes taken for sending, refused ones included (iputils ntransmitted, fping
    /// num_pingsent).
    public private(set) var sentProbes = 0
    /// The number of the run's first probe: iputils' icmp_seq starts at 1, fping's at 0; a
    /// continuous run that replaces another on the same sockets goes on from the last one's.
    var firstNumber: Int
    /// `count` over all targets (iputils' rules), Int.max when that overflows.
    let probesPerRun: Int?
    var wire: (ipv4: EchoWire, ipv6: EchoWire)
    let payload: [UInt8]
    /// `ICMPCodec.wordSum` of the payload: a reply that carries it back intact has its
    /// checksum verified from its header alone.
    let payloadWordSum: UInt32
    /// Each target's current per-probe timeout (fping grows it by `backoff` between tries).
    var timeouts: [TimeSpan]
    /// fping's probes due, in due order (its ping event queue). Due times only grow (a
    /// target's next probe is due one period after its last was due), so a list read from
    /// the front is the queue.
    var due: [(time: MonotonicInstant, target: Int32, index: Int32)] = []
    var dueHead = 0
    /// Each target's own period, when the targets do not share one (a continuous run of
    /// several groups): their due times then no longer come in order, so they wait in
    /// `dueHeap` (slot: the target, serial: the probe's index) instead of `due`.
    var periods: [TimeSpan] = []
    var dueHeap = DeadlineHeap()
    /// Probes waiting for their reply, by the time their wait ends.
    var deadlines = DeadlineHeap()
    /// The probe each sequence number stands for: the last full turn of the sequence space,
    /// grown as probes go, with no hashing on the per-echo path.
    var slots: [Slot] = []
    /// Probes neither answered nor given up on.
    var inFlight = 0
    /// When the first probe was taken: the time every target's first probe was due (fping).
    var firstDue: MonotonicInstant?

    struct Slot {
        /// The probe's number in the run; a slot reused a turn of the sequence space later
        /// holds the newer one.
        var number = -1
        var target: Int32 = 0
        var index: Int32 = 0
        // Before the optional: 40 bytes a slot, not 48.
        var sentMonotonic = MonotonicInstant(nanoseconds: 0)
        /// nil for a probe sendto refused.
        var sentRealtime: RealtimeInstant?
        var state = State.free
        enum State { case free, waiting, answered, timedOut, failed, errored }
    }

    /// What goes on the wire for one probe.
    public struct ProbePacket: Equatable, Sendable {
        public var probe: PingProbe
        public var address: IPAddress
        public var bytes: [UInt8]
        public var sequence: UInt16 { probe.sequence }
    }

    /// `identifiers`: the echo identifier of each family's socket (the kernel's on a datagram
    /// socket). With fping's rules every target's first probe is due at once.
    public init(targets: [IPAddress], identifiers: (ipv4: UInt16, ipv6: UInt16), configuration: PingConfiguration) {
        self.targets = targets
        self.configuration = configuration
        firstNumber = configuration.rules == .iputils ? 1 : 0
        probesPerRun = configuration.count.map { count in
            let (total, overflow) = count.multipliedReportingOverflow(by: targets.count)
            return overflow ? .max : total
        }
        payload = ICMPCodec.payload(size: configuration.payloadSize, pattern: configuration.payloadPattern)
        payloadWordSum = ICMPCodec.wordSum(payload[...])
        wire = (
            EchoWire(codec: ICMPCodec(family: ICMPv4()), identifier: identifiers.ipv4, payload: payload),
            EchoWire(codec: ICMPCodec(family: ICMPv6()), identifier: identifiers.ipv6, payload: payload)
        )
        let probes = configuration.count ?? configuration.tries
        statistics = [PingStatistics](
            repeating: PingStatistics(probes: configuration.recordsEachProbe ? probes : 0), count: targets.count)
        timeouts = [TimeSpan](repeating: configuration.timeout, count: targets.count)
        // Room for the run's probes up front, up to a full sequence space (-c may be as large
        // as Int.max): grown by doubling, a flood's table was copied at each doubling. Slots
        // are indexed by sequence, and iputils' start at 1: one more.
        // Capped before the one is added: -c 9223372036854775807 is a documented count.
        let (total, overflow) = targets.count.multipliedReportingOverflow(by: probes)
        slots.reserveCapacity(overflow || total >= 0x10000 ? 0x10000 : max(1, total) + firstNumber)
        if configuration.rules == .fping {
            due.reserveCapacity(targets.count)
            for target in targets.indices { due.append((.atOnce, Int32(target), 0)) }
        }
    }

    /// One target: iputils ping, SimplePing, one echo check.
    public init(target: IPAddress, identifier: UInt16, configuration: PingConfiguration) {
        self.init(targets: [target], identifiers: (identifier, identifier), configuration: configuration)
    }

    /// The sequence number of the probe with this number: 16 bits, wrapping.
    static func sequence(ofProbe number: Int) -> UInt16 { UInt16(truncatingIfNeeded: number) }

    /// The number the next probe will carry.
    var nextNumber: Int { sentProbes + firstNumber }

    /// The sequence number the next probe will carry (SimplePing's nextSequenceNumber).
    public var nextSequenceNumber: UInt16 { Self.sequence(ofProbe: nextNumber) }

    /// Whether the sequence numbers have wrapped past 65,535 (from then on, with iputils'
    /// rules, only replies to the last 120 probes are accepted).
    public var nextSequenceNumberHasWrapped: Bool { nextNumber > 65535 }

    /// Probes neither answered nor given up on.
    public var outstanding: Int { inFlight }

    // MARK: - Sending

    /// Whether all probes have been sent (iputils' rules; fping's queue says it for its own).
    public var hasSentAll: Bool {
        guard let total = probesPerRun else { return false }
        // With a deadline, iputils keeps probing until `count` replies or the deadline.
        return configuration.deadline == nil && sentProbes >= total
    }

    /// When the next probe is due, nil when none is. iputils: one interval after the last,
    /// or flood pacing. fping: its due time, but never sooner than one interval after the
    /// last (main_loop's `lt < interval` check).
    public func nextSendTime() -> MonotonicInstant? {
        if isFinished { return nil }
        switch configuration.rules {
        case .iputils:
            if hasSentAll { return nil }
            guard let last = lastSendTime else { return .atOnce }
            if configuration.interval == .zero {
                return inFlight == 0 ? last : last + PingConfiguration.floodPacing
            }
            return last + configuration.interval
        case .fping:
            guard let time = nextDueTime else { return nil }
            guard let last = lastSendTime else { return time }
            return max(time, last + configuration.interval)
        }
    }

    /// The next probe if it is due at `now`. Its number is taken: report what became of it
    /// with `didSend` or `didFailToSend`.
    public mutating func nextProbe(now: MonotonicInstant) -> ProbePacket? {
        guard let time = nextSendTime(), time <= now else { return nil }
        let target: Int
        let index: Int
        switch configuration.rules {
        case .iputils:
            (target, index) = targets.count == 1 ? (0, sentProbes) : (sentProbes % targets.count, sentProbes / targets.count)
        case .fping:
            (target, index) = takeDue(now: now)
        }
        let address = targets[target]
        let sequence = Self.sequence(ofProbe: nextNumber)
        let bytes = address.family == .ipv4 ? wire.ipv4.patched(sequence) : wire.ipv6.patched(sequence)
        return ProbePacket(probe: PingProbe(target: target, index: index, sequence: sequence), address: address, bytes: bytes)
    }

    /// fping: the probe at the head of the queue; with a count, the target's next probe is
    /// queued one period after this one was due. Every target's first probe is due at the
    /// start, so probe k of every target is due at start + k periods, in due order.
    private mutating func takeDue(now: MonotonicInstant) -> (target: Int, index: Int) {
        if !periods.isEmpty { return takeOwnPeriodDue() }
        let entry = due[dueHead]
        dueHead += 1
        if dueHead > 4096, dueHead * 2 > due.count {
            due.removeFirst(dueHead)
            dueHead = 0
        }
        if firstDue == nil { firstDue = now }
        // The queue keeps 32-bit indexes: --loop (a count of Int.max) ends a target's probes
        // at Int32.max rather than trap adding one to it.
        if let count = configuration.count, Int(entry.index) + 1 < min(count, Int(Int32.max)), let start = firstDue {
            let base = entry.time == .atOnce ? start : entry.time
            due.append((base + configuration.period, entry.target, entry.index + 1))
        }
        return (Int(entry.target), Int(entry.index))
    }

    /// The probe left. `realtime` is the clock of SO_TIMESTAMPNS read just before sendto,
    /// `monotonic` the same instant on CLOCK_MONOTONIC.
    /// Inlined: where the caller sees the event is `.sent`, it has nothing to destroy.
    @inline(__always)
    public mutating func didSend(_ packet: ProbePacket, realtime: RealtimeInstant, monotonic: MonotonicInstant) -> PingEvent {
        let number = take(packet, monotonic: monotonic)
        let slot = Int(packet.probe.sequence)
        store(
            Slot(
                number: number, target: Int32(packet.probe.target), index: Int32(truncatingIfNeeded: packet.probe.index),
                sentMonotonic: monotonic, sentRealtime: realtime, state: .waiting),
            at: slot)
        deadlines.push(monotonic + timeouts[packet.probe.target], slot: slot, serial: number)
        inFlight += 1
        return .sent(packet.probe, bytes: packet.bytes.count)
    }

    /// sendto refused the probe: sent, and an error (iputils) or a loss with no wait (fping
    /// send_ping).
    public mutating func didFailToSend(_ packet: ProbePacket, error: Errno, monotonic: MonotonicInstant) -> PingEvent {
        let number = take(packet, monotonic: monotonic)
        let target = packet.probe.target
        store(
            Slot(
                number: number, target: Int32(target), index: Int32(truncatingIfNeeded: packet.probe.index),
                sentMonotonic: monotonic, sentRealtime: nil, state: .failed),
            at: Int(packet.probe.sequence))
        switch configuration.rules {
        case .iputils: statistics[target].errors += 1
        case .fping: statistics[target].settleLost(index: packet.probe.index)
        }
        return .sendFailed(packet.probe, error: error)
    }

    private mutating func take(_ packet: ProbePacket, monotonic: MonotonicInstant) -> Int {
        let number = nextNumber
        sentProbes += 1
        statistics[packet.probe.target].transmitted += 1
        if startTime == nil { startTime = monotonic }
        lastSendTime = monotonic
        return number
    }

    /// Records a probe in its sequence's slot. Sequences come in order, so the table grows
    /// by one slot at a time, then reuses them.
    private mutating func store(_ probe: Slot, at slot: Int) {
        if slot < slots.count {
            slots[slot] = probe
        } else {
            while slots.count < slot { slots.append(Slot()) }
            slots.append(probe)
        }
    }

    // MARK: - The run as a whole

    /// From the first probe to the last (iputils' "time NNNms" and its ipg).
    public var elapsed: TimeSpan {
        guard let start = startTime, let last = lastSendTime else { return .zero }
        return last - start
    }

    /// Milliseconds from the first probe to the last, rounded as iputils rounds them.
    public var elapsedMilliseconds: Int64 { (elapsed + .nanoseconds(500_000)).milliseconds }

    /// iputils' exit rule, for every target: a reply, and with both -c and -w, `count` of them.
    public var succeeded: Bool {
        statistics.allSatisfy { counters in
            guard counters.received > 0 else { return false }
            if configuration.deadline != nil, let count = configuration.count { return counters.received >= count }
            return true
        }
    }

    /// Targets that answered at least once (fping's exit rule counts them).
    public var aliveCount: Int { statistics.reduce(0) { $0 + ($1.received > 0 ? 1 : 0) } }
}

/// One family's echo request on the wire, patched in place per probe (sequence and
/// checksum): no rebuild, no full checksum, and no new array once the last probe's packet
/// is gone.
struct EchoWire {
    let codec: ICMPCodec
    /// The echo identifier of the family's socket (the kernel's choice on a datagram socket).
    let identifier: UInt16
    private var outgoing: [UInt8]
    /// The IPv4 checksum of `outgoing` with sequence 0, which each probe's is derived from.
    private let templateChecksum: UInt16

    init(codec: ICMPCodec, identifier: UInt16, payload: [UInt8]) {
        self.codec = codec
        self.identifier = identifier
        outgoing = codec.echoRequest(identifier: identifier, sequence: 0, payload: payload)
        templateChecksum = UInt16(outgoing[2]) << 8 | UInt16(outgoing[3])
    }

    mutating func patched(_ sequence: UInt16) -> [UInt8] {
        let codec = self.codec
        codec.setSequence(sequence, in: &outgoing, templateChecksum: templateChecksum)
        return outgoing
    }
}
