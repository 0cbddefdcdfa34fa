/// Work that blocks (getaddrinfo, a probe) run on its own detached thread, with a
/// pipe that turns readable when it is done: a poll loop can wait on it beside its
/// other descriptors, with a timeout, and abandon it. An abandoned job finishes on
/// its own and frees what it holds.
// @unchecked: `value` is written by the worker before it writes to the pipe, and read only
// after the pipe is readable; the pipe orders the two, which Swift cannot see.
public final class BackgroundJob<Value: Sendable>: @unchecked Sendable {
    /// Readable once the work has finished.
    private let pipe: Pipe
    public var readinessDescriptor: FileDescriptor.Number { pipe.read.number }
    private let work: @Sendable () -> Value
    private var value: Value?

    public init(_ work: @escaping @Sendable () -> Value) throws(SystemCallError) {
        pipe = try Pipe()
        self.work = work
        // A thread that cannot start releases this object, and the pipe with it.
        try DetachedThread.start { [self] in self.run() }
    }

    private func run() {
        value = work()
        System.writeByte(pipe.write.rawValue, 1)
    }

    /// Waits up to `timeout`; nil while the work is still running.
    public func wait(timeout: TimeSpan) throws(SystemCallError) -> Value? {
        let ready = try Poll.wait(readinessDescriptor, for: .readable, timeout: timeout)
        guard ready.contains(.readable) else { return nil }
        return value
    }
}
