#if canImport(Glibc)
import Glibc
#endif

/// A terminal on standard input read key by key, for `reach trace`'s live table: canonical
/// mode and echo off, so `q` arrives alone and is not printed (termios(3), ICANON and
/// ECHO), signals kept (ISIG), so Ctrl-C still interrupts. The modes it found are put
/// back by `restore()`, or when it goes.
public final class KeyboardTerminal {
    public let descriptor: FileDescriptor.Number
    private let saved: termios
    private var restored = false

    /// Nil when the descriptor is no terminal (a pipe, a file): nothing to read keys from.
    public init?(descriptor: FileDescriptor.Number = .standardInput) {
        guard System.isTerminal(descriptor.rawValue), case .success(let modes) = System.terminalAttributes(descriptor.rawValue)
        else { return nil }
        self.descriptor = descriptor
        saved = modes
        var raw = modes
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        // One byte at a time, returned at once (termios(3): VMIN 1, VTIME 0).
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard System.setTerminalAttributes(descriptor.rawValue, raw) == nil else { return nil }
    }

    /// The bytes typed since the last call, without waiting (poll(2) first, then one read).
    public func pendingKeys() -> [UInt8] {
        var entry = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
        let ready =
            (try? withUnsafeMutablePointer(to: &entry) {
                try System.poll(UnsafeMutableBufferPointer(start: $0, count: 1), timeoutMilliseconds: 0)
            }) ?? 0
        guard ready > 0, entry.revents & Int16(POLLIN) != 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { System.read(descriptor.rawValue, into: $0) }
        guard case .success(let read) = count, read > 0 else { return [] }
        return Array(buffer.prefix(read))
    }

    /// The terminal's modes as they were; idempotent.
    public func restore() {
        guard !restored else { return }
        restored = true
        _ = System.setTerminalAttributes(descriptor.rawValue, saved)
    }

    deinit { restore() }
}

/// The host's name (gethostname(2)), as mtr's report prints it in its header.
public enum LocalHost {
    public static var name: String { System.hostName() }
}

extension FileDescriptor.Number {
    /// Whether this descriptor is a terminal (isatty(3)).
    public var isTerminal: Bool { System.isTerminal(rawValue) }
}
