#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// Runs a libc call that returns -1 and sets errno on failure, retrying EINTR here
/// so call sites never do; any other failure is thrown naming the call.
@inline(__always)
func syscall<Result: BinaryInteger>(_ name: String, _ body: () -> Result) throws -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let failure = Errno.current
        if failure == .interrupted { continue }
        throw SystemCallError(name, failure)
    }
}

enum System {
    static func socket(_ domain: Int32, _ type: Int32, _ proto: Int32) throws -> Int32 {
        try syscall("socket") { Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), proto) }
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    static func setOption<Value: BitwiseCopyable>(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Value) throws {
        _ = try syscall("setsockopt") {
            withUnsafeBytes(of: value) { setsockopt(fd, level, name, $0.baseAddress, socklen_t($0.count)) }
        }
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) throws -> Int {
        try syscall("send") {
            bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Receives into `buffer`; returns the length of the datagram, which may exceed
    /// the buffer when MSG_TRUNC is passed.
    static func receive(_ fd: Int32, into buffer: inout [UInt8], flags: Int32 = 0) throws -> Int {
        try syscall("recv") {
            buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, flags) }
        }
    }

    /// poll(2) on the given descriptors; returns the revents of each, in order.
    /// `timeoutMilliseconds` < 0 waits forever.
    static func poll(_ fds: [(fd: Int32, events: Int16)], timeoutMilliseconds: Int32) throws -> [Int16] {
        var entries = fds.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
        _ = try syscall("poll") {
            entries.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds) }
        }
        return entries.map(\.revents)
    }

    static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        _ = try syscall("pipe2") { fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress!, Int32(O_CLOEXEC)) } }
        return (fds[0], fds[1])
    }

    static func interfaceIndex(named name: String) -> UInt32 {
        if_nametoindex(name)
    }

    static func interfaceName(index: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(index, &buffer) != nil else { return nil }
        return String(cString: buffer)
    }

    /// Reads a small text file whole (sysfs attributes); nil when it cannot be read.
    static func readSmallFile(_ path: String, limit: Int = 4096) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        var total = 0
        while total < limit {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, limit - total) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            total += count
        }
        return String(decoding: buffer[0..<total], as: UTF8.self)
    }

    static func pathExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
