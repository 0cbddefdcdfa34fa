import ReachSystem

/// A run that does not end: every target probed at its own period, for as long as the
/// exporter serves (smokeping_prober's job). fping's rules (one sequence space, a reply
/// slower than its timeout discarded, a refused send lost), with each target's period and
/// timeout its own, and first probes spread over the period rather than sent at once.
extension PingEngine {
    /// One target's pace in a continuous run.
    public struct Pace: Equatable, Sendable {
        public var period: TimeSpan
        /// How long a probe may wait for its reply; a later reply is not counted.
        public var timeout: TimeSpan

        public init(period: TimeSpan, timeout: TimeSpan) {
            self.period = period
            self.timeout = timeout
        }
    }

    /// `paces`: one per target. Target i's first probe is due at `start` plus i/n of its
    /// period, so n targets of one period go out evenly spread, not in one burst.
    /// `firstNumber`: the number of the first probe, so that a run replacing another on the
    /// same sockets does not take a late reply to the old run for one to the new.
    public init(
        continuous targets: [IPAddress], paces: [Pace], identifiers: (ipv4: UInt16, ipv6: UInt16),
        configuration: PingConfiguration, start: MonotonicInstant, firstNumber: Int
    ) {
        precondition(paces.count == targets.count, "one pace per target")
        var configuration = configuration
        configuration.rules = .fping
        configuration.count = Int(Int32.max)
        self.init(targets: targets, identifiers: identifiers, configuration: configuration)
        self.firstNumber = firstNumber
        due = []
        periods = paces.map(\.period)
        timeouts = paces.map(\.timeout)
        let count = Int64(max(1, targets.count))
        for (target, pace) in paces.enumerated() {
            let offset = TimeSpan(nanoseconds: pace.period.nanoseconds / count * Int64(target))
            dueHeap.push(start + offset, slot: target, serial: 0)
        }
    }

    /// The number the next probe will carry, for a run that replaces this one.
    public var followingNumber: Int { nextNumber }

    /// When the next probe is due by its target's schedule; nil when none is queued.
    var nextDueTime: MonotonicInstant? {
        if !periods.isEmpty { return dueHeap.first?.time }
        return dueHead < due.count ? due[dueHead].time : nil
    }

    /// The earliest probe due among targets of their own periods; the target's next is
    /// queued one period after this one was due (not after it went), so a late loop does
    /// not drift the schedule.
    mutating func takeOwnPeriodDue() -> (target: Int, index: Int) {
        guard let entry = dueHeap.first else { preconditionFailure("takeDue with nothing due") }
        dueHeap.removeFirst()
        if let count = configuration.count, entry.serial + 1 < count {
            dueHeap.push(entry.time + periods[entry.slot], slot: entry.slot, serial: entry.serial + 1)
        }
        return (entry.slot, entry.serial)
    }
}
