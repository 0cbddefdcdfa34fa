import ReachSystem

/// traceroute 2.1.2's probe table and its scheduling (traceroute.c do_it), as a pure value
/// driven by the engine with the time: up to `simultaneous` probes in flight from the
/// first unsettled one, each hop's probes settled in order, a probe expired after its
/// wait (TraceWaits), and no probe past the hop of a final answer.
public struct TraceSchedule: Sendable {
    struct Slot: Sendable {
        var sentAt: MonotonicInstant?
        var answer: TraceAnswer?
        /// Answered or expired (traceroute's `done`).
        var done = false
    }

    let firstHop: Int
    let probesPerHop: Int
    let simultaneous: Int
    let waits: TraceWaits
    private(set) var slots: [Slot]
    public var slotCount: Int { slots.count }
    /// The first probe not yet handed on, and one past the last that may be sent.
    private(set) var start: Int
    private(set) var end: Int

    public init(settings: TraceSettings) {
        firstHop = settings.firstHop
        probesPerHop = settings.probesPerHop
        simultaneous = settings.simultaneous
        waits = settings.waits
        slots = Array(repeating: Slot(), count: settings.maxHops * settings.probesPerHop)
        start = (settings.firstHop - 1) * settings.probesPerHop
        end = slots.count
    }

    /// What one turn of the loop decided: probes to send now (already marked sent at the
    /// turn's time), probes settled in order, and when to look again (nil: finished).
    public struct Turn: Equatable, Sendable {
        public var send: [Int] = []
        public var settled: [TraceProbeOutcome] = []
        public var wake: MonotonicInstant?
    }

    public var isFinished: Bool { start >= end }

    /// The hop and index within the hop of probe `slot` (its sequence in the table).
    public func position(of slot: Int) -> (hop: Int, index: Int) { (slot / probesPerHop + 1, slot % probesPerHop) }

    /// One pass over the table at `now`, as do_it's inner loop.
    public mutating func turn(now: MonotonicInstant) -> Turn {
        var turn = Turn()
        var inFlight = 0
        var slot = start
        while slot < end {
            if slot == start, !slots[slot].done, let sent = slots[slot].sentAt {
                let expiry = sent + wait(for: slot)
                if expiry > now {
                    turn.wake = expiry
                } else {
                    slots[slot].done = true
                    takeFinal(into: slot)
                }
            }
            if slots[slot].done {
                if slot == start {
                    turn.settled.append(outcome(of: slot))
                    start += 1
                }
                if slots[slot].answer?.verdict.isFinal == true { end = min(end, (slot / probesPerHop + 1) * probesPerHop) }
                slot += 1
                continue
            }
            if slots[slot].sentAt == nil {
                slots[slot].sentAt = now
                turn.send.append(slot)
            }
            if turn.wake == nil, let sent = slots[slot].sentAt { turn.wake = sent + wait(for: slot) }
            inFlight += 1
            if inFlight >= simultaneous { break }
            slot += 1
        }
        if isFinished { turn.wake = nil }
        return turn
    }

    /// Corrects a probe's send time to when it really left (after the turn that chose it).
    public mutating func markSent(_ slot: Int, at instant: MonotonicInstant) {
        guard slots.indices.contains(slot) else { return }
        slots[slot].sentAt = instant
    }

    /// A send that failed: the probe is settled without an answer.
    public mutating func markUnsent(_ slot: Int) {
        guard slots.indices.contains(slot) else { return }
        slots[slot].done = true
    }

    /// An answer for probe `slot` received at `instant`; false when the slot is unknown,
    /// unsent or already settled (a duplicate, or an answer after its wait).
    @discardableResult
    public mutating func answer(
        _ slot: Int, at instant: MonotonicInstant, _ make: (TimeSpan) -> TraceAnswer
    ) -> Bool {
        guard slots.indices.contains(slot), !slots[slot].done, let sent = slots[slot].sentAt else { return false }
        slots[slot].answer = make(instant - sent)
        slots[slot].done = true
        return true
    }

    /// Settles every probe left unsettled (a deadline or an interruption), in order.
    public mutating func abandon() -> [TraceProbeOutcome] {
        var settled: [TraceProbeOutcome] = []
        while start < end && (slots[start].sentAt != nil || slots[start].done) {
            settled.append(outcome(of: start))
            start += 1
        }
        end = start
        return settled
    }

    /// traceroute.c check_expired: an expired probe followed by an annotated final answer
    /// ("* * !H" a hop too far) takes that answer when it belongs here: a router that
    /// rate-limits its unreachables answers only the later probes. It does when an earlier
    /// probe of this hop was final, when the final one is of this hop, or when its router
    /// answered an earlier hop. (traceroute's last guess, from the answer's IP TTL, is not
    /// made: the error queue does not give that TTL.)
    private mutating func takeFinal(into slot: Int) {
        let hopStart = slot - slot % probesPerHop
        for earlier in hopStart..<slot where !slots[earlier].done || slots[earlier].answer?.verdict.isFinal != true { return }
        var next = slot + 1
        while next < slots.count, slots[next].sentAt != nil, !slots[next].done { next += 1 }
        guard next < slots.count, slots[next].done, let final = slots[next].answer, case .stopped = final.verdict else { return }
        let sameHop = slot > hopStart || slot % probesPerHop + (next - slot) < probesPerHop
        guard sameHop || slots[..<slot].contains(where: { $0.answer?.responder == final.responder }) else { return }
        slots[slot].answer = final
        // The slot it leaves is spent: it expires unanswered when its turn comes, never sent again.
        slots[next] = Slot(sentAt: MonotonicInstant(nanoseconds: 0))
    }

    private func outcome(of slot: Int) -> TraceProbeOutcome {
        let (hop, index) = position(of: slot)
        return TraceProbeOutcome(hop: hop, index: index, answer: slots[slot].answer)
    }

    /// get_timeout: an answered probe of the same hop, else the first answered one sent
    /// after this one.
    private func wait(for slot: Int) -> TimeSpan {
        let hopStart = slot - slot % probesPerHop
        let sameHop = (hopStart..<hopStart + probesPerHop).lazy.compactMap { self.slots[$0].answer?.roundTrip }.first
        var later: TimeSpan?
        var next = slot + 1
        while later == nil, next < slots.count, slots[next].sentAt != nil {
            later = slots[next].answer?.roundTrip
            next += 1
        }
        return waits.wait(sameHop: sameHop, later: later)
    }
}
