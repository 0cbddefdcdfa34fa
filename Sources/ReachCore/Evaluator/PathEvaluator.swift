import ReachSystem

/// Turns the kernel's route answer and link facts into flags and a verdict
/// (docs/MODEL.md, after configd's `checkAddress` in SCNetworkReachability.c).
public struct PathEvaluator {
    public var kernel: KernelRoutingFacts
    public var classifier: LinkClassifier
    /// SLReachability's "WWAN not allowed": a cellular path is not reachable.
    public var allowsCellular: Bool
    /// Apple's `prohibitExpensivePaths`: an expensive path is not reachable.
    public var allowsExpensive: Bool
    /// ModemManager's and NetworkManager's word on links; nil: the kernel's facts alone.
    public var linkFacts: LinkFactsSource?
    /// `ip route get`'s selectors (source, output link, mark, user) for every destination.
    public var selectors = RouteSelectors.none
    /// `-I`: the link every lookup leaves through, by name, looked up at each evaluation (a
    /// watch may wait for it to appear); nil: the kernel's choice.
    public var interfaceName: String?
    /// The rules and tables `status --all` lists; nil: none to list.
    public var tables: RoutingTableSource?
    /// Whether the link with this index ignores its routes while it has no carrier.
    public var ignoresLinkDown: (UInt32, AddressFamily) -> Bool = NetworkConfiguration.ignoresRoutesWithLinkDown(interface:family:)
    /// Each link's report, kept for the rest of a run over many targets; nil: asked each time.
    var linkMemo: LinkMemo?

    public init(kernel: KernelRoutingFacts, classifier: LinkClassifier = LinkClassifier(), allowsCellular: Bool = true,
                allowsExpensive: Bool = true, linkFacts: LinkFactsSource? = nil) {
        self.kernel = kernel
        self.classifier = classifier
        self.allowsCellular = allowsCellular
        self.allowsExpensive = allowsExpensive
        self.linkFacts = linkFacts
    }

    /// Evaluates one destination. Throws only for failures that are not verdicts.
    public func evaluate(_ destination: IPAddress) throws -> PathReport {
        try evaluate([destination])[0]
    }

    /// Evaluates destinations in order, their route lookups asked together: the same verdict
    /// each as alone.
    public func evaluate(_ destinations: [IPAddress]) throws -> [PathReport] {
        guard let chosen = currentSelectors() else {
            // `-I`'s link is not there (yet): nothing can leave through it.
            return destinations.map { PathReport(destination: $0, flags: [.connectionRequired], reason: .linkDown) }
        }
        let answers = try kernel.lookupRoutes(to: destinations, selectors: chosen)
        var reports: [PathReport] = []
        reports.reserveCapacity(destinations.count)
        for (destination, answer) in zip(destinations, answers) {
            reports.append(try evaluate(destination, answer: answer))
        }
        return reports
    }

    /// The selectors with `-I`'s link as the output interface; nil while that link does not exist.
    func currentSelectors() -> RouteSelectors? {
        guard let interfaceName else { return selectors }
        guard let index = NetworkInterface.index(named: interfaceName) else { return nil }
        var chosen = selectors
        chosen.outputInterface = index
        return chosen
    }

    func evaluate(_ destination: IPAddress, answer lookup: RouteLookupResult) throws -> PathReport {
        let answer: RouteAnswer
        switch lookup {
        case .rejected(let errno):
            return PathReport(destination: destination, flags: [], reason: try Self.reason(forRejection: errno))
        case .route(let route):
            answer = route
        }
        if let reason = Self.reason(forRouteType: answer.type) {
            return PathReport(destination: destination, flags: [], reason: reason)
        }
        guard let index = answer.outputInterface, let link = try kernel.link(index: index) else {
            // The route names no link we can see: nothing can leave through it.
            return PathReport(destination: destination, flags: [.connectionRequired], reason: .linkDown,
                              gateway: answer.gateway, source: answer.preferredSource)
        }
        return evaluate(destination, route: answer, link: link, underlay: try underlay(of: link))
    }

    /// The link that carries a kernel tunnel's packets: the one the kernel routes its
    /// remote end through. nil for links that are not tunnels, and for a tun device,
    /// whose far end the kernel does not know.
    func underlay(of link: LinkFacts) throws -> LinkFacts? {
        guard let remote = link.tunnelRemote, case .route(let route) = try kernel.lookupRoute(to: remote),
              let index = route.outputInterface, index != link.index else { return nil }
        return try kernel.link(index: index)
    }

