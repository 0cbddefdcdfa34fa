import ReachSystem

/// One continuous target's last hour, in steps, for SmokePing's graph: per step the requests
/// sent, the answers counted, and the round trips' spread as quantiles (SmokePing's "smoke"
/// draws each step's pings sorted, its line the median).
///
/// Bounded: `kept` finished steps of fixed size (about 100 bytes each, its 11 quantiles on the
/// heap: 60 steps are 6 KB a target), and the round trips of the two steps still open (a reply
/// counts in the step its request left in, and may come after that step ended), at most
/// `Step.openLimit` each (4 bytes a round trip).
public struct LatencyTimeline: Sendable {
    /// One step's figures. Round trips are whole microseconds (a UInt32 holds 71 minutes).
    public struct Step: Sendable, Equatable {
        /// The step's number: its start is `index × step length` since the epoch.
        public var index: Int64
        public var sent: UInt32 = 0
        public var received: UInt32 = 0
        /// The answered round trips' quantiles: minimum, 10th ... 90th percentile, maximum
        /// (11 values); empty when nothing was answered.
        public var quantiles: [UInt32] = []

        /// Round trips kept of an open step: a 250 ms interval gives 240 a minute; beyond this
        /// one in every few is kept, so the quantiles stay a fair sample.
        static let openLimit = 1024
        static let quantileCount = 11

        public var loss: Double { sent == 0 ? 0 : Double(sent - min(received, sent)) / Double(sent) }
        public var median: UInt32? { quantiles.isEmpty ? nil : quantiles[quantiles.count / 2] }
    }

    /// An open step's round trips, before its quantiles are taken.
    private struct OpenStep: Sendable {
        var step: Step
        var roundTrips: [UInt32] = []
        /// Answers seen, kept or not: every `stride`-th is kept once the buffer is full.
        var seen = 0

        mutating func add(_ microseconds: UInt32) {
            step.received += 1
            seen += 1
            if roundTrips.count < Step.openLimit {
                roundTrips.append(microseconds)
            } else {
                // Reservoir-like thinning: replace in turn, so late answers count as early ones.
                roundTrips[seen % Step.openLimit] = microseconds
            }
        }

        /// The step with its quantiles taken (nearest rank over the sorted round trips).
        var finished: Step {
            var done = step
            guard !roundTrips.isEmpty else { return done }
            let sorted = roundTrips.sorted()
            done.quantiles = (0..<Step.quantileCount).map { rank in
                sorted[(sorted.count - 1) * rank / (Step.quantileCount - 1)]
            }
            return done
        }
    }

    public let stepLength: TimeSpan
    public let kept: Int
    private var finished: [Step] = []
    /// The ring's next slot once `finished` is full.
    private var next = 0
    private var previous: OpenStep?
    private var current: OpenStep?

    /// Steps of `stepLength` (at least a second), `kept` of them after the two open ones.
    public init(stepLength: TimeSpan = .seconds(60), kept: Int = 60) {
        self.stepLength = max(stepLength, .seconds(1))
        self.kept = max(kept, 1)
    }

    /// The step a moment falls in.
    public func index(of time: RealtimeInstant) -> Int64 {
        let nanoseconds = time.nanoseconds
        let length = stepLength.nanoseconds
        return nanoseconds >= 0 ? nanoseconds / length : (nanoseconds - length + 1) / length
    }

    /// A request left at `time`.
    public mutating func sent(at time: RealtimeInstant) {
        advance(to: index(of: time))
        current?.step.sent += 1
    }

    /// The answer to a request that left at `sentAt`, after `roundTrip`. An answer to a request
    /// older than the two open steps is not drawn (its step is already summed up).
    public mutating func received(_ roundTrip: TimeSpan, sentAt: RealtimeInstant, now: RealtimeInstant) {
        advance(to: index(of: now))
        let microseconds = UInt32(clamping: max(roundTrip.microseconds, 0))
        let step = index(of: sentAt)
        if current?.step.index == step {
            current?.add(microseconds)
        } else if previous?.step.index == step {
            previous?.add(microseconds)
        }
    }

    /// The steps from `first` on, oldest first, the open ones included (the newest is partial);
    /// a step in which nothing was sent is left out.
    public func steps(from first: Int64, now: RealtimeInstant) -> [Step] {
        var copy = self
        copy.advance(to: index(of: now))
        let ring = copy.finished.count < copy.kept ? copy.finished : Array(copy.finished[copy.next...] + copy.finished[..<copy.next])
        let open = [copy.previous, copy.current].compactMap { $0?.finished }
        return (ring + open).filter { $0.index >= first && $0.sent > 0 }
    }

    /// Moves the open steps on to `index`: the step before it stays open for late answers, any
    /// older one is summed up into the ring.
    private mutating func advance(to index: Int64) {
        guard let open = current else {
            current = OpenStep(step: Step(index: index))
            return
        }
        guard index > open.step.index else { return }
        if let previous { keep(previous.finished) }
        if index == open.step.index + 1 {
            previous = open
        } else {
            keep(open.finished)
            previous = nil
        }
        current = OpenStep(step: Step(index: index))
    }

    private mutating func keep(_ step: Step) {
        guard step.sent > 0 else { return }
        if finished.count < kept {
            finished.append(step)
        } else {
            finished[next] = step
            next = (next + 1) % kept
        }
    }
}
