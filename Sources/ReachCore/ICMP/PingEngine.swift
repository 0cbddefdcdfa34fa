import ReachSystem

/// The pinger as a deterministic state machine: no sockets and no clocks. A driver
/// (the real poll loop, or a test with a fake transport and a manual clock) asks it
/// for the next probe, tells it what happened, and gets events back in order.
public struct PingEngine: Sendable {
    public let target: IPAddress
    public let configuration: PingConfiguration
    public let codec: ICMPCodec
    /// The echo identifier on the wire; on a datagram socket the kernel's choice.
    public private(set) var identifier: UInt16
    public private(set) var statistics = PingStatistics()
    /// When the first probe left; nil before.
    public private(set) var startTime: MonotonicInstant?
    public private(set) var lastSendTime: MonotonicInstant?
    public private(set) var isFinished = false
    private let payload: [UInt8]
    /// `ICMPCodec.wordSum` of the payload: a reply that carries it back intact has its
    /// checksum verified from its header alone.
    private let payloadWordSum: UInt32
    /// The echo request on the wire, patched in place per probe (sequence and checksum):
    /// no rebuild, no full checksum, and no new array once the last probe's packet is gone.
    private var outgoing: [UInt8]
    /// The IPv4 checksum of `outgoing` with sequence 0, which each probe's is derived from.
    private let templateChecksum: UInt16
    private var probes: ProbeTable
    /// Probe numbers waiting for a reply, in send order (so in timeout order).
    private var waiting: [Int] = []
    private var waitingHead = 0
    private var inFlight = 0

    /// Fields in this order keep it 18 bytes (the optional's tag packs beside `state`).
    fileprivate struct Probe {
        var sentMonotonic: MonotonicInstant
        /// nil for a probe sendto refused.
        var sentRealtime: RealtimeInstant?
        var state: State
        enum State { case waiting, answered, timedOut, failed, errored }
    }

    /// What went on the wire for one probe.
    public struct ProbePacket: Equatable, Sendable {
        public var sequence: UInt16
        public var bytes: [UInt8]
    }

    public init(target: IPAddress, identifier: UInt16, configuration: PingConfiguration) {
        self.target = target
        self.identifier = identifier
        self.configuration = configuration
        probes = ProbeTable(expecting: configuration.count)
        codec = ICMPCodec(family: icmpFamily(for: target.family))
        payload = ICMPCodec.payload(size: configuration.payloadSize, pattern: configuration.payloadPattern)
        payloadWordSum = ICMPCodec.wordSum(payload[...])
        outgoing = codec.echoRequest(identifier: identifier, sequence: 0, payload: payload)
        templateChecksum = UInt16(outgoing[2]) << 8 | UInt16(outgoing[3])
    }

    /// Sequence numbers start at 1 and wrap at 16 bits (iputils and SimplePing).
    static func sequence(ofProbe number: Int) -> UInt16 { UInt16(truncatingIfNeeded: number) }

    /// The probe a sequence number stands for. Before the first wrap any sequence sent
    /// so far; after it only the last 120 (SimplePing), so a stale reply from 65,536
    /// probes ago is not taken for a new one.
    func probeNumber(forSequence sequence: UInt16) -> Int? {
        let sent = statistics.transmitted
        if sent < 65536 {
            return sequence >= 1 && Int(sequence) <= sent ? Int(sequence) : nil
        }
        let distance = Int(Self.sequence(ofProbe: sent) &- sequence)
        return distance < 120 ? sent - distance : nil
    }

    /// The sequence number the next probe will carry (SimplePing's nextSequenceNumber).
    public var nextSequenceNumber: UInt16 { Self.sequence(ofProbe: statistics.transmitted + 1) }

    /// Whether the sequence numbers have wrapped past 65,535 (from then on only replies to
    /// the last 120 probes are accepted).
    public var nextSequenceNumberHasWrapped: Bool { statistics.transmitted + 1 > 65535 }

    /// Whether the probe with this number was answered (for iputils -O).
    public func isAnswered(probe number: Int) -> Bool {
        probes[number]?.state == .answered
    }

    /// Probes neither answered nor given up on.
    public var outstanding: Int { inFlight }

    // MARK: - Sending

    /// Whether all probes have been sent.
    public var hasSentAll: Bool {
        guard let count = configuration.count else { return false }
        // With a deadline, iputils keeps probing until `count` replies or the deadline.
        return configuration.deadline == nil && statistics.transmitted >= count
    }