    /// The pure part: route and link facts to flags and verdict.
    public func evaluate(_ destination: IPAddress, route: RouteAnswer, link: LinkFacts, underlay: LinkFacts? = nil) -> PathReport {
        let (services, linkReport) = described(link)
        let kind = linkReport.kind
        let underlayDescription = underlay.map(described)
        let underlayServices = underlayDescription?.services
        let underlayReport = underlayDescription?.report
        // Apple's rule: cellular under a tunnel is still cellular.
        let cellular = kind == .cellular || underlayReport?.kind == .cellular
        let metered = services?.metered?.isMetered == true || underlayServices?.metered?.isMetered == true
        var flags: ReachabilityFlags = []
        let pointToPoint = link.flags.contains(.pointToPoint)
        // Tunnels by their kind, as the classifier decides it: a tap shares the netlink kind
        // "tun" with a tun but is an Ethernet-framed virtual link, not a transient connection.
        if pointToPoint || link.hardwareType == .ppp || link.hardwareType == .none
            || kind == .vpn || kind == .cellular {
            flags.insert(.transientConnection)
        }
        if route.type == .local || link.flags.contains(.loopback) { flags.insert(.isLocalAddress) }
        if cellular { flags.insert(.isWWAN) }

        let linkReason = Self.reason(forLink: link, route: route)
        // IsDirect describes a path that can be used: a link without carrier reads
        // `-- c------` (docs/LINUX-FACTS.md, linkdown), as Apple sets IsDirect only on a satisfied path.
        if route.gateway == nil && !pointToPoint && linkReason == nil { flags.insert(.isDirect) }
        switch linkReason {
        case nil: flags.insert(.reachable)
        case .linkDormant?: flags.formUnion([.connectionRequired, .interventionRequired])
        default: flags.insert(.connectionRequired)
        }
        var reason = linkReason
        if reason == nil, cellular, !allowsCellular { reason = .cellularRefused }
        let expensive = cellular || metered
        if reason == nil, expensive, !allowsExpensive { reason = .expensiveRefused }
        return PathReport(
            destination: destination, flags: flags, reason: reason, link: linkReport,
            gateway: route.gateway, source: route.preferredSource, underlyingLink: underlayReport, expensive: expensive,
            delivery: PathDelivery(routeType: route.type))
    }

    /// A link's services' facts and its report: from the memo when the run keeps one (the
    /// classifier's sysfs reads and the services' answers once per link, not per target).
    func described(_ link: LinkFacts) -> (services: LinkServiceFacts?, report: LinkReport) {
        if let known = linkMemo?.entry(for: link) { return known }
        let services = serviceFacts(of: link)
        let described = (services, report(link, services: services))
        linkMemo?.remember(link, described)
        return described
    }

    /// What the services say of a link; nil without a source, and for loopback, which no
    /// modem claims and no connection meters (so `reach addr 127.0.0.1` asks nobody).
    func serviceFacts(of link: LinkFacts) -> LinkServiceFacts? {
        guard let linkFacts, !link.flags.contains(.loopback) else { return nil }
        return linkFacts.facts(forLink: link.name)
    }

    /// A link as reported: a modem's NET port is cellular whatever its kernel facts (as
    /// NetworkManager and mmcli read it: the Ports property of ModemManager's
    /// introspection/org.freedesktop.ModemManager1.Modem.xml); a cellular link
    /// carries the modem's facts, all unknown when no modem claims it.
    func report(_ link: LinkFacts, services: LinkServiceFacts?) -> LinkReport {
        let modem = services?.modem
        let kind = modem != nil ? .cellular : classifier.classify(link)
        return LinkReport(name: link.name, index: link.index, kind: kind, operState: link.operState,
                          cellular: kind == .cellular ? modem ?? CellularFacts() : nil)
    }

    /// Whether anything can pass through the link: admin up, running, and an
    /// operstate of up or unknown (lo, and some drivers, report unknown).
    static func reason(forLink link: LinkFacts, route: RouteAnswer) -> UnreachableReason? {
        guard link.flags.contains(.up) else { return .linkDown }
        if link.operState == .dormant || link.flags.contains(.dormant) { return .linkDormant }
        let operational = link.operState == .up || link.operState == .unknown
        if !link.flags.contains(.running) || !operational || link.carrier == false { return .noCarrier }
        if !route.flags.intersection([.linkDown, .dead]).isEmpty { return .noCarrier }
        return nil
    }

    /// The verdicts RTM_GETROUTE gives as errors (fib_props in net/ipv4/fib_semantics.c). Anything else is a failure.
    static func reason(forRejection errno: Errno) throws -> UnreachableReason {
        if let reason = UnreachableReason(routeRefusal: errno) { return reason }
        switch errno {
        // A kernel booted with ipv6.disable=1 has no RTM_GETROUTE handler for AF_INET6 and
        // answers EOPNOTSUPP (OpenVPN logs "rtnl: generic error (-95)" there): that family has
        // no route at all, which must not make `reach status` fail for the other one.
        case .operationNotSupported: return .noRoute
        default: throw NetlinkRequestError(request: "RTM_GETROUTE", errno: errno)
        }
    }

    /// Older kernels answer reject routes with a route message of a reject type.
    static func reason(forRouteType type: RouteType) -> UnreachableReason? {
        switch type {
        case .unicast, .local, .broadcast, .multicast, .anycast: return nil
        case .unreachable: return .unreachableRoute
        case .blackhole: return .blackholeRoute
        case .prohibit: return .prohibitedRoute
        default: return .noRoute
        }
    }
}

/// What a run learnt of each link it met, by index and name: a run over many targets sees
/// each link as it was when first met (an array, not a dictionary: a run meets few links).
final class LinkMemo {
    private var entries: [(index: UInt32, name: String, services: LinkServiceFacts?, report: LinkReport)] = []

    func entry(for link: LinkFacts) -> (services: LinkServiceFacts?, report: LinkReport)? {
        guard let known = entries.first(where: { $0.index == link.index && $0.name == link.name }) else { return nil }
        return (known.services, known.report)
    }

    func remember(_ link: LinkFacts, _ described: (services: LinkServiceFacts?, report: LinkReport)) {
        entries.append((link.index, link.name, described.services, described.report))
    }
}
