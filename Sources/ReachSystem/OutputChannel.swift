#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered-by-line writes to stdout / stderr without Foundation. A write to a
/// closed pipe fails quietly (EPIPE): the reader going away is not an error. Any other
/// failure (a full disk, an I/O error) is kept in `failure` for the caller to report:
/// output that did not arrive must not end in success.
public final class OutputChannel {
    // nonisolated(unsafe): the process's two standard streams, used from the main thread only.
    nonisolated(unsafe) public static let standard = OutputChannel(fileDescriptor: .standardOutput)
    nonisolated(unsafe) public static let standardError = OutputChannel(fileDescriptor: .standardError)

    /// Written to, never closed: the channel does not own it.
    public let fileDescriptor: FileDescriptor.Number
    private var pending: [UInt8] = []
    public private(set) var readerGone = false
    /// Why a write failed, unless the reader went away (EPIPE).
    public private(set) var failure: Errno?

    public init(fileDescriptor: FileDescriptor.Number) {
        self.fileDescriptor = fileDescriptor
    }

    /// Opens /dev/null, read-only, on each of descriptors 0-2 that the process was started
    /// without (`reach ping HOST >&-`). Otherwise the first socket reach opens takes the
    /// number, and the lines meant for stdout go into it (the ICMP socket's, or a netlink
    /// socket's as root). A write to the read-only descriptor fails (EBADF): output that
    /// could not be written, reported as such (exit 71), as iputils reports its write error.
    public static func reserveStandardDescriptors() {
        // One poll answers for all three: POLLNVAL marks a descriptor that is not open. A
        // tuple on the stack, not an array: this runs at every start (an [pollfd] cost 18 K
        // instructions, its generic metadata made at first use).
        var entries = (pollfd(fd: 0, events: 0, revents: 0), pollfd(fd: 1, events: 0, revents: 0), pollfd(fd: 2, events: 0, revents: 0))
        let ready = withUnsafeMutableBytes(of: &entries) {
            let set = UnsafeMutableBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: pollfd.self), count: 3)
            // A poll that fails here (ENOMEM) leaves the three descriptors as they are, as when all are open.
            return try? System.poll(set, timeoutMilliseconds: 0)
        }
        guard let ready, ready > 0 else { return }
        for entry in [entries.0, entries.1, entries.2] where entry.revents & Int16(POLLNVAL) != 0 {
            // The lowest free number: this one.
            guard case .success(let opened) = System.open("/dev/null", O_RDONLY, closeOnExec: false) else { continue }
            if opened != entry.fd {
                // Only the copy stays: /dev/null's first number is closed at the end of this block.
                let original = FileDescriptor(owning: opened)
                // A dup2(2) that fails leaves the number closed, as it was: nothing worse than before.
                _ = System.duplicate(original.rawValue, onto: entry.fd)
            }
        }
    }

    /// Whether writes are gathered into blocks of `blockSize` (and the rest at `flush()`)
    /// rather than written out line by line.
    public private(set) var gathersBlocks = false
    public static let blockSize = 64 * 1024

    /// Gathers the output into blocks unless it goes to a terminal: a pipe or a file takes a
    /// list's answers in a few large writes, as stdio's full buffering gives `ip -batch`
    /// (setvbuf(3)); a person at a terminal still sees each line as it is made. For commands
    /// that end, not for streams: a watched line must reach its reader when it happens.
    public func gatherBlocksUnlessTerminal() {
        gathersBlocks = !System.isTerminal(fileDescriptor.rawValue)
    }

    /// Queues text and writes it out at once (lines reach a pipe as they are made), or,
    /// when gathering blocks, once a block is full.
    public func write(_ text: String) {
        guard !readerGone else { return }
        pending.append(contentsOf: text.utf8)
        if !gathersBlocks || pending.count >= Self.blockSize { flush() }
    }

    /// The same, for bytes already encoded as UTF-8.
    public func write(bytes: [UInt8]) {
        guard !readerGone else { return }
        pending.append(contentsOf: bytes)
        if !gathersBlocks || pending.count >= Self.blockSize { flush() }
    }

    public func flush() {
        var offset = 0
        while offset < pending.count, !readerGone {
            let written = pending.withUnsafeBytes { System.write(fileDescriptor.rawValue, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch written {
            case .success(let count):
                offset += count
            case .failure(let error):
                if error != .brokenPipe { failure = error }
                readerGone = true  // nothing more can be said there
            }
        }
        pending.removeAll(keepingCapacity: true)
    }
}