    /// When the next probe is due, nil when none is.
    public func nextSendTime() -> MonotonicInstant? {
        if isFinished || hasSentAll { return nil }
        guard let last = lastSendTime else { return .atOnce }
        if configuration.interval == .zero {
            return inFlight == 0 ? last : last + PingConfiguration.floodPacing
        }
        return last + configuration.interval
    }

    /// The next probe if it is due at `now`. Its number is taken: report what became of
    /// it with `didSend` or `didFailToSend`.
    public mutating func nextProbe(now: MonotonicInstant) -> ProbePacket? {
        guard let due = nextSendTime(), due <= now else { return nil }
        let number = statistics.transmitted + 1
        let sequence = Self.sequence(ofProbe: number)
        codec.setSequence(sequence, in: &outgoing, templateChecksum: templateChecksum)
        return ProbePacket(sequence: sequence, bytes: outgoing)
    }

    /// The probe left. `realtime` is the clock of SO_TIMESTAMPNS read just before sendto,
    /// `monotonic` the same instant on CLOCK_MONOTONIC.
    /// Inlined: where the caller sees the event is `.sent`, it has nothing to destroy.
    @inline(__always)
    public mutating func didSend(_ probe: ProbePacket, realtime: RealtimeInstant, monotonic: MonotonicInstant) -> PingEvent {
        let number = take(probe, monotonic: monotonic)
        probes.insert(Probe(sentMonotonic: monotonic, sentRealtime: realtime, state: .waiting), number: number)
        waiting.append(number)
        inFlight += 1
        return .sent(sequence: probe.sequence, bytes: probe.bytes.count)
    }

    /// sendto refused the probe: counted as sent and as an error, as iputils counts it.
    public mutating func didFailToSend(_ probe: ProbePacket, error: Errno, monotonic: MonotonicInstant) -> PingEvent {
        let number = take(probe, monotonic: monotonic)
        probes.insert(Probe(sentMonotonic: monotonic, sentRealtime: nil, state: .failed), number: number)
        statistics.errors += 1
        return .sendFailed(sequence: probe.sequence, error: error)
    }

    private mutating func take(_ probe: ProbePacket, monotonic: MonotonicInstant) -> Int {
        statistics.transmitted += 1
        let number = statistics.transmitted
        if startTime == nil { startTime = monotonic }
        lastSendTime = monotonic
        return number
    }

    // MARK: - Receiving

    /// A datagram from the socket: a reply, an error quoting a probe (raw sockets), or
    /// something that is not ours. One datagram, one event.
    public mutating func receive(_ datagram: ReceivedDatagram) -> PingEvent {
        // An echo reply, read in place: a flood's one datagram per echo.
        if let echo = codec.echo(in: datagram.bytes, includesIPHeader: datagram.includesIPHeader), echo.type == codec.echoReplyType {
            guard echo.identifier == identifier else {
                return .unexpected(
                    UnexpectedPacket(
                        from: datagram.from, type: echo.type, code: echo.code,
                        reason: "identifier \(echo.identifier), not ours"))
            }
            guard let number = probeNumber(forSequence: echo.sequence), let probe = probes[number] else {
                return .unexpected(
                    UnexpectedPacket(
                        from: datagram.from, type: echo.type, code: echo.code,
                        reason: "sequence \(echo.sequence) was not sent"))
            }
            return reply(number: number, probe: probe, echo: echo, datagram: datagram)
        }
        switch ProbeQuote.read(datagram, codec: codec, identifier: identifier) {
        case .notOurs(let packet):
            return .unexpected(packet)
        case .quote(let quote):
            guard quote.isAbout(target), let number = probeNumber(forSequence: quote.sequence) else {
                return .unexpected(
                    UnexpectedPacket(
                        from: datagram.from, type: quote.type, code: quote.code, reason: "error quoting a probe that is not ours"))
            }
            return icmpError(number: number, quote: quote)
        }
    }

