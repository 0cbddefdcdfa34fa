import ReachSystem

/// Runs passes of a trace over a transport: traceroute's schedule (TraceSchedule) with the
/// hop limit as the variable. One pass is traceroute's run; `reach trace --report` runs
/// several over one transport (mtr's rounds), the exporter one with a deadline.
public final class TraceEngine {
    public let settings: TraceSettings
    public let family: AddressFamily
    private let transport: TraceTransport
    private let clock: () -> MonotonicInstant
    /// Sequences go on rising across passes, so a late answer to an earlier pass is not
    /// taken for one of this pass.
    private var nextSequence: UInt16 = 1

    public init(
        settings: TraceSettings, family: AddressFamily, transport: TraceTransport,
        clock: @escaping () -> MonotonicInstant = MonotonicInstant.now
    ) {
        self.settings = settings
        self.family = family
        self.transport = transport
        self.clock = clock
    }

    /// One pass: probes hop by hop until the destination answers, an error ends it, the
    /// maximum hop is probed, or `deadline` passes. `onEvent` sees each probe as it settles.
    public func pass(deadline: MonotonicInstant? = nil, _ onEvent: (TraceEvent) -> Void) throws -> TraceResult {
        var run = PassState(schedule: TraceSchedule(settings: settings), base: nextSequence)
        let probes = run.schedule.slotCount
        nextSequence = nextSequence &+ UInt16(truncatingIfNeeded: probes)
        while !run.schedule.isFinished {
            let now = clock()
            if let deadline, now >= deadline { return finish(&run, cutShort: true, onEvent) }
            let turn = run.schedule.turn(now: now)
            let refused = try send(turn.send, in: &run, onEvent)
            run.settle(turn.settled, onEvent)
            if run.schedule.isFinished { break }
            // A probe the kernel refused is settled at the next turn, without waiting.
            if refused { continue }
            let until = [turn.wake, deadline].compactMap { $0 }.min()
            if try !receive(until: until, into: &run) { return finish(&run, cutShort: true, onEvent) }
        }
        return finish(&run, cutShort: false, onEvent)
    }

    /// Sends the turn's probes; true when the kernel refused one.
    private func send(_ slots: [Int], in run: inout PassState, _ onEvent: (TraceEvent) -> Void) throws -> Bool {
        var refused = false
        for slot in slots {
            let (hop, index) = run.schedule.position(of: slot)
            let sentAt = clock()
            if let refusal = try transport.send(sequence: run.sequence(of: slot), hopLimit: hop) {
                run.schedule.markUnsent(slot)
                onEvent(.sendFailed(hop: hop, index: index, refusal))
                refused = true
            } else {
                run.schedule.markSent(slot, at: sentAt)
            }
        }
        return refused
    }

    /// Waits for answers until `until`, then takes every answer already queued before the
    /// next turn expires a probe whose answer is waiting to be read. False: interrupted.
    private func receive(until: MonotonicInstant?, into run: inout PassState) throws -> Bool {
        var taken = 0
        var deadline = until
        let packetBytes = settings.packetBytes(for: family)
        repeat {
            taken = 0
            let going = try transport.wait(until: deadline) { reply in
                run.take(reply, family: family, packetBytes: packetBytes)
                taken += 1
            }
            if !going { return false }
            deadline = clock()
        } while taken > 0
        return true
    }

    private func finish(_ run: inout PassState, cutShort: Bool, _ onEvent: (TraceEvent) -> Void) -> TraceResult {
        if cutShort { run.settle(run.schedule.abandon(), onEvent) }
        return TraceResult(outcomes: run.outcomes, stop: cutShort ? .cutShort : run.stop(maxHops: settings.maxHops))
    }

    /// One pass's table, its first sequence, and what has been handed on.
    struct PassState {
        var schedule: TraceSchedule
        let base: UInt16
        var outcomes: [TraceProbeOutcome] = []

        func sequence(of slot: Int) -> UInt16 { base &+ UInt16(truncatingIfNeeded: slot) }

        mutating func take(_ reply: TraceReply, family: AddressFamily, packetBytes: Int) {
            let slot = Int(reply.sequence &- base)
            schedule.answer(slot, at: reply.receivedAt) { roundTrip in
                TraceAnswer(
                    responder: reply.responder, roundTrip: roundTrip, icmpType: reply.icmpType, icmpCode: reply.icmpCode,
                    verdict: reply.verdict(in: family), quote: reply.quote, quoteOffset: reply.quoteOffset,
                    extensions: reply.extensions(packetBytes: packetBytes, family: family))
            }
        }

        mutating func settle(_ settled: [TraceProbeOutcome], _ onEvent: (TraceEvent) -> Void) {
            for outcome in settled {
                outcomes.append(outcome)
                onEvent(.probe(outcome))
            }
        }

        func stop(maxHops: Int) -> TraceStop {
            for outcome in outcomes {
                switch outcome.answer?.verdict {
                case .destination?: return .reachedDestination(hop: outcome.hop)
                case .stopped(let annotation)?: return .stopped(annotation, hop: outcome.hop)
                default: continue
                }
            }
            return .maxHopsReached(maxHops)
        }
    }
}
