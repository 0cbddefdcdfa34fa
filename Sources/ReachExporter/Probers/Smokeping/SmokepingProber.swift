import ReachCommandLine
import ReachCore
import ReachExporterProbes
import ReachSystem

/// smokeping_prober's job: the `targets:` groups probed for as long as the exporter serves.
/// Every address of a name is its own series (smokeping_prober pings the first); names are
/// looked up again every `resolveInterval`, and an address that left the answer takes its
/// series with it. The lookups run on a thread of their own; the probes on one thread per
/// source address and packet size (one in all for the usual file), each a `ContinuousPinger`.
public final class SmokepingProber: @unchecked Sendable {
    public let metrics: SmokepingMetrics
    let resolveInterval: TimeSpan
    let log: ExporterLog
    private let lock = Lock()
    private var groups: [SmokepingTargetGroup]
    /// The command line's group, which no reload changes.
    private let fixedGroups: [SmokepingTargetGroup]
    /// Counts replacements of `groups`, so the lookup thread sees one at its next turn.
    private var revision = 0
    /// The lookup thread starts with the first target, so an exporter without any has no
    /// thread that wakes.
    private var started = false

    // The lookup thread's own.
    private var pingers: [(key: PingerKey, pinger: ContinuousPinger, plan: ContinuousPlan)] = []
    private var seriesIDs: [SeriesKey: Int] = [:]
    private var active: Set<Int> = []
    private var nextSeriesID = 0
    private var connectors: [(source: IPAddress?, connector: ContinuousConnector, targets: [ContinuousConnector.Target])] = []

    /// What a run's sockets and packets are made of.
    struct PingerKey: Equatable {
        var source: IPAddress?
        var size: Int
    }

    /// One address of one host of one group, under the group's labels: one series.
    struct SeriesKey: Hashable {
        var group: Int
        var host: String
        var address: IPAddress
        var labels: [HeaderField]
    }

    /// A name's addresses, or why there are none.
    struct Resolved {
        var group: Int
        var host: String
        var addresses: [IPAddress]
    }

    /// `fileGroups`: the configuration file's, replaced by each reload; `fixedGroups`: the
    /// command line's.
    public init(
        fileGroups: [SmokepingTargetGroup], fixedGroups: [SmokepingTargetGroup], layout: LatencyHistogram.Layout,
        resolveInterval: TimeSpan, log: ExporterLog
    ) {
        groups = fixedGroups + fileGroups
        self.fixedGroups = fixedGroups
        self.resolveInterval = resolveInterval
        self.log = log
        metrics = SmokepingMetrics(layout: layout)
    }

    /// Starts the lookup thread, which starts the runs, once there is a target.
    public func start() throws(SystemCallError) {
        let starting = lock.withLock { () -> Bool in
            guard !started, groups.contains(where: { !$0.hosts.isEmpty }) else { return false }
            started = true
            return true
        }
        if starting { try DetachedThread.start { [self] in lookUpForever() } }
    }

    /// Whether the lookup thread runs (a target was given at some point).
    public var isRunning: Bool { lock.withLock { started } }

    /// The groups of a configuration read again: in force at the lookup thread's next turn.
    public func replace(fileGroups: [SmokepingTargetGroup]) throws(SystemCallError) {
        lock.withLock {
            let newGroups = fixedGroups + fileGroups
            guard newGroups != groups else { return }
            groups = newGroups
            revision += 1
        }
        try start()
    }

    /// Looks the names up at once, then every `resolveInterval`, or as soon as the groups
    /// change; a turn each second at most.
    private func lookUpForever() {
        var seen = -1
        var last: MonotonicInstant?
        while true {
            let (current, number) = lock.withLock { (groups, revision) }
            let now = MonotonicInstant.now()
            if number != seen || last.map({ now - $0 >= resolveInterval }) ?? true {
                apply(resolve(current), groups: current)
                seen = number
                last = now
            }
            ContinuousPinger.rest(for: .seconds(1))
        }
    }

    /// Each host's addresses: a literal as it is, a name through the resolver (a group's
    /// names at once, each lookup bounded), in the group's family.
    private func resolve(_ groups: [SmokepingTargetGroup]) -> [Resolved] {
        var answers: [Resolved] = []
        for (index, group) in groups.enumerated() {
            let family: AddressFamily? = group.network == "ip4" ? .ipv4 : group.network == "ip6" ? .ipv6 : nil
            var names: [String] = []
            for host in group.hosts {
                if let literal = try? IPAddress.parse(host) {
                    let wanted = family.map { literal.family == $0 } ?? true
                    answers.append(Resolved(group: index, host: host, addresses: wanted ? [literal] : []))
                } else {
                    names.append(host)
                }
            }
            let outcomes = (try? SystemHostResolver().resolve(all: names, family: family, timeout: .seconds(10))) ?? []
            for (name, outcome) in zip(names, outcomes) {
                guard case .resolved(let addresses) = outcome, !addresses.isEmpty else {
                    log.write(.warn, "smokeping target \(PrintableText.ascii(name)) did not resolve")
                    metrics.countResolutionFailure(of: name)
                    answers.append(Resolved(group: index, host: name, addresses: []))
                    continue
                }
                var unique: [IPAddress] = []
                for address in addresses where !unique.contains(address) { unique.append(address) }
                answers.append(Resolved(group: index, host: name, addresses: unique))
            }
        }
        return answers
    }