    private mutating func reply(number: Int, probe: Probe, echo: ICMPCodec.Echo, datagram: ReceivedDatagram) -> PingEvent {
        let rtt = datagram.roundTrip(sentRealtime: probe.sentRealtime, sentMonotonic: probe.sentMonotonic)
        let dataIntact = ByteComparison.equal(datagram.bytes[echo.dataStart...], payload)
        // ICMPv6 checksums need the pseudo-header: the kernel verified them.
        let corrupted =
            codec.checksumCoversMessageOnly
            && !ICMPCodec.checksumVerifies(echo, in: datagram.bytes, dataWordSum: dataIntact ? payloadWordSum : nil)
        let duplicate = !corrupted && probe.state == .answered
        let late = probe.state == .timedOut
        // iputils times every reply with a good checksum, duplicates included.
        if !corrupted {
            statistics.record(roundTrip: rtt)
            statistics.noteAnswer(toProbe: number)
        }
        if corrupted {
            statistics.corrupted += 1
        } else if duplicate {
            statistics.duplicates += 1
        } else {
            statistics.received += 1
            if probe.state == .waiting { inFlight -= 1 }
            probes.setState(.answered, ofProbe: number)
        }
        let ttl = datagram.ttl ?? echo.ipTTL.map(Int.init)
        return .reply(
            PingReply(
                sequence: echo.sequence, from: datagram.from, ttl: ttl, bytes: echo.length,
                roundTrip: rtt, duplicate: duplicate, late: late, corrupted: corrupted,
                differentAddress: datagram.from.bytes != target.bytes,
                wrongData: !dataIntact))
    }


    /// An entry from the error queue (datagram sockets).
    public mutating func receive(_ queued: QueuedError) -> PingEvent {
        let quote: ProbeQuote
        switch ProbeQuote.read(queued, codec: codec) {
        case .notOurs(let packet): return .unexpected(packet)
        case .quote(let read): quote = read
        }
        guard let number = probeNumber(forSequence: quote.sequence) else {
            return .unexpected(UnexpectedPacket(from: quote.from, reason: "error for sequence \(quote.sequence), not sent"))
        }
        // As iputils checks it (ping4_receive_error_msg): an error about a packet to another
        // address is not about our probe, even with our identifier and a sequence we sent.
        if let destination = quote.destination, !quote.isAbout(target) {
            return .unexpected(UnexpectedPacket(from: quote.from, reason: "error for a packet to \(destination), not ours"))
        }
        if quote.origin == .local, let errno = quote.errno {
            statistics.errors += 1
            resolve(number, as: .errored)
            return .localError(sequence: quote.sequence, error: errno, info: quote.info)
        }
        return icmpError(number: number, quote: quote)
    }

    private mutating func icmpError(number: Int, quote: ProbeQuote) -> PingEvent {
        statistics.errors += 1
        // iputils acknowledges an ICMP error (and so may print "pipe N") for IPv4 only:
        // ping/ping.c ping4_receive_error_msg calls acknowledge(), ping/ping6_common.c
        // ping6_receive_error_msg does not (its raw socket's ICMP6_FILTER passes only replies).
        if target.family == .ipv4 { statistics.noteAnswer(toProbe: number) }
        resolve(number, as: .errored)
        return .icmpError(
            PingICMPError(
                sequence: quote.sequence, from: quote.from ?? target, type: quote.type, code: quote.code, info: quote.info,
                text: codec.family.describe(type: quote.type, code: quote.code, info: quote.info)))
    }

    private mutating func resolve(_ number: Int, as state: Probe.State) {
        guard probes[number]?.state == .waiting else { return }
        probes.setState(state, ofProbe: number)
        inFlight -= 1
    }

    // MARK: - Time

    /// Reports the probes whose time is up at `now`, and the end of the run when it has come.
    public mutating func advance(now: MonotonicInstant) -> [PingEvent] {
        guard !isFinished else { return [] }
        var events: [PingEvent] = []
        while waitingHead < waiting.count {
            let number = waiting[waitingHead]
            guard let probe = probes[number], probe.state == .waiting else {
                waitingHead += 1
                continue
            }
            guard probe.sentMonotonic + configuration.timeout <= now else { break }
            waitingHead += 1
            resolve(number, as: .timedOut)
            events.append(.timedOut(sequence: Self.sequence(ofProbe: number)))
        }
        compactWaiting()
        if let end = endTime(), end <= now {
            events += finish()
        }
        return events
    }

