#if canImport(Glibc)
import Glibc
#endif

/// Many getaddrinfo calls, each bounded by the same timeout, on a small pool of detached
/// threads rather than a thread per name: `reach host` with a list of names.
///
/// getaddrinfo blocks and cannot be cancelled, so a name that hangs in DNS holds its thread
/// until the resolver gives up (resolv.conf(5): `timeout` × `attempts` per server, 10 s by
/// default). Two rules keep such names from delaying the others: a lookup still running
/// `timeout` after it started is given up (no answer) and its thread abandoned
/// and replaced (the abandoned thread finishes its call, finds its lookup given up, and
/// ends); and when every thread has been held longer than `stall` with names
/// still queued, as many more start as are held (at most `initialThreads` at a time). At
/// most `maximumThreads` run at once, abandoned ones included. Completions are counted through one pipe, so the caller waits in poll(2).
// @unchecked: every mutable field is read and written under `lock`.
public final class HostResolutionPool: @unchecked Sendable {
    private let lock = Lock()
    private let names: [String]
    private let family: AddressFamily?
    private let timeout: TimeSpan
    /// Readable when a lookup has finished.
    private let completions: Pipe
    private var outcomes: [ResolutionOutcome?]
    /// Lookups given up: their answer, if it ever comes, is not taken.
    private var givenUp: [Bool]
    private var nextName = 0
    private var finished = 0
    private var abandoned = false
    /// Per thread: idle, the lookup it runs and when that began, or abandoned.
    private var busy: [Work] = []
    private enum Work {
        case idle
        case resolving(name: Int, since: MonotonicInstant)
        case abandoned
    }
    /// Threads running, abandoned ones included.
    private var running = 0

    /// The pool's threads start at `initialThreads` (or fewer, for fewer names).
    public static let initialThreads = 8
    public static let maximumThreads = 64
    static let stall = TimeSpan.milliseconds(100)

    private init(names: [String], family: AddressFamily?, timeout: TimeSpan) throws(SystemCallError) {
        self.names = names
        self.family = family
        self.timeout = timeout
        completions = try Pipe()
        outcomes = [ResolutionOutcome?](repeating: nil, count: names.count)
        givenUp = [Bool](repeating: false, count: names.count)
    }

    /// Resolves every name, in the order given; nil for a name with no answer within
    /// `timeout` of its lookup's start. `family` nil asks for both A and AAAA.
    public static func resolve(_ names: [String], family: AddressFamily?, timeout: TimeSpan) throws(SystemCallError)
        -> [ResolutionOutcome?]
    {
        guard !names.isEmpty else { return [] }
        let pool = try HostResolutionPool(names: names, family: family, timeout: max(.zero, timeout))
        defer { pool.abandon() }
        return try pool.run()
    }

    private func run() throws(SystemCallError) -> [ResolutionOutcome?] {
        for _ in 0..<min(names.count, Self.initialThreads) { try startThread() }
        var drain = [UInt8](repeating: 0, count: 4096)
        while true {
            let now = MonotonicInstant.now()
            // Lookups past their time are given up, their threads replaced; a pool whose every
            // thread is held by a slow name grows by one.
            let (done, replace, wait): (Bool, Int, TimeSpan) = lock.withLock {
                var replace = 0
                var earliest = Self.stall
                var stalled = true
                var held = 0
                for slot in busy.indices {
                    switch busy[slot] {
                    case .abandoned:
                        continue
                    case .idle:
                        stalled = false
                    case .resolving(let name, let since):
                        if now - since >= timeout {
                            givenUp[name] = true
                            finished += 1
                            busy[slot] = .abandoned
                            replace += 1
                        } else {
                            earliest = min(earliest, since + timeout - now)
                            if now - since < Self.stall { stalled = false } else { held += 1 }
                        }
                    }
                }
                let queued = nextName < names.count
                if stalled && queued { replace += min(held, Self.initialThreads) }
                replace = queued ? max(0, min(replace, Self.maximumThreads - running)) : 0
                return (finished == names.count, replace, earliest)
            }
            if done { break }
            for _ in 0..<replace { try startThread() }
            let ready = try completions.read.wait(for: .readable, timeout: max(.milliseconds(1), wait))
            if ready.contains(.readable) {
                // Only a wake-up: the slots say what finished, and a failed read leaves the pipe readable for the next turn.
                _ = drain.withUnsafeMutableBytes { System.read(completions.read.rawValue, into: $0) }
            }
        }
        return lock.withLock { outcomes }
    }

    private func abandon() {
        lock.withLock { abandoned = true }
    }

    private func startThread() throws(SystemCallError) {
        let slot = lock.withLock {
            busy.append(.idle)
            running += 1
            return busy.count - 1
        }
        do {
            try DetachedThread.start { [self] in work(slot: slot) }
        } catch {
            lock.withLock { running -= 1 }
            throw error
        }
    }

    /// One thread: takes the next name until none is left, the pool is abandoned, or its
    /// lookup was given up.
    private func work(slot: Int) {
        while true {
            let taken: Int? = lock.withLock {
                guard !abandoned, nextName < names.count else {
                    busy[slot] = .abandoned
                    running -= 1
                    return nil
                }
                nextName += 1
                busy[slot] = .resolving(name: nextName - 1, since: .now())
                return nextName - 1
            }
            guard let index = taken else { return }
            let outcome = HostResolution.getaddrinfo(name: names[index], family: family)
            let (keepGoing, notify): (Bool, Bool) = lock.withLock {
                guard !givenUp[index] else {
                    // Given up while it ran: this thread was replaced, and ends here.
                    running -= 1
                    return (false, false)
                }
                outcomes[index] = outcome
                finished += 1
                busy[slot] = .idle
                return (true, !abandoned)
            }
            // Nobody drains the pipe of an abandoned pool: no byte that could fill it.
            if notify { System.writeByte(completions.write.rawValue, 1) }
            if !keepGoing { return }
        }
    }
}
