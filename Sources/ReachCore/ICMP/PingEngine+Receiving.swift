import ReachSystem

/// Replies and errors matched to probes, as both tools match them; what they count for
/// follows the configuration's rules.
extension PingEngine {
    func wire(_ family: AddressFamily) -> EchoWire { family == .ipv4 ? wire.ipv4 : wire.ipv6 }

    /// The echo identifier replies of `family` carry.
    public func identifier(for family: AddressFamily) -> UInt16 { wire(family).identifier }

    /// The slot of a probe of `family` sent with this sequence number, if any. With iputils'
    /// rules, after the first wrap only the last 120 probes (SimplePing), so a stale reply
    /// from 65,536 probes ago is not taken for a new one; fping's many targets keep more
    /// probes out than that.
    func probeSlot(_ sequence: UInt16, family: AddressFamily) -> Int? {
        let slot = Int(sequence)
        guard slot < slots.count, slots[slot].state != .free, targets[Int(slots[slot].target)].family == family else { return nil }
        if configuration.rules == .iputils, nextNumber > 0x10000, nextNumber - slots[slot].number > 120 { return nil }
        return slot
    }

    /// The number of the probe a sequence number of the first target's family stands for.
    func probeNumber(forSequence sequence: UInt16) -> Int? {
        probeSlot(sequence, family: targets[0].family).map { slots[$0].number }
    }

    private func probe(in slot: Int) -> PingProbe {
        PingProbe(target: Int(slots[slot].target), index: Int(slots[slot].index), sequence: UInt16(truncatingIfNeeded: slot))
    }

    /// A datagram from the socket of the first target's family.
    public mutating func receive(_ datagram: ReceivedDatagram) -> PingEvent? {
        receive(datagram, family: targets[0].family)
    }

    /// A datagram from the socket of `family`: a reply, an error quoting a probe (raw
    /// sockets), or something that is not ours. One datagram, one event at most: nil for a
    /// reply fping's rules discard.
    public mutating func receive(_ datagram: ReceivedDatagram, family: AddressFamily) -> PingEvent? {
        let wire = wire(family)
        // An echo reply, read in place: a flood's one datagram per echo.
        if let echo = wire.codec.echo(in: datagram.bytes, includesIPHeader: datagram.includesIPHeader),
            echo.type == wire.codec.echoReplyType
        {
            guard echo.identifier == wire.identifier else {
                return .unexpected(
                    UnexpectedPacket(
                        from: datagram.from, type: echo.type, code: echo.code, reason: "identifier \(echo.identifier), not ours"))
            }
            guard let slot = probeSlot(echo.sequence, family: family) else {
                return .unexpected(
                    UnexpectedPacket(
                        from: datagram.from, type: echo.type, code: echo.code, reason: "sequence \(echo.sequence) was not sent"))
            }
            return reply(slot: slot, echo: echo, datagram: datagram, codec: wire.codec)
        }
        switch ProbeQuote.read(datagram, codec: wire.codec, identifier: wire.identifier) {
        case .notOurs(let packet):
            return .unexpected(packet)
        case .quote(let quote):
            guard let slot = probeSlot(quote.sequence, family: family), quote.isAbout(targets[Int(slots[slot].target)]) else {
                return .unexpected(
                    UnexpectedPacket(
                        from: datagram.from, type: quote.type, code: quote.code, reason: "error quoting a probe that is not ours"))
            }
            return error(quote, slot: slot, codec: wire.codec)
        }
    }

