#if canImport(Glibc)
import Glibc
#endif

/// Work that blocks (getaddrinfo, a probe) run on its own detached thread, with a
/// pipe that turns readable when it is done: a poll loop can wait on it beside its
/// other descriptors, with a timeout, and abandon it. An abandoned job finishes on
/// its own and frees what it holds.
public final class BackgroundJob<Value: Sendable>: @unchecked Sendable {
    /// Readable once the work has finished.
    public let readinessDescriptor: Int32
    private let writeDescriptor: Int32
    private let work: @Sendable () -> Value
    // Written by the worker thread before it writes to the pipe; read only after the pipe is readable.
    private var value: Value?

    public init(_ work: @escaping @Sendable () -> Value) throws {
        let fds = try System.pipe()
        readinessDescriptor = fds.read
        writeDescriptor = fds.write
        self.work = work
        do {
            try DetachedThread.start { [self] in self.run() }
        } catch {
            System.close(fds.read)
            System.close(fds.write)
            throw error
        }
    }

    deinit {
        System.close(readinessDescriptor)
        System.close(writeDescriptor)
    }

    private func run() {
        value = work()
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Waits up to `timeoutMilliseconds` (negative: forever); nil while the work is still running.
    public func wait(timeoutMilliseconds: Int32) throws -> Value? {
        let ready = try System.poll([(readinessDescriptor, Int16(POLLIN))], timeoutMilliseconds: timeoutMilliseconds)
        guard ready[0] & Int16(POLLIN) != 0 else { return nil }
        return value
    }
}

/// A detached pthread running one closure (C entry points cannot capture generics).
enum DetachedThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    static func start(_ run: @escaping () -> Void) throws {
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SystemCallError("pthread_create", Errno(rawValue: status))
        }
        pthread_detach(thread)
    }
}