    private mutating func compactWaiting() {
        if waitingHead > 1024, waitingHead * 2 > waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    /// Ends the run now (Ctrl-C, stop): outstanding probes are reported timed out.
    public mutating func stop() -> [PingEvent] {
        guard !isFinished else { return [] }
        return finish()
    }

    private mutating func finish() -> [PingEvent] {
        var events: [PingEvent] = []
        while waitingHead < waiting.count {
            let number = waiting[waitingHead]
            waitingHead += 1
            if probes[number]?.state == .waiting {
                resolve(number, as: .timedOut)
                events.append(.timedOut(sequence: Self.sequence(ofProbe: number)))
            }
        }
        isFinished = true
        events.append(.finished(statistics))
        return events
    }

    /// When the run ends by itself, as iputils decides it (ping_common.c main_loop and
    /// schedule_exit): `count` answers (replies or errors); with -w any error, or the
    /// deadline; after the last probe, twice the longest round trip (at least one
    /// interval) when a reply came, else the per-probe timeout. As in iputils, -W does not
    /// shorten the wait once replies have come: a reply slower than -W is reported late,
    /// and still counted, rather than cut off by the end of the run.
    public func endTime() -> MonotonicInstant? {
        if isFinished { return nil }
        guard let start = startTime else { return nil }
        let answered = statistics.received + statistics.errors
        if let count = configuration.count, answered >= count { return .atOnce }
        if let deadline = configuration.deadline {
            if statistics.errors > 0 { return .atOnce }
            return start + deadline
        }
        guard hasSentAll, let last = lastSendTime else { return nil }
        if statistics.received > 0 {
            return last + max(TimeSpan(nanoseconds: statistics.maximumMicroseconds * 2000), configuration.interval)
        }
        return last + configuration.timeout
    }

    /// The next instant anything happens by itself: a probe due, a timeout, the end.
    public func nextWakeTime() -> MonotonicInstant? {
        var wake = nextSendTime()
        func earliest(_ time: MonotonicInstant?) {
            guard let time else { return }
            wake = min(wake ?? time, time)
        }
        earliest(endTime())
        var index = waitingHead
        while index < waiting.count {
            if let probe = probes[waiting[index]], probe.state == .waiting {
                earliest(probe.sentMonotonic + configuration.timeout)
                break
            }
            index += 1
        }
        return wake
    }

    /// From the first probe to the last (iputils' "time NNNms" and its ipg).
    public var elapsed: TimeSpan {
        guard let start = startTime, let last = lastSendTime else { return .zero }
        return last - start
    }

    /// Milliseconds from the first probe to the last, rounded as iputils rounds them.
    public var elapsedMilliseconds: Int64 { (elapsed + .nanoseconds(500_000)).milliseconds }

    /// iputils' exit rule: a reply, and with both -c and -w, `count` of them.
    public var succeeded: Bool {
        guard statistics.received > 0 else { return false }
        if configuration.deadline != nil, let count = configuration.count {
            return statistics.received >= count
        }
        return true
    }
}

/// The probes of the last full turn of the sequence space, by probe number: a ring that
/// grows to 65,536 slots at most (older probes can never be matched again), with no
/// hashing on the per-echo path. A slot holds its probe's number, so a probe from a
/// turn before is not taken for the one sent since.
private struct ProbeTable {
    private var slots: [(number: Int, probe: PingEngine.Probe)] = []

    /// With `-c`, room for every probe up front: grown by doubling, a flood's table was
    /// copied at each doubling, page faults that `make bench` measures.
    init(expecting count: Int?) {
        if let count, count > 0 { slots.reserveCapacity(min(count, 0x10000)) }
    }

    subscript(number: Int) -> PingEngine.Probe? {
        let slot = number & 0xffff
        return slot < slots.count && slots[slot].number == number ? slots[slot].probe : nil
    }

    /// Records a probe just sent. Numbers come in order, so the table grows by one slot at
    /// a time, then reuses them.
    mutating func insert(_ probe: PingEngine.Probe, number: Int) {
        let slot = number & 0xffff
        if slot < slots.count {
            slots[slot] = (number, probe)
        } else {
            while slots.count < slot { slots.append((0, probe)) }
            slots.append((number, probe))
        }
    }

    mutating func setState(_ state: PingEngine.Probe.State, ofProbe number: Int) {
        let slot = number & 0xffff
        guard slot < slots.count, slots[slot].number == number else { return }
        slots[slot].probe.state = state
    }
}

extension ReceivedDatagram {
    /// Kernel receive time minus the send time, both CLOCK_REALTIME. A clock step in
    /// between would give a negative or absurd time: then the monotonic times decide.
    @inline(__always)
    func roundTrip(sentRealtime: RealtimeInstant?, sentMonotonic: MonotonicInstant) -> TimeSpan {
        let monotonic = max(.zero, monotonicTime - sentMonotonic)
        guard let stamp = kernelTimestamp, let sentRealtime else { return monotonic }
        let realtime = stamp - sentRealtime
        // The kernel stamps before user space wakes: the realtime figure can only be smaller.
        if realtime < .zero || realtime > monotonic + .milliseconds(1) { return monotonic }
        return realtime
    }
}
