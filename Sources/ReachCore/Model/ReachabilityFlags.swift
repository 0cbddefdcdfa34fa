/// The reachability flags, bit for bit `SCNetworkReachabilityFlags`, set from
/// Linux kernel facts (docs/MODEL.md). ConnectionOnTraffic and ConnectionOnDemand
/// have no Linux meaning and are never set.
public struct ReachabilityFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let transientConnection = ReachabilityFlags(rawValue: 1 << 0)
    public static let reachable = ReachabilityFlags(rawValue: 1 << 1)
    public static let connectionRequired = ReachabilityFlags(rawValue: 1 << 2)
    public static let connectionOnTraffic = ReachabilityFlags(rawValue: 1 << 3)
    public static let interventionRequired = ReachabilityFlags(rawValue: 1 << 4)
    public static let connectionOnDemand = ReachabilityFlags(rawValue: 1 << 5)
    public static let isLocalAddress = ReachabilityFlags(rawValue: 1 << 16)
    public static let isDirect = ReachabilityFlags(rawValue: 1 << 17)
    public static let isWWAN = ReachabilityFlags(rawValue: 1 << 18)

    /// Every flag with Apple's name, in bit order: the closed list the JSON uses.
    public static let named: [(flag: ReachabilityFlags, name: String)] = [
        (.transientConnection, "TransientConnection"),
        (.reachable, "Reachable"),
        (.connectionRequired, "ConnectionRequired"),
        (.connectionOnTraffic, "ConnectionOnTraffic"),
        (.interventionRequired, "InterventionRequired"),
        (.connectionOnDemand, "ConnectionOnDemand"),
        (.isLocalAddress, "IsLocalAddress"),
        (.isDirect, "IsDirect"),
        (.isWWAN, "IsWWAN"),
    ]

    public var names: [String] {
        Self.named.filter { contains($0.flag) }.map(\.name)
    }

    /// tonymillion/Reachability's `currentReachabilityFlags` view: "WR ctiCDld",
    /// each position its letter or "-".
    public var flagString: String {
        func letter(_ flag: ReachabilityFlags, _ character: Character) -> Character {
            contains(flag) ? character : "-"
        }
        return String([
            letter(.isWWAN, "W"), letter(.reachable, "R"), " ",
            letter(.connectionRequired, "c"), letter(.transientConnection, "t"),
            letter(.interventionRequired, "i"), letter(.connectionOnTraffic, "C"),
            letter(.connectionOnDemand, "D"), letter(.isLocalAddress, "l"), letter(.isDirect, "d"),
        ])
    }
}