    /// iputils times every reply with a good checksum, duplicates and late ones included;
    /// fping discards a reply slower than its timeout, or to a probe already given up on
    /// (wait_for_reply: its wait may not have been reported yet when the reply beats the
    /// clock reading).
    private mutating func reply(slot: Int, echo: ICMPCodec.Echo, datagram: ReceivedDatagram, codec: ICMPCodec) -> PingEvent? {
        let probe = slots[slot]
        let target = Int(probe.target)
        let iputils = configuration.rules == .iputils
        let rtt = datagram.roundTrip(sentRealtime: probe.sentRealtime, sentMonotonic: probe.sentMonotonic)
        let dataIntact = ByteComparison.equal(datagram.bytes[echo.dataStart...], payload)
        // ICMPv6 checksums need the pseudo-header: the kernel verified them. fping does not check.
        let corrupted =
            iputils && codec.checksumCoversMessageOnly
            && !ICMPCodec.checksumVerifies(echo, in: datagram.bytes, dataWordSum: dataIntact ? payloadWordSum : nil)
        let duplicate = !corrupted && probe.state == .answered
        if !iputils && !duplicate && (probe.state != .waiting || rtt > timeouts[target]) { return nil }
        let late = probe.state == .timedOut
        if !corrupted {
            statistics[target].record(roundTrip: rtt)
            if iputils { statistics[target].histogram.record(rtt) }
            statistics[target].noteAnswer(toProbe: probe.number, newest: nextNumber - 1)
        }
        if corrupted {
            statistics[target].corrupted += 1
        } else if duplicate {
            statistics[target].duplicates += 1
            statistics[target].receivedTotal += 1
        } else {
            statistics[target].received += 1
            statistics[target].receivedTotal += 1
            if probe.state == .waiting { inFlight -= 1 }
            slots[slot].state = .answered
            if !iputils {
                statistics[target].settle(roundTrip: rtt, index: Int(probe.index))
                // fping: a reply resets the target's timeout to the initial one. Targets with
                // their own periods have a count, so their timeouts never grew.
                if periods.isEmpty { timeouts[target] = configuration.timeout }
            }
        }
        return .reply(
            PingReply(
                probe: self.probe(in: slot), from: datagram.from, ttl: datagram.ttl ?? echo.ipTTL.map(Int.init), bytes: echo.length,
                roundTrip: rtt, duplicate: duplicate, late: late, corrupted: corrupted,
                differentAddress: datagram.from.bytes != targets[target].bytes, wrongData: !dataIntact))
    }

    /// An entry from the error queue of the socket of the first target's family.
    public mutating func receive(_ queued: QueuedError) -> PingEvent? {
        receive(queued, family: targets[0].family)
    }

    /// An entry from the error queue of the socket of `family` (datagram sockets): an ICMP
    /// error, or the kernel's own.
    public mutating func receive(_ queued: QueuedError, family: AddressFamily) -> PingEvent? {
        let codec = wire(family).codec
        let quote: ProbeQuote
        switch ProbeQuote.read(queued, codec: codec) {
        case .notOurs(let packet): return .unexpected(packet)
        case .quote(let read): quote = read
        }
        guard let slot = probeSlot(quote.sequence, family: family) else {
            return .unexpected(UnexpectedPacket(from: quote.from, reason: "error for sequence \(quote.sequence), not sent"))
        }
        // As iputils checks it (ping4_receive_error_msg): an error about a packet to another
        // address is not about our probe, even with our identifier and a sequence we sent.
        if let destination = quote.destination, !quote.isAbout(targets[Int(slots[slot].target)]) {
            return .unexpected(UnexpectedPacket(from: quote.from, reason: "error for a packet to \(destination), not ours"))
        }
        return error(quote, slot: slot, codec: codec)
    }

    /// An error about one of our probes. iputils counts it and settles the probe; fping
    /// shows it and counts nothing: the probe is lost when its time is up, unless a reply
    /// comes first.
    private mutating func error(_ quote: ProbeQuote, slot: Int, codec: ICMPCodec) -> PingEvent {
        let probe = self.probe(in: slot)
        let target = probe.target
        let iputils = configuration.rules == .iputils
        if quote.origin == .local, let errno = quote.errno {
            if iputils {
                statistics[target].errors += 1
                resolve(slot, as: .errored)
            }
            return .localError(probe, error: errno, info: quote.info)
        }
        if iputils {
            statistics[target].errors += 1
            // iputils acknowledges an ICMP error (and so may print "pipe N") for IPv4 only:
            // ping/ping.c ping4_receive_error_msg calls acknowledge(), ping/ping6_common.c
            // ping6_receive_error_msg does not (its raw socket's ICMP6_FILTER passes only replies).
            if targets[target].family == .ipv4 { statistics[target].noteAnswer(toProbe: slots[slot].number, newest: nextNumber - 1) }
            resolve(slot, as: .errored)
        }
        return .icmpError(
            PingICMPError(
                probe: probe, from: quote.from ?? targets[target], type: quote.type, code: quote.code, info: quote.info,
                text: codec.family.describe(type: quote.type, code: quote.code, info: quote.info)))
    }

    mutating func resolve(_ slot: Int, as state: Slot.State) {
        guard slots[slot].state == .waiting else { return }
        slots[slot].state = state
        inFlight -= 1
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
