import ReachSystem

/// The real event sources: one thread blocked in poll() over the rtnetlink multicast socket,
/// a signalfd, the output's descriptor, the system bus connection (when there is one)
/// and, while a name lookup or a connectivity check runs, its readiness pipe. No Dispatch
/// and no Swift concurrency: an idle Task keeps a Dispatch worker waking once a second,
/// while a thread blocked in poll() does not wake at all (docs/LINUX-FACTS.md).
public final class KernelWatchEvents: WatchEventSource {
    /// Room for a burst of thousands of route messages before the kernel drops any.
    public static let defaultReceiveBufferSize: Int32 = 8 << 20

    private let signals: SignalDescriptor
    private let monitor: NetlinkSocket
    private let readerDescriptor: FileDescriptor.Number?
    /// Lookups running, by name (several targets may be names).
    private var lookups: [(name: String, running: HostResolution)] = []
    private var check: BackgroundJob<Result<ConnectivityReport, Error>>?
    private let services: ServiceSignalSource?

    /// `readerDescriptor`: an output whose reader going away ends the watch (poll reports
    /// POLLERR on a pipe's write end as soon as its reader closes), nil for none.
    /// `services`: the bus connection whose signals say a link's facts changed.
    public init(readerDescriptor: FileDescriptor.Number?, receiveBufferSize: Int32 = KernelWatchEvents.defaultReceiveBufferSize,
                services: ServiceSignalSource? = nil) throws {
        // Signals first, so the resolver threads started later inherit the blocked mask.
        signals = try SignalDescriptor()
        // Subscribed before the loop's first evaluation: a change in between is then not lost.
        monitor = try NetlinkSocket()
        monitor.setReceiveBuffer(size: receiveBufferSize)
        for group in NetlinkSocket.reachabilityGroups { try monitor.join(group: group) }
        self.readerDescriptor = readerDescriptor
        self.services = services
    }

    public func now() -> WatchInstant {
        WatchInstant(monotonic: .now(), wall: .now())
    }

    public func startLookup(name: String, family: AddressFamily?) throws {
        let started = try HostResolution(name: name, family: family)
        lookups.removeAll { $0.name == name }
        lookups.append((name, started))
    }

    public func startCheck(_ checker: ConnectivityChecker) throws {
        check = try BackgroundJob { Result { try checker.check(routeUsable: true) } }
    }

    public func wait(timeout: TimeSpan?) throws -> [WatchInput] {
        var entries: [(descriptor: FileDescriptor.Number, events: PollEvents)] = [
            (monitor.fileDescriptor, .readable), (signals.fileDescriptor, .readable),
        ]
        let readerIndex = readerDescriptor.map { descriptor in
            entries.append((descriptor, []))  // POLLERR / POLLHUP come unasked
            return entries.count - 1
        }
        let lookupStart = entries.count
        for lookup in lookups { entries.append((lookup.running.readinessDescriptor, .readable)) }
        let checkIndex = check.map { running in
            entries.append((running.readinessDescriptor, .readable))
            return entries.count - 1
        }
        let servicesIndex = services?.signalDescriptor.map { descriptor in
            entries.append((descriptor, .readable))
            return entries.count - 1
        }
        // Signals read while an evaluation asked the bus are no longer in the socket: handle them now.
        let pending = services?.hasPendingSignals == true
        let ready = try Poll.wait(entries, timeout: pending ? .zero : timeout)

        if let readerIndex, !ready[readerIndex].isDisjoint(with: [.error, .hangUp, .invalid]) { return [.readerGone] }
        if ready[1].contains(.readable), signals.take() != nil { return [.interrupted] }
        var inputs: [WatchInput] = []
        if !ready[0].isDisjoint(with: [.readable, .error]) {
            inputs.append(.kernelChanged(try NetlinkDrain.drain(monitor)))
        }
        if let services, pending || servicesIndex.map({ !ready[$0].isEmpty }) == true, services.handleSignals() {
            inputs.append(.servicesChanged)
        }
        var finished: [String] = []
        for (offset, lookup) in lookups.enumerated() where ready[lookupStart + offset].contains(.readable) {
            if let answer = try lookup.running.wait(timeout: .zero) {
                finished.append(lookup.name)
                inputs.append(.resolved(answer, name: lookup.name))
            }
        }
        lookups.removeAll { finished.contains($0.name) }
        if let running = check, let checkIndex, ready[checkIndex].contains(.readable),
            let answer = try running.wait(timeout: .zero)
        {
            check = nil
            inputs.append(.checked(answer))
        }
        return inputs
    }
}
