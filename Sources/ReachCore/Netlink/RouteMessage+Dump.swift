import ReachSystem

/// One next hop of a route in a table: a multipath route has several (RTA_MULTIPATH).
public struct NextHop: Equatable, Sendable {
    public var outputInterface: UInt32?
    public var gateway: IPAddress?
    public var flags: RouteFlags

    public init(outputInterface: UInt32?, gateway: IPAddress? = nil, flags: RouteFlags = []) {
        self.outputInterface = outputInterface
        self.gateway = gateway
        self.flags = flags
    }
}

/// A route as a dump of the tables lists it (`ip route show table all`).
public struct TableRoute: Equatable, Sendable {
    public var route: RouteAnswer
    public var destinationLength: UInt8
    public var sourceLength: UInt8
    /// RTA_PRIORITY, `metric` in `ip route`.
    public var metric: UInt32
    /// The next hops: one for a plain route, none for a reject route (blackhole,
    /// unreachable, prohibit), several for a multipath route.
    public var nextHops: [NextHop]

    public init(route: RouteAnswer, destinationLength: UInt8 = 0, sourceLength: UInt8 = 0, metric: UInt32 = 0, nextHops: [NextHop]? = nil) {
        self.route = route
        self.destinationLength = destinationLength
        self.sourceLength = sourceLength
        self.metric = metric
        self.nextHops = nextHops ?? (route.outputInterface == nil ? [] : [
            NextHop(outputInterface: route.outputInterface, gateway: route.gateway, flags: route.flags)
        ])
    }

    /// `default`: every destination, from every source.
    public var isDefault: Bool { destinationLength == 0 && sourceLength == 0 }
}

extension RouteAttribute {
    static let priority: UInt16 = 6 // RTA_PRIORITY
    static let multipath: UInt16 = 9 // RTA_MULTIPATH
}

extension RouteMessage {
    /// The payload of a dump of one family's routes in every table: an rtmsg with only the
    /// family set, as `ip route show table all` sends it (rtnl_routedump_req in lib/libnetlink.c).
    public static func dumpPayload(family: AddressFamily) -> [UInt8] {
        [UInt8(family.kernelValue)] + [UInt8](repeating: 0, count: headerLength - 1)
    }

    /// Decodes one RTM_NEWROUTE of a dump: the route, its prefix lengths, metric and next hops.
    public static func decodeTableRoute(_ payload: ArraySlice<UInt8>) throws -> TableRoute {
        let route = try decode(payload)
        var header = ByteReader(payload)
        try header.skip(1)
        let destinationLength = try header.readUInt8()
        let sourceLength = try header.readUInt8()
        var metric: UInt32 = 0
        var multipath: [NextHop]?
        for attribute in try NetlinkAttribute.parseAll(payload.dropFirst(headerLength)) {
            switch attribute.kind {
            case RouteAttribute.priority: metric = try attribute.uint32()
            case RouteAttribute.multipath: multipath = try nextHops(attribute.value, family: route.family)
            default: continue
            }
        }
        return TableRoute(
            route: route, destinationLength: destinationLength, sourceLength: sourceLength, metric: metric, nextHops: multipath)
    }

    /// The `struct rtnexthop`s of RTA_MULTIPATH (<linux/rtnetlink.h>): length, flags, hops,
    /// ifindex, then the hop's own attributes (its gateway).
    static func nextHops(_ bytes: ArraySlice<UInt8>, family: AddressFamily) throws -> [NextHop] {
        var hops: [NextHop] = []
        var reader = ByteReader(bytes)
        while reader.remaining >= 8 {
            let start = reader.relativeOffset
            let length = Int(try reader.readHostUInt16())
            let flags = RouteFlags(rawValue: UInt32(try reader.readUInt8()))
            try reader.skip(1) // rtnh_hops
            let index = UInt32(bitPattern: try reader.readHostInt32())
            guard length >= 8, length - 8 <= reader.remaining else {
                throw ParseError(offset: start, "next hop length \(length) does not fit the \(reader.remaining + 8) bytes left")
            }
            var hop = NextHop(outputInterface: index, flags: flags)
            let attributes = try NetlinkAttribute.parseAll(try reader.readBytes(length - 8))
            for attribute in attributes where attribute.kind == RouteAttribute.gateway { hop.gateway = attribute.address(family: family) }
            hops.append(hop)
            try reader.skip(min(Netlink.alignmentPadding(length), reader.remaining))
        }
        return hops
    }
}
