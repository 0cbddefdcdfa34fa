import ReachSystem

/// Timeouts, retries and the end of the run.
extension PingEngine {
    /// Reports the probes whose wait is over at `now` and, with fping's rules and no count,
    /// queues the target's next try (its retries, each waiting `backoff` times longer); then
    /// the end of the run when it has come.
    public mutating func advance(now: MonotonicInstant) -> [PingEvent] {
        guard !isFinished else { return [] }
        var events: [PingEvent] = []
        while let top = deadlines.first {
            let current = isWaiting(top.slot, number: top.serial)
            // Entries of probes settled since are dropped as they come up, due or not.
            guard !current || top.time <= now else { break }
            deadlines.removeFirst()
            if current { events.append(timeOut(top.slot, now: now)) }
        }
        if let end = endTime(), end <= now { finish(into: &events) }
        return events
    }

    private func isWaiting(_ slot: Int, number: Int) -> Bool {
        slots[slot].number == number && slots[slot].state == .waiting
    }

    private mutating func timeOut(_ slot: Int, now: MonotonicInstant) -> PingEvent {
        resolve(slot, as: .timedOut)
        let target = Int(slots[slot].target)
        let index = Int(slots[slot].index)
        if configuration.rules == .fping {
            statistics[target].settleLost(index: index)
            let counters = statistics[target]
            if configuration.count == nil, counters.received == 0, counters.sent < configuration.tries {
                timeouts[target] = TimeSpan(nanoseconds: Int64(Double(timeouts[target].nanoseconds) * configuration.backoff))
                due.append((now, Int32(target), Int32(counters.sent)))
            }
        }
        return .timedOut(PingProbe(target: target, index: index, sequence: UInt16(truncatingIfNeeded: slot)))
    }

    /// Ends the run now (Ctrl-C, stop): with iputils' rules outstanding probes are reported
    /// timed out; fping leaves them uncounted.
    public mutating func stop() -> [PingEvent] {
        guard !isFinished else { return [] }
        var events: [PingEvent] = []
        finish(into: &events)
        return events
    }

    private mutating func finish(into events: inout [PingEvent]) {
        if configuration.rules == .iputils {
            // In send order: every probe waits as long, so deadlines come in send order.
            while let top = deadlines.first {
                deadlines.removeFirst()
                guard isWaiting(top.slot, number: top.serial) else { continue }
                resolve(top.slot, as: .timedOut)
                events.append(.timedOut(probe(waitingIn: top.slot)))
            }
        }
        isFinished = true
        events.append(.finished(statistics))
    }

    private func probe(waitingIn slot: Int) -> PingProbe {
        PingProbe(target: Int(slots[slot].target), index: Int(slots[slot].index), sequence: UInt16(truncatingIfNeeded: slot))
    }

    /// When the run ends by itself.
    ///
    /// iputils' rules, as it decides it (ping_common.c main_loop and schedule_exit): `count`
    /// answers (replies or errors); with -w any error, or the deadline; after the last
    /// probe, twice the longest round trip (at least one interval) when a reply came, else
    /// the per-probe timeout. As in iputils, -W does not shorten the wait once replies have
    /// come: a reply slower than -W is reported late, and still counted, rather than cut off
    /// by the end of the run.
    ///
    /// fping's: nothing left to send or wait for, or the deadline.
    public func endTime() -> MonotonicInstant? {
        if isFinished { return nil }
        guard configuration.rules == .iputils else {
            if nextDueTime == nil && inFlight == 0 { return .atOnce }
            if let deadline = configuration.deadline, let start = startTime { return start + deadline }
            return nil
        }
        guard let start = startTime else { return nil }
        var received = 0
        var errors = 0
        var longest: Int64 = 0
        for counters in statistics {
            received += counters.received
            errors += counters.errors
            longest = max(longest, counters.maximumMicroseconds)
        }
        if let total = probesPerRun, received + errors >= total { return .atOnce }
        if let deadline = configuration.deadline {
            if errors > 0 { return .atOnce }
            return start + deadline
        }
        guard hasSentAll, let last = lastSendTime else { return nil }
        if received > 0 {
            return last + max(TimeSpan(nanoseconds: longest * 2000), configuration.interval)
        }
        return last + configuration.timeout
    }

    /// The next instant anything happens by itself: a probe due, a wait over, the end.
    public func nextWakeTime() -> MonotonicInstant? {
        var wake = nextSendTime()
        if let time = deadlines.first?.time { wake = min(wake ?? time, time) }
        if let time = endTime() { wake = min(wake ?? time, time) }
        return wake
    }
}
