#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex (no Foundation, no Dispatch).
final class Lock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}

/// A detached pthread running one closure.
final class PingThread {
    private let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }

    /// Starts the thread; the error number when it could not start.
    func start() -> Errno? {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                let job = Unmanaged<PingThread>.fromOpaque(context!).takeRetainedValue()
                job.body()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<PingThread>.fromOpaque(context).release()
            return Errno(rawValue: status)
        }
        pthread_detach(thread)
        return nil
    }
}
