import ReachSystem

/// fping's scheduler and bookkeeping (src/fping.c main_loop, send_ping, wait_for_reply) as
/// a state machine with no sockets and no clocks: the probes of every target round-robin,
/// one every `interval` at most across all of them, each target every `period`; one
/// sequence space for the run, so one socket per family serves every target.
public struct FanoutPingEngine {
    public let targets: [IPAddress]
    public let configuration: FanoutPingConfiguration
    public private(set) var statistics: [FanoutPingStatistics]
    public private(set) var isFinished = false
    public private(set) var startTime: MonotonicInstant?
    private let identifiers: (ipv4: UInt16, ipv6: UInt16)
    private let codecs: (ipv4: ICMPCodec, ipv6: ICMPCodec)
    private let payload: [UInt8]
    /// Each target's current per-probe timeout (grown by `backoff` between tries).
    private var timeouts: [TimeSpan]
    /// Probes due, in due order: fping's ping event queue. Due times only grow (a target's
    /// next probe is due one period after its last was due), so a list read from the
    /// front is the queue.
    private var due: [(time: MonotonicInstant, target: Int32, index: Int32)] = []
    private var dueHead = 0
    /// Probes waiting for their reply, by the time their wait ends.
    private var deadlines = DeadlineHeap()
    /// The probe each sequence number stands for.
    private var slots: [Slot]
    /// Probes taken for sending, refused ones included (fping num_pingsent).
    public private(set) var sentProbes = 0
    private var inFlight = 0
    private var lastSendTime: MonotonicInstant?
    /// When the first probe was taken: the time every target's first probe was due.
    private var firstDue: MonotonicInstant?

    private struct Slot {
        var serial = -1
        var target: Int32 = 0
        var index: Int32 = 0
        // Before the optional: 40 bytes a slot, not 48.
        var sentMonotonic = MonotonicInstant(nanoseconds: 0)
        var sentRealtime: RealtimeInstant?
        var state = State.free
        enum State { case free, waiting, answered, timedOut }
    }

    /// A probe to put on the wire.
    public struct Probe: Equatable, Sendable {
        public var target: Int
        public var index: Int
        public var address: IPAddress
        public var sequence: UInt16
        public var bytes: [UInt8]
    }

    /// `identifiers`: the echo identifier of each family's socket (the kernel's on a
    /// datagram socket). Every target's first probe is due at once; the interval spaces them.
    public init(targets: [IPAddress], identifiers: (ipv4: UInt16, ipv6: UInt16), configuration: FanoutPingConfiguration) {
        self.targets = targets
        self.configuration = configuration
        self.identifiers = identifiers
        codecs = (ICMPCodec(family: ICMPv4()), ICMPCodec(family: ICMPv6()))
        payload = ICMPCodec.payload(size: configuration.payloadSize, pattern: configuration.payloadPattern)
        let probes = configuration.count ?? configuration.tries
        let kept = configuration.recordsEachProbe ? probes : 0
        statistics = [FanoutPingStatistics](repeating: FanoutPingStatistics(probes: kept), count: targets.count)
        timeouts = [TimeSpan](repeating: configuration.timeout, count: targets.count)
        // Probes of the whole run, up to a full sequence space (-c may be as large as Int.max).
        let (total, overflow) = targets.count.multipliedReportingOverflow(by: probes)
        slots = [Slot](repeating: Slot(), count: overflow ? 0x10000 : min(0x10000, max(1, total)))
        due.reserveCapacity(targets.count)
        for target in targets.indices { due.append((.atOnce, Int32(target), 0)) }
    }

    private func codec(_ family: AddressFamily) -> ICMPCodec { family == .ipv4 ? codecs.ipv4 : codecs.ipv6 }
    private func identifier(_ family: AddressFamily) -> UInt16 { family == .ipv4 ? identifiers.ipv4 : identifiers.ipv6 }

    // MARK: - Sending

    /// When the next probe may go: its due time, but never sooner than one interval after
    /// the last (fping main_loop's `lt < interval` check).
    public func nextSendTime() -> MonotonicInstant? {
        guard !isFinished, dueHead < due.count else { return nil }
        guard let last = lastSendTime else { return due[dueHead].time }
        return max(due[dueHead].time, last + configuration.interval)
    }

