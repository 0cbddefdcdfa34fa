import ReachCore
import ReachSystem

/// Apple's SimplePing for Linux: a pinger for a host name or literal, with an address
/// style, whose events arrive in order as an AsyncSequence. It has no run-loop or thread
/// affinity: the transport is polled on a thread of its own (a thread blocked in poll()
/// wakes only for packets and timers, where a waiting Swift Task keeps a Dispatch worker
/// waking), which feeds an AsyncStream. The transport is an ICMP socket unless another
/// is given.
///
/// ```swift
/// let pinger = Pinger(hostName: "198.51.100.7", configuration: PingConfiguration(count: 3))
/// for await event in pinger.events() { print(event) }
/// ```
// @unchecked: `transport` and `stopRequested` are shared between the caller's thread and
// the pinger's, and only touched under `lock`; the resolver, clock and opener are handed to
// the pinger's one thread when it starts and used only there.
public final class Pinger: @unchecked Sendable {
    /// Opens the transport for the target's family (SimplePing opens its socket in `start`).
    public typealias TransportOpener = @Sendable (AddressFamily) throws -> PingTransport
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
    private let openTransport: TransportOpener
    private let clock: PingClock
    private let resolver: HostResolving
    private let lock = Lock()
    private var transport: PingTransport?
    private var stopRequested = false

    public init(
        hostName: String, addressStyle: AddressStyle = .any, configuration: PingConfiguration = PingConfiguration(),
        resolver: HostResolving = SystemHostResolver(), openTransport: @escaping TransportOpener = Pinger.icmpSocket(),
        clock: PingClock = SystemClock()
    ) {
        self.hostName = hostName
        self.addressStyle = addressStyle
        self.configuration = configuration
        self.resolver = resolver
        self.openTransport = openTransport
        self.clock = clock
    }

    /// An ICMP socket shaped by `options` (iputils -I and -t): the default transport.
    public static func icmpSocket(options: ICMPSocketOptions = ICMPSocketOptions()) -> TransportOpener {
        { family in try ICMPSocket(family: family, options: options) }
    }

    /// Resolves, opens the socket and pings; the stream ends after `.finished` or `.failed`.
    /// Call once per pinger.
    public func events() -> AsyncStream<PingEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PingEvent.self, bufferingPolicy: .unbounded)
        continuation.onTermination = { [weak self] _ in self?.stop() }
        do {
            try DetachedThread.start { [self] in
                self.run { continuation.yield($0) }
                continuation.finish()
            }
        } catch {
            continuation.yield(.failed("\(error.errno)"))
            continuation.finish()
        }
        return stream
    }

    /// Ends the run: the stream delivers the statistics and finishes.
    public func stop() {
        lock.withLock {
            stopRequested = true
            transport?.interrupt()
        }
    }

    private func run(_ deliver: (PingEvent) -> Void) {
        let address: IPAddress
        do {
            switch try resolver.addresses(of: hostName, family: addressStyle.family, timeout: .seconds(10)) {
            case .resolved(let addresses): address = addresses[0]
            case .notResolved(let why): return deliver(.failed("\(hostName): \(why)"))
            case .failed(let error): return deliver(.failed("\(error)"))
            }
            try FamilyMismatch.check(address, against: addressStyle.family, target: hostName)
        } catch {
            return deliver(.failed("\(error)"))
        }
        let transport: PingTransport
        do {
            transport = try openTransport(address.family)
        } catch {
            return deliver(.failed("\(error)"))
        }
        let stopped = lock.withLock { () -> Bool in
            self.transport = transport
            return stopRequested
        }
        if stopped { transport.interrupt() }
        guard let kind = transport.kind(for: address.family) else {
            return deliver(.failed("no ICMP socket for \(address.family.label)"))
        }
        let identifier = transport.identifier(for: address.family)
        deliver(.started(PingStart(address: address, identifier: identifier, socketKind: kind)))
        var loop = PingLoop(
            engine: PingEngine(target: address, identifier: identifier, configuration: configuration),
            transport: transport, clock: clock)
        do {
            try loop.run { deliver($0) }
        } catch {
            deliver(.failed("\(error)"))
        }
        lock.withLock { self.transport = nil }
    }
}
