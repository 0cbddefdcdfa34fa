#if canImport(Glibc)
import Glibc
#endif

/// Many getaddrinfo calls under one deadline, on a small pool of detached threads rather
/// than a thread per name: `reach host` with a list of names.
///
/// getaddrinfo blocks and cannot be cancelled, so a name that hangs in DNS holds its thread
/// until the resolver gives up (resolv.conf(5): `timeout` × `attempts` per server, 10 s by
/// default). Two rules keep such names from delaying the others: every lookup shares one
/// deadline, after which the waiting caller stops and the threads are abandoned (each
/// finishes its call, finds the pool abandoned and ends); and when every thread has been
/// held longer than `stallMilliseconds` with names still queued, one more thread starts, up
/// to `maximumThreads`. Completions are counted through one pipe, so the caller waits in
/// poll(2), not on a thread per name.
// @unchecked: every mutable field is read and written under `lock`.
public final class HostResolutionPool: @unchecked Sendable {
    private let lock = Lock()
    private let names: [String]
    private let family: AddressFamily?
    private let readDescriptor: Int32
    private let writeDescriptor: Int32
    private var outcomes: [ResolutionOutcome?]
    private var nextName = 0
    private var finished = 0
    private var abandoned = false
    /// When each thread's current lookup began (monotonic ms), nil while it has none.
    private var busySince: [Int64?] = []

    /// The pool's threads start at `initialThreads` (or fewer, for fewer names).
    public static let initialThreads = 8
    public static let maximumThreads = 64
    static let stallMilliseconds: Int64 = 100

    private init(names: [String], family: AddressFamily?) throws(SystemCallError) {
        self.names = names
        self.family = family
        let fds = try System.pipe()
        readDescriptor = fds.read
        writeDescriptor = fds.write
        outcomes = [ResolutionOutcome?](repeating: nil, count: names.count)
    }

    deinit {
        System.close(readDescriptor)
        System.close(writeDescriptor)
    }

    /// Resolves every name, in the order given; nil for a name with no answer within
    /// `timeoutMilliseconds` of the call. `family` nil asks for both A and AAAA.
    public static func resolve(_ names: [String], family: AddressFamily?, timeoutMilliseconds: Int32) throws(SystemCallError)
        -> [ResolutionOutcome?]
    {
        guard !names.isEmpty else { return [] }
        let pool = try HostResolutionPool(names: names, family: family)
        defer { pool.abandon() }
        return try pool.run(deadline: SystemClock.monotonicMilliseconds() + Int64(max(0, timeoutMilliseconds)))
    }

    private func run(deadline: Int64) throws(SystemCallError) -> [ResolutionOutcome?] {
        for _ in 0..<min(names.count, Self.initialThreads) { try startThread() }
        var drain = [UInt8](repeating: 0, count: 4096)
        while true {
            let now = SystemClock.monotonicMilliseconds()
            let (done, grow): (Bool, Bool) = lock.withLock {
                let stalled = busySince.allSatisfy { since in since.map { now - $0 >= Self.stallMilliseconds } ?? false }
                return (finished == names.count, stalled && nextName < names.count && busySince.count < Self.maximumThreads)
            }
            if done || now >= deadline { break }
            if grow { try startThread() }
            let wait = Int32(min(deadline - now, Self.stallMilliseconds))
            let ready = try Poll.wait(readDescriptor, for: .readable, timeoutMilliseconds: wait)
            if ready.contains(.readable) {
                _ = drain.withUnsafeMutableBytes { System.read(readDescriptor, into: $0) }
            }
        }
        return lock.withLock { outcomes }
    }

    private func abandon() {
        lock.withLock { abandoned = true }
    }

    private func startThread() throws(SystemCallError) {
        let slot = lock.withLock {
            busySince.append(nil)
            return busySince.count - 1
        }
        try DetachedThread.start { [self] in work(slot: slot) }
    }

    /// One thread: takes the next name until none is left or the pool is abandoned.
    private func work(slot: Int) {
        while true {
            let taken: Int? = lock.withLock {
                guard !abandoned, nextName < names.count else {
                    busySince[slot] = nil
                    return nil
                }
                nextName += 1
                busySince[slot] = SystemClock.monotonicMilliseconds()
                return nextName - 1
            }
            guard let index = taken else { return }
            let outcome = HostResolution.getaddrinfo(name: names[index], family: family)
            let waited: Bool = lock.withLock {
                outcomes[index] = outcome
                finished += 1
                busySince[slot] = nil
                return !abandoned
            }
            // Nobody drains the pipe of an abandoned pool: no byte that could fill it.
            if waited { System.writeByte(writeDescriptor, 1) }
        }
    }
}
