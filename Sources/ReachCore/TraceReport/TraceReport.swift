import ReachSystem

/// mtr's view of a trace run in rounds (`reach trace --report`, the live table, the
/// exporter): a TraceHopStatistics per hop limit from the first, filled round by round.
public struct TraceReport: Equatable, Sendable {
    public var destination: IPAddress
    public var firstHop: Int
    /// Rounds recorded so far.
    public var rounds = 0
    /// Hop `firstHop + i` at index i, as far as any probe went.
    public private(set) var hops: [TraceHopStatistics] = []

    public init(destination: IPAddress, firstHop: Int = 1) {
        self.destination = destination
        self.firstHop = max(1, firstHop)
    }

    /// The statistics of `hop`, made (with those before it) on first use.
    public subscript(hop: Int) -> TraceHopStatistics {
        get {
            let index = hop - firstHop
            return index >= 0 && index < hops.count ? hops[index] : TraceHopStatistics(hop: hop)
        }
        set {
            let index = hop - firstHop
            guard index >= 0 else { return }
            while hops.count <= index { hops.append(TraceHopStatistics(hop: firstHop + hops.count)) }
            hops[index] = newValue
        }
    }

    /// The hops mtr's report lists (ui/net.c net_max): up to the first whose latest answer
    /// came from the destination or was an error that ends a trace; else one past the last
    /// hop that answered, so a trace that stops short shows the first silent hop as `???`.
    public var listedHops: ArraySlice<TraceHopStatistics> {
        var end = 0
        for (index, hop) in hops.enumerated() {
            if hop.latest == destination || hop.endsTrace { return hops[...index] }
            if hop.latest != nil { end = index + 2 }
        }
        return hops.prefix(min(end, hops.count))
    }

    /// Whether the destination answered a probe of the latest listed hop.
    public var reachedDestination: Bool { listedHops.last?.latest == destination }
}
