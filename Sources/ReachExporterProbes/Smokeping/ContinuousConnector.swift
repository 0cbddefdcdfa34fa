import ReachCore
import ReachSystem

/// `protocol: tcp`, which smokeping_prober does not have: each target's TCP handshake timed
/// from connect(2) to its completion (SYN to SYN-ACK; the kernel's ACK follows at once), no
/// data sent, then closed. One thread for every TCP target of a source address, every
/// handshake in flight in one poll(2); its events are the ping engine's, so the same series
/// count them (a refused connection is no response; a route refusal a send error).
public final class ContinuousConnector: @unchecked Sendable {
    /// One address and port, probed every `period`, counted in `series`.
    public struct Target: Equatable, Sendable {
        public var address: IPAddress
        public var port: UInt16
        public var pace: PingEngine.Pace
        public var series: Int

        public init(address: IPAddress, port: UInt16, pace: PingEngine.Pace, series: Int) {
            self.address = address
            self.port = port
            self.pace = pace
            self.series = series
        }
    }

    /// One handshake in flight.
    final class Attempt {
        let descriptor: FileDescriptor
        let probe: PingProbe
        let started: MonotonicInstant

        init(descriptor: consuming FileDescriptor, probe: PingProbe, started: MonotonicInstant) {
            self.descriptor = descriptor
            self.probe = probe
            self.started = started
        }
    }

    private let source: IPAddress?
    private let lock = Lock()
    private var pending: [Target]?

    public init(source: IPAddress?) {
        self.source = source
    }

    public func start(reportingTo observer: ContinuousPingObserver) throws(SystemCallError) {
        try DetachedThread.start { [self] in run(observer) }
    }

    /// Probes `targets` from the loop's next turn (a quarter second at most).
    public func replace(with targets: [Target]) {
        lock.withLock { pending = targets }
    }

    private func takePending() -> [Target]? {
        lock.withLock {
            defer { pending = nil }
            return pending
        }
    }

    private func run(_ observer: ContinuousPingObserver) {
        var targets: [Target] = []
        var due: [MonotonicInstant] = []
        var sent: [Int] = []
        var attempts: [Attempt] = []
        while true {
            if let next = takePending() {
                // The first handshakes spread over each target's period, as the pings'.
                let now = MonotonicInstant.now()
                let count = Int64(max(1, next.count))
                due = next.enumerated().map { now + TimeSpan(nanoseconds: $1.pace.period.nanoseconds / count * Int64($0)) }
                targets = next
                sent = [Int](repeating: 0, count: next.count)
                attempts = []
            }
            let now = MonotonicInstant.now()
            for index in targets.indices where due[index] <= now {
                let probe = PingProbe(target: index, index: sent[index], sequence: 0)
                sent[index] += 1
                while due[index] <= now { due[index] += targets[index].pace.period }
                if let attempt = begin(probe, toward: targets[index], observer: observer) { attempts.append(attempt) }
            }
            attempts = wait(attempts, targets: targets, until: min(due.min() ?? now + .seconds(1), now + .milliseconds(250)), observer)
        }
    }

    /// A non-blocking connect: pending, or settled at once (a route refusal is a send
    /// error; an instant connection, on loopback, a response).
    private func begin(_ probe: PingProbe, toward target: Target, observer: ContinuousPingObserver) -> Attempt? {
        let series = target.series
        let descriptor: FileDescriptor
        do throws(SystemCallError) {
            descriptor = try FileDescriptor.socket(target.address.family, .stream)
        } catch {
            observer.observe(.sendFailed(probe, error: error.errno), series: series)
            return nil
        }
        if let source, let refusal = descriptor.bind(to: source) {
            observer.observe(.sendFailed(probe, error: refusal), series: series)
            return nil
        }
        let started = MonotonicInstant.now()
        let failure = descriptor.connect(to: target.address, port: target.port)
        if let failure, failure != .operationInProgress {
            observer.observe(.sendFailed(probe, error: failure), series: series)
            return nil
        }
        observer.observe(.sent(probe, bytes: 0), series: series)
        guard failure == nil else { return Attempt(descriptor: descriptor, probe: probe, started: started) }
        let reply = PingReply(probe: probe, from: target.address, ttl: nil, bytes: 0, roundTrip: MonotonicInstant.now() - started)
        observer.observe(.reply(reply), series: series)
        return nil
    }

    /// Waits for handshakes to finish until `deadline`; those that did are counted (a
    /// connection a response, a refusal nothing), those past their timeout lost. The rest.
    private func wait(
        _ attempts: [Attempt], targets: [Target], until deadline: MonotonicInstant, _ observer: ContinuousPingObserver
    ) -> [Attempt] {
        let entries = attempts.map { (descriptor: $0.descriptor.number, events: PollEvents.writable) }
        let events = (try? Poll.wait(entries, timeout: max(.zero, deadline - .now()))) ?? []
        let now = MonotonicInstant.now()
        var waiting: [Attempt] = []
        for (index, attempt) in attempts.enumerated() {
            let target = targets[attempt.probe.target]
            if index < events.count, !events[index].isEmpty {
                if (try? attempt.descriptor.pendingError())?.rawValue == 0 {
                    let reply = PingReply(probe: attempt.probe, from: target.address, ttl: nil, bytes: 0, roundTrip: now - attempt.started)
                    observer.observe(.reply(reply), series: target.series)
                }
            } else if now - attempt.started >= target.pace.timeout {
                observer.observe(.timedOut(attempt.probe), series: target.series)
            } else {
                waiting.append(attempt)
            }
        }
        return waiting
    }
}