    /// The plans for the answers: series made for new addresses, dropped for departed
    /// ones, and each run given its new plan only when it changed.
    private func apply(_ answers: [Resolved], groups: [SmokepingTargetGroup]) {
        var plans: [(key: PingerKey, plan: ContinuousPlan)] = []
        var handshakes: [(source: IPAddress?, targets: [ContinuousConnector.Target])] = []
        var now: Set<Int> = []
        for answer in answers {
            let group = groups[answer.group]
            let pace = PingEngine.Pace(period: group.interval, timeout: PingConfiguration.countModeTimeout(period: group.interval))
            if group.transport == "tcp" {
                let index = handshakes.firstIndex { $0.source == group.source } ?? handshakes.count
                if index == handshakes.count { handshakes.append((group.source, [])) }
                for address in answer.addresses {
                    let id = series(SeriesKey(group: answer.group, host: answer.host, address: address, labels: group.labels))
                    now.insert(id)
                    handshakes[index].targets.append(
                        ContinuousConnector.Target(address: address, port: UInt16(group.port), pace: pace, series: id))
                }
                continue
            }
            let key = PingerKey(source: group.source, size: group.size)
            let index = plans.firstIndex { $0.key == key } ?? plans.count
            if index == plans.count { plans.append((key, ContinuousPlan())) }
            for address in answer.addresses {
                guard plans[index].plan.targets.count < SmokepingTargetGroup.mostAddresses else {
                    let most = SmokepingTargetGroup.mostAddresses
                    log.write(.error, "smokeping target \(address) and after: more than \(most) addresses, left out")
                    break
                }
                let id = series(SeriesKey(group: answer.group, host: answer.host, address: address, labels: group.labels))
                now.insert(id)
                plans[index].plan.targets.append(address)
                plans[index].plan.paces.append(pace)
                plans[index].plan.series.append(id)
            }
        }
        for id in active.subtracting(now) { metrics.deactivate(id) }
        for key in seriesIDs.keys where !now.contains(seriesIDs[key]!) { seriesIDs[key] = nil }
        active = now
        hand(plans)
        hand(handshakes)
    }

    /// Each TCP source's targets to its connector, started for a new source.
    private func hand(_ handshakes: [(source: IPAddress?, targets: [ContinuousConnector.Target])]) {
        for index in connectors.indices where !handshakes.contains(where: { $0.source == connectors[index].source }) {
            if !connectors[index].targets.isEmpty { connectors[index].connector.replace(with: []) }
            connectors[index].targets = []
        }
        for (source, targets) in handshakes {
            if let index = connectors.firstIndex(where: { $0.source == source }) {
                // Unchanged, the handshakes in flight go on.
                if connectors[index].targets != targets { connectors[index].connector.replace(with: targets) }
                connectors[index].targets = targets
                continue
            }
            let connector = ContinuousConnector(source: source)
            do {
                try connector.start(reportingTo: metrics)
            } catch {
                log.write(.error, "cannot start the smokeping tcp probes: \(error)")
                continue
            }
            connector.replace(with: targets)
            connectors.append((source, connector, targets))
        }
    }

    /// The series of `key`, made (from zero) when the address is new.
    private func series(_ key: SeriesKey) -> Int {
        if let id = seriesIDs[key] { return id }
        let id = nextSeriesID
        nextSeriesID += 1
        seriesIDs[key] = id
        var all = [MetricSample.Label("host", key.host), MetricSample.Label("ip", key.address.description)]
        all += key.labels.map { MetricSample.Label($0.name, $0.value) }
        // client_golang writes a series' labels sorted by name.
        metrics.activate(id, labels: all.sorted { $0.name < $1.name })
        return id
    }

    /// Each run its plan: a new run for a new source or size, an empty plan for a run whose
    /// targets all left.
    private func hand(_ plans: [(key: PingerKey, plan: ContinuousPlan)]) {
        for index in pingers.indices where !plans.contains(where: { $0.key == pingers[index].key }) {
            if !pingers[index].plan.targets.isEmpty { pingers[index].pinger.replace(with: ContinuousPlan()) }
            pingers[index].plan = ContinuousPlan()
        }
        for (key, plan) in plans {
            if let index = pingers.firstIndex(where: { $0.key == key }) {
                guard pingers[index].plan != plan else { continue }
                pingers[index].plan = plan
                pingers[index].pinger.replace(with: plan)
                continue
            }
            let pinger = ContinuousPinger(source: key.source, payloadSize: key.size)
            do {
                try pinger.start(reportingTo: metrics)
            } catch {
                log.write(.error, "cannot start the smokeping probes: \(error)")
                continue
            }
            pinger.replace(with: plan)
            pingers.append((key, pinger, plan))
        }
    }
}