    /// The next probe if one may go at `now`. With a count, the target's next probe is
    /// queued one period after this one was due.
    public mutating func nextProbe(now: MonotonicInstant) -> Probe? {
        guard let time = nextSendTime(), time <= now else { return nil }
        let entry = due[dueHead]
        dueHead += 1
        if dueHead > 4096, dueHead * 2 > due.count {
            due.removeFirst(dueHead)
            dueHead = 0
        }
        let target = Int(entry.target)
        let index = Int(entry.index)
        if firstDue == nil { firstDue = now }
        if let count = configuration.count, index + 1 < count, let start = firstDue {
            // fping: every target's first probe is due at the start, and each next one a period
            // after the last was due, so probe k of every target is due at start + k periods
            // and the list stays in due order.
            let base = entry.time == .atOnce ? start : entry.time
            due.append((base + configuration.period, entry.target, entry.index + 1))
        }
        let address = targets[target]
        let sequence = UInt16(truncatingIfNeeded: sentProbes)
        let bytes = codec(address.family).echoRequest(identifier: identifier(address.family), sequence: sequence, payload: payload)
        return Probe(target: target, index: index, address: address, sequence: sequence, bytes: bytes)
    }

    /// The probe left; `realtime` and `monotonic` read just before sendto.
    public mutating func didSend(_ probe: Probe, realtime: RealtimeInstant, monotonic: MonotonicInstant) {
        take(monotonic: monotonic)
        let slot = Int(probe.sequence)
        if slot >= slots.count { slots += [Slot](repeating: Slot(), count: min(0x10000, slot + 1) - slots.count) }
        slots[slot] = Slot(
            serial: sentProbes, target: Int32(probe.target), index: Int32(probe.index), sentMonotonic: monotonic,
            sentRealtime: realtime, state: .waiting)
        deadlines.push(monotonic + timeouts[probe.target], slot: slot, serial: sentProbes)
        sentProbes += 1
        inFlight += 1
    }

    /// sendto refused the probe: sent and lost, with no wait (fping send_ping).
    public mutating func didFailToSend(_ probe: Probe, error: Errno, monotonic: MonotonicInstant) -> FanoutPingEvent {
        take(monotonic: monotonic)
        sentProbes += 1
        statistics[probe.target].sent += 1
        statistics[probe.target].keep(FanoutPingStatistics.lost, index: probe.index)
        return .sendFailed(target: probe.target, index: probe.index, error: error)
    }

    private mutating func take(monotonic: MonotonicInstant) {
        if startTime == nil { startTime = monotonic }
        lastSendTime = monotonic
    }

    // MARK: - Receiving

    /// A datagram from the socket of `family`; nil for anything that is not about our
    /// probes (another program's echoes on a raw socket, a reply later than its timeout).
    public mutating func receive(_ datagram: ReceivedDatagram, family: AddressFamily) -> FanoutPingEvent? {
        let codec = codec(family)
        if let echo = codec.echo(in: datagram.bytes, includesIPHeader: datagram.includesIPHeader), echo.type == codec.echoReplyType {
            guard echo.identifier == identifier(family), let slot = probeSlot(echo.sequence, family: family) else { return nil }
            let probe = slots[slot]
            let target = Int(probe.target)
            let index = Int(probe.index)
            let rtt = datagram.roundTrip(sentRealtime: probe.sentRealtime, sentMonotonic: probe.sentMonotonic)
            let ttl = datagram.ttl ?? echo.ipTTL.map(Int.init)
            switch probe.state {
            case .answered:
                statistics[target].receivedTotal += 1
                return .duplicate(
                    target: target, index: index, bytes: echo.length, roundTrip: rtt, from: datagram.from, ttl: ttl)
            case .timedOut, .free:
                return nil
            case .waiting:
                // fping wait_for_reply: a reply slower than the timeout is discarded (its wait
                // has not been reported yet when the reply beats the clock reading).
                guard rtt <= timeouts[target] else { return nil }
                slots[slot].state = .answered
                inFlight -= 1
                record(rtt, target: target, index: index)
                return .reply(target: target, index: index, bytes: echo.length, roundTrip: rtt, from: datagram.from, ttl: ttl)
            }
        }
        guard case .quote(let quote) = ProbeQuote.read(datagram, codec: codec, identifier: identifier(family)) else { return nil }
        return error(quote, family: family)
    }

