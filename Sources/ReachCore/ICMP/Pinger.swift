/// Apple's SimplePing for Linux: a pinger for a host name or literal, with an address
/// style, whose events arrive in order as an AsyncSequence. It has no run-loop or thread
/// affinity: the socket is polled on a thread of its own (as measured, docs/LINUX-FACTS.md: a thread blocked
/// in poll() wakes only for packets and timers), which feeds an AsyncStream.
///
/// ```swift
/// let pinger = Pinger(hostName: "198.51.100.7", configuration: PingConfiguration(count: 3))
/// for await event in pinger.events() { print(event) }
/// ```
public final class Pinger: @unchecked Sendable {
    /// Which family to use (SimplePing's addressStyle).
    public enum AddressStyle: Sendable {
        case any
        case icmpv4
        case icmpv6

        var family: AddressFamily? {
            switch self {
            case .any: nil
            case .icmpv4: .ipv4
            case .icmpv6: .ipv6
            }
        }
    }

    public let hostName: String
    public let addressStyle: AddressStyle
    public let configuration: PingConfiguration
    public let socketOptions: ICMPSocketOptions
    private let resolver: HostResolving
    private let lock = Lock()
    private var socket: ICMPSocket?
    private var stopRequested = false

    public init(
        hostName: String, addressStyle: AddressStyle = .any, configuration: PingConfiguration = PingConfiguration(),
        socketOptions: ICMPSocketOptions = ICMPSocketOptions(), resolver: HostResolving = SystemHostResolver()
    ) {
        self.hostName = hostName
        self.addressStyle = addressStyle
        self.configuration = configuration
        self.socketOptions = socketOptions
        self.resolver = resolver
    }

    /// Resolves, opens the socket and pings; the stream ends after `.finished` or `.failed`.
    /// Call once per pinger.
    public func events() -> AsyncStream<PingEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PingEvent.self, bufferingPolicy: .unbounded)
        continuation.onTermination = { [weak self] _ in self?.stop() }
        let thread = PingThread { [self] in
            self.run { continuation.yield($0) }
            continuation.finish()
        }
        if let failure = thread.start() {
            continuation.yield(.failed("\(failure)"))
            continuation.finish()
        }
        return stream
    }

    /// Ends the run: the stream delivers the statistics and finishes.
    public func stop() {
        lock.withLock {
            stopRequested = true
            socket?.interrupt()
        }
    }

    private func run(_ deliver: (PingEvent) -> Void) {
        let address: IPAddress
        if let literal = try? IPAddress.parse(hostName) {
            address = literal
        } else {
            do {
                switch try resolver.resolve(hostName, family: addressStyle.family, timeoutMilliseconds: 10_000) {
                case .resolved(let addresses):
                    address = addresses[0]
                case .notResolved(let why):
                    return deliver(.failed("\(hostName): \(why)"))
                case .failed(let error):
                    return deliver(.failed("\(error)"))
                }
            } catch {
                return deliver(.failed("\(error)"))
            }
        }
        if let family = addressStyle.family, family != address.family {
            return deliver(.failed("\(hostName) is not an \(family.label) address"))
        }
        let socket: ICMPSocket
        do {
            socket = try ICMPSocket(family: address.family, options: socketOptions)
        } catch {
            return deliver(.failed("\(error)"))
        }
        let stopped = lock.withLock { () -> Bool in
            self.socket = socket
            return stopRequested
        }
        if stopped { socket.interrupt() }
        deliver(.started(PingStart(address: address, identifier: socket.identifier, socketKind: socket.kind)))
        var loop = PingLoop(
            engine: PingEngine(target: address, identifier: socket.identifier, configuration: configuration),
            transport: socket, clock: SystemClock())
        do {
            try loop.run { deliver($0) }
        } catch {
            deliver(.failed("\(error)"))
        }
        lock.withLock { self.socket = nil }
    }
}
