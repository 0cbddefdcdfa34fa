#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// Runs a libc call that returns -1 and sets errno on failure. EINTR is retried here, the
/// only place that does it; any other failure comes back as its errno. Inlined: the ping
/// path calls it per echo, and a `Result` of two trivial values costs nothing to return.
@inline(__always)
func retryingInterrupts<Value: BinaryInteger>(_ body: () -> Value) -> Result<Value, Errno> {
    while true {
        let value = body()
        if value != -1 { return .success(value) }
        let failure = Errno.current
        if failure != .interrupted { return .failure(failure) }
    }
}

/// `retryingInterrupts`, with a failure thrown as a `SystemCallError` naming the call.
@inline(__always)
func syscall<Value: BinaryInteger>(_ name: StaticString, _ body: () -> Value) throws(SystemCallError) -> Value {
    switch retryingInterrupts(body) {
    case .success(let value): return value
    case .failure(let errno): throw SystemCallError("\(name)", errno)
    }
}

/// The system calls reach makes, one thin wrapper each (swift-system's `system_xxx` shape).
/// The rest of ReachSystem makes its system calls through these, and no other module calls
/// the C library. Library functions that make no system call (memcmp, strerror, the
/// pthread mutex, sigset_t helpers, inet_pton, getaddrinfo's own retries) and libcap's
/// calls are used where they are needed, in this module only.
enum System {
    static func openSocket(_ domain: Int32, _ type: Int32, _ proto: Int32) -> Result<Int32, Errno> {
        retryingInterrupts { Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), proto) }
    }

    static func socket(_ domain: Int32, _ type: Int32, _ proto: Int32) throws(SystemCallError) -> Int32 {
        switch openSocket(domain, type, proto) {
        case .success(let fd): return fd
        case .failure(let errno): throw SystemCallError("socket", errno)
        }
    }

    /// close(2) is not retried on EINTR: on Linux the descriptor is released either way,
    /// and a retry could close a number another thread has just been given.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    static func setOption<Value: BitwiseCopyable>(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Value) throws(SystemCallError) {
        _ = try syscall("setsockopt") {
            withUnsafeBytes(of: value) { setsockopt(fd, level, name, $0.baseAddress, socklen_t($0.count)) }
        }
    }

    /// SO_BINDTODEVICE takes the interface name's bytes, NUL included.
    static func bindToDevice(_ fd: Int32, _ interface: String) -> Result<Int32, Errno> {
        var bytes = Array(interface.utf8CString)
        return retryingInterrupts { setsockopt(fd, SOL_SOCKET, Int32(creach_so_bindtodevice), &bytes, socklen_t(bytes.count)) }
    }

    static func socketError(_ fd: Int32) throws(SystemCallError) -> Errno {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try syscall("getsockopt") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) }
        return Errno(rawValue: code)
    }

    static func bind(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<Int32, Errno> {
        retryingInterrupts { Glibc.bind(fd, address, length) }
    }

    /// connect(2). EINTR is not retried: the connection goes on in the background, and a
    /// second connect would answer EALREADY; the caller waits for it as for EINPROGRESS.
    static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Errno? {
        Glibc.connect(fd, address, length) == 0 ? nil : Errno.current
    }

    static func localName(_ fd: Int32) throws(SystemCallError) -> sockaddr_storage {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try syscall("getsockname") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        return storage
    }

    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, flags: Int32 = 0) -> Result<Int, Errno> {
        retryingInterrupts { Glibc.send(fd, bytes.baseAddress, bytes.count, flags | Int32(MSG_NOSIGNAL)) }
    }

    @inline(__always)
    static func sendTo(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ address: UnsafePointer<sockaddr>, _ length: socklen_t
    ) -> Result<Int, Errno> {
        retryingInterrupts { sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length) }
    }

    /// Receives into `buffer`; the length of the datagram, which may exceed the buffer
    /// when MSG_TRUNC is passed.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0) -> Result<Int, Errno> {
        retryingInterrupts { recv(fd, buffer.baseAddress, buffer.count, flags) }
    }

    @inline(__always)
    static func receiveMessage(_ fd: Int32, _ message: inout msghdr, flags: Int32) -> Result<Int, Errno> {
        retryingInterrupts { recvmsg(fd, &message, flags) }
    }

    /// Up to `count` datagrams in one call (recvmmsg(2)); with MSG_WAITFORONE it blocks for
    /// the first only.
    static func receiveMultiple(
        _ fd: Int32, _ messages: UnsafeMutablePointer<creach_mmsghdr>, count: Int, flags: Int32
    ) -> Result<Int32, Errno> {
        retryingInterrupts { recvmmsg(fd, messages, UInt32(count), flags, nil) }
    }

    /// Whether the descriptor is a terminal (isatty(3): the TCGETS ioctl).
    static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        retryingInterrupts { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        retryingInterrupts { Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }

    /// Writes one byte, from a signal handler too: nothing here allocates or takes a lock.
    /// A write that fails finds the pipe full (EAGAIN): a wake-up is already pending.
    static func writeByte(_ fd: Int32, _ byte: UInt8) {
        var value = byte
        _ = retryingInterrupts { Glibc.write(fd, &value, 1) }
    }

    static func open(_ path: String, _ flags: Int32, closeOnExec: Bool = true) -> Result<Int32, Errno> {
        retryingInterrupts { Glibc.open(path, flags | (closeOnExec ? O_CLOEXEC : 0)) }
    }

    /// open(2) with O_CREAT's permission bits.
    static func open(_ path: String, _ flags: Int32, mode: UInt32) -> Result<Int32, Errno> {
        retryingInterrupts { Glibc.open(path, flags | O_CLOEXEC, mode_t(mode)) }
    }

    static func fsync(_ fd: Int32) -> Result<Int32, Errno> {
        retryingInterrupts { Glibc.fsync(fd) }
    }

    static func rename(_ from: String, _ to: String) -> Result<Int32, Errno> {
        retryingInterrupts { Glibc.rename(from, to) }
    }

    /// Removes a temporary file after a failure that is reported: a file already gone is no second error.
    static func unlink(_ path: String) {
        _ = retryingInterrupts { Glibc.unlink(path) }
    }

    static func processIdentifier() -> Int32 {
        getpid()
    }

    static func resourceUsage(_ usage: inout rusage) -> Result<Int32, Errno> {
        retryingInterrupts { getrusage(RUSAGE_SELF.rawValue, &usage) }
    }

    static func resourceLimit(_ resource: Int32, _ limit: inout rlimit) -> Result<Int32, Errno> {
        retryingInterrupts { getrlimit(__rlimit_resource_t(UInt32(resource)), &limit) }
    }

    static func pageSize() -> Int {
        Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The names of a directory's entries but `.` and `..` (opendir(3), readdir(3)), in the
    /// order readdir gives them; the errno of the call that failed.
    static func directoryEntries(_ path: String) -> Result<[String], Errno> {
        guard let directory = opendir(path) else { return .failure(.current) }
        defer { closedir(directory) }
        var names: [String] = []
        // readdir(3) returns NULL at the end and on an error; only errno tells them apart.
        errno = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return errno == 0 ? .success(names) : .failure(.current)
    }

    static func duplicate(_ fd: Int32, onto target: Int32) -> Result<Int32, Errno> {
        retryingInterrupts { dup2(fd, target) }
    }

    static func pipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        _ = try syscall("pipe2") { fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress!, Int32(O_CLOEXEC)) } }
        return (fds[0], fds[1])
    }

    /// poll(2) on `entries`, in place. An interrupted wait is retried with the same timeout:
    /// callers that keep deadlines compute the timeout again at their next turn.
    static func poll(_ entries: UnsafeMutableBufferPointer<pollfd>, timeoutMilliseconds: Int32) throws(SystemCallError) -> Int32 {
        try syscall("poll") { Glibc.poll(entries.baseAddress, nfds_t(entries.count), timeoutMilliseconds) }
    }

    /// ppoll(2) until `deadline` (nil waits for input): nanosecond waits, where poll(2) would
    /// round ping intervals to milliseconds. After an interruption (a signal whose handler
    /// wrote to a pipe in `entries`) the remaining time is computed again.
    static func poll(_ entries: UnsafeMutableBufferPointer<pollfd>, until deadline: MonotonicInstant?) throws(SystemCallError) -> Int32 {
        try syscall("ppoll") {
            var timeout = timespec()
            if let deadline {
                // The engine says "at once" with the earliest instant: no overflow, no negative wait.
                let remaining = deadline.remaining(from: .now()).nanoseconds
                timeout.tv_sec = Int(remaining / 1_000_000_000)
                timeout.tv_nsec = Int(remaining % 1_000_000_000)
            }
            return withUnsafePointer(to: &timeout) { ppoll(entries.baseAddress, nfds_t(entries.count), deadline == nil ? nil : $0, nil) }
        }
    }

    /// Blocks `signals` for this thread and the threads it starts later.
    static func blockSignals(_ signals: sigset_t) throws(SystemCallError) {
        var set = signals
        let status = pthread_sigmask(SIG_BLOCK, &set, nil)  // returns the error number; errno is untouched
        guard status == 0 else { throw SystemCallError("pthread_sigmask", Errno(rawValue: status)) }
    }

    /// A descriptor that turns readable when one of `signals` (blocked) is pending.
    static func signalDescriptor(for signals: sigset_t) throws(SystemCallError) -> Int32 {
        var set = signals
        return try syscall("signalfd") { signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) }
    }

    /// Sets a signal's disposition (signal(2)): a handler, or SIG_IGN.
    /// signal(2) fails only for an invalid signal number (EINVAL), which the callers' constants are not.
    static func setSignalHandler(_ signalNumber: Int32, _ handler: __sighandler_t?) {
        _ = signal(signalNumber, handler)
    }

    /// exit(3): stdio flushed, atexit handlers run, then exit_group(2).
    static func exitProcess(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    static func startThread(
        _ thread: inout pthread_t, _ body: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
        _ context: UnsafeMutableRawPointer
    ) -> Errno? {
        let status = pthread_create(&thread, nil, body, context)  // returns the error number
        if status != 0 { return Errno(rawValue: status) }
        pthread_detach(thread)
        return nil
    }

    /// The effective group and the supplementary groups (getegid(2), getgroups(2)): what the
    /// kernel checks against net.ipv4.ping_group_range.
    static func groups() -> [UInt32] {
        var groups = [UInt32(getegid())]
        let count = getgroups(0, nil)
        if count > 0 {
            var list = [gid_t](repeating: 0, count: Int(count))
            let got = getgroups(count, &list)
            if got > 0 { groups += list.prefix(Int(got)).map { UInt32($0) }.filter { !groups.contains($0) } }
        }
        return groups
    }

    /// if_nametoindex(3): 0 when there is no interface by that name.
    static func interfaceIndex(named name: String) -> UInt32 {
        if_nametoindex(name)
    }

    /// if_indextoname(3): nil when there is no interface with that index.
    static func interfaceName(index: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(index, &buffer) != nil else { return nil }
        return string(fromNulTerminated: buffer)
    }

    static func clockNanoseconds(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Reads a small text file whole (sysfs attributes, /proc/sys); nil when it cannot be read.
    static func readSmallFile(_ path: String, limit: Int = 4096) -> String? {
        guard case .success(let opened) = Self.open(path, O_RDONLY) else { return nil }
        let file = FileDescriptor(owning: opened)
        let fd = file.rawValue
        var buffer = [UInt8](repeating: 0, count: limit)
        var total = 0
        while total < limit {
            let result = buffer.withUnsafeMutableBytes { Self.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[total...])) }
            guard case .success(let count) = result, count > 0 else { break }
            total += count
        }
        return String(decoding: buffer[0..<total], as: UTF8.self)
    }

    /// prctl(PR_SET_TIMERSLACK): how late the kernel may end this thread's timed waits
    /// (50 us by default), for threads started after it too.
    static func setTimerSlack(nanoseconds: UInt) -> Errno? {
        creach_set_timer_slack(nanoseconds) == 0 ? nil : Errno.current
    }

    static func pathExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// getenv(3): the variable's value, nil when unset.
    static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// getuid(2): the real user ID, what a D-Bus SASL EXTERNAL login names.
    static func userID() -> UInt32 {
        UInt32(getuid())
    }

    /// tcgetattr(3): a terminal's modes.
    static func terminalAttributes(_ fd: Int32) -> Result<termios, Errno> {
        var attributes = termios()
        return tcgetattr(fd, &attributes) == 0 ? .success(attributes) : .failure(Errno.current)
    }

    /// tcsetattr(3) with TCSANOW: the modes take effect at once.
    static func setTerminalAttributes(_ fd: Int32, _ attributes: termios) -> Errno? {
        var copy = attributes
        if case .failure(let failure) = retryingInterrupts({ tcsetattr(fd, TCSANOW, &copy) }) { return failure }
        return nil
    }

    /// gethostname(2): the host's name, as mtr's report header prints it; empty if it fails.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
