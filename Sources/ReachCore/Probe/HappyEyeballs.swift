import ReachSystem

/// `reach host --connect`: a `HappyEyeballsRace` over real sockets, the connects begun
/// without waiting and the ones in flight polled together. Only the connect is measured: the
/// winner is closed as soon as it has connected, the others when it wins.
public enum HappyEyeballs {
    /// Races connections to `port` until one connects, every address failed, or `timeout`
    /// passed (what is still in flight then timed out).
    public static func race(to addresses: [IPAddress], port: UInt16, timeout: TimeSpan) throws -> HappyEyeballsRace {
        let start = MonotonicInstant.now()
        let deadline = start + timeout
        var race = HappyEyeballsRace(addresses: addresses, start: start)
        // An attempt's connection while it is in flight, by attempt index; closed when dropped.
        var connections: [TCPConnection?] = []
        while !race.isOver {
            let now = MonotonicInstant.now()
            if now >= deadline {
                race.timeOut(at: now)
                break
            }
            if race.nextAttemptDue(at: now) {
                let index = race.started(at: now)
                connections.append(nil)
                switch try TCPConnection.start(to: race.order[index], port: port) {
                case .inProgress(let connection): connections[index] = connection
                case .finished(let outcome): race.finished(index, result(outcome), at: .now())
                }
                continue
            }
            try awaitAttempts(&race, &connections, until: min(deadline, race.nextAttemptDeadline ?? deadline))
        }
        return race
    }

    /// One poll over the attempts in flight, until one of them ends or `until`; each that
    /// ended is given its outcome.
    private static func awaitAttempts(_ race: inout HappyEyeballsRace, _ connections: inout [TCPConnection?],
                                      until: MonotonicInstant) throws {
        let waiting = race.inFlight.filter { connections[$0] != nil }
        var entries: [(descriptor: FileDescriptor.Number, events: PollEvents)] = []
        for index in waiting {
            if let connection = connections[index] { entries.append((connection.readinessDescriptor, .writable)) }
        }
        let ready = try Poll.wait(entries, timeout: until.remaining(from: .now()))
        let now = MonotonicInstant.now()
        for (offset, index) in waiting.enumerated() where !ready[offset].isEmpty {
            guard let connection = connections[index] else { continue }
            race.finished(index, result(try connection.finishConnect()), at: now)
            connections[index] = nil
        }
        if race.winner != nil { connections = connections.map { _ in nil } }
    }

    static func result(_ outcome: TCPConnection.ConnectOutcome) -> HappyEyeballsRace.Result {
        switch outcome {
        case .connected: .connected
        case .refused: .refused
        case .unreachable(let errno): .unreachable(errno.description)
        case .routeRefused(let errno): .routeRefused(UnreachableReason.describe(refusal: errno))
        case .timedOut: .timedOut
        case .sourceRefused(.address(let errno)), .sourceRefused(.interface(let errno)): .unreachable(errno.description)
        }
    }
}