    /// An entry of a datagram socket's error queue: an ICMP error, or the kernel's own.
    public mutating func receive(_ queued: QueuedError, family: AddressFamily) -> FanoutPingEvent? {
        guard case .quote(let quote) = ProbeQuote.read(queued, codec: codec(family)) else { return nil }
        return error(quote, family: family)
    }

    /// The event for an error about one of our probes; nil when it names none (as iputils
    /// checks it, ping4_receive_error_msg: an error about a packet to another address is not
    /// about this probe).
    private func error(_ quote: ProbeQuote, family: AddressFamily) -> FanoutPingEvent? {
        guard let slot = probeSlot(quote.sequence, family: family) else { return nil }
        let target = Int(slots[slot].target)
        let index = Int(slots[slot].index)
        guard quote.isAbout(targets[target]) else { return nil }
        if quote.origin == .local, let errno = quote.errno { return .localError(target: target, index: index, error: errno) }
        return .icmpError(target: target, index: index, from: quote.from ?? targets[target], type: quote.type, code: quote.code)
    }

    /// The slot of a probe of `family` sent with this sequence number, if any.
    private func probeSlot(_ sequence: UInt16, family: AddressFamily) -> Int? {
        let slot = Int(sequence)
        guard slot < slots.count, slots[slot].state != .free, targets[Int(slots[slot].target)].family == family else { return nil }
        return slot
    }

    private mutating func record(_ rtt: TimeSpan, target: Int, index: Int) {
        var counters = statistics[target]
        counters.sent += 1
        counters.received += 1
        counters.receivedTotal += 1
        // fping stats_add: 0 stands for "none yet".
        if counters.maximum == .zero || rtt > counters.maximum { counters.maximum = rtt }
        if counters.minimum == .zero || rtt < counters.minimum { counters.minimum = rtt }
        counters.total += rtt
        counters.keep(rtt, index: index)
        statistics[target] = counters
        // fping: a reply resets the target's timeout to the initial one.
        timeouts[target] = configuration.timeout
    }

    // MARK: - Time

    /// Reports the probes whose wait is over at `now` and, without a count, queues the
    /// target's next try (fping's retries, each waiting `backoff` times longer); then the
    /// end of the run when it has come.
    public mutating func advance(now: MonotonicInstant) -> [FanoutPingEvent] {
        guard !isFinished else { return [] }
        var events: [FanoutPingEvent] = []
        while let top = deadlines.first, top.time <= now {
            deadlines.removeFirst()
            guard slots[top.slot].serial == top.serial, slots[top.slot].state == .waiting else { continue }
            slots[top.slot].state = .timedOut
            inFlight -= 1
            let target = Int(slots[top.slot].target)
            let index = Int(slots[top.slot].index)
            statistics[target].sent += 1
            statistics[target].keep(FanoutPingStatistics.lost, index: index)
            events.append(.timedOut(target: target, index: index))
            if configuration.count == nil, statistics[target].received == 0, statistics[target].sent < configuration.tries {
                timeouts[target] = TimeSpan(nanoseconds: Int64(Double(timeouts[target].nanoseconds) * configuration.backoff))
                due.append((now, Int32(target), Int32(statistics[target].sent)))
            }
        }
        if let end = endTime(), end <= now {
            isFinished = true
            events.append(.finished)
        }
        return events
    }

    /// Ends the run now (Ctrl-C): probes still waiting are not counted, as fping leaves them.
    public mutating func stop() -> [FanoutPingEvent] {
        guard !isFinished else { return [] }
        isFinished = true
        return [.finished]
    }

    /// When the run ends by itself: nothing left to send or wait for, or the deadline.
    public func endTime() -> MonotonicInstant? {
        if isFinished { return nil }
        if dueHead == due.count && inFlight == 0 { return .atOnce }
        if let deadline = configuration.deadline, let start = startTime { return start + deadline }
        return nil
    }

    /// The next instant anything happens by itself: a probe due, a wait over, the end.
    public func nextWakeTime() -> MonotonicInstant? {
        var wake = nextSendTime()
        for time in [deadlines.first?.time, endTime()] {
            guard let time else { continue }
            wake = min(wake ?? time, time)
        }
        return wake
    }

    /// Targets that answered at least once.
    public var aliveCount: Int { statistics.reduce(0) { $0 + ($1.received > 0 ? 1 : 0) } }
}
