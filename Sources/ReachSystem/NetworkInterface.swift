/// The host's network interfaces by name and index (if_nametoindex(3), if_indextoname(3)).
public enum NetworkInterface {
    /// The index of the interface called `name`; nil when there is none.
    public static func index(named name: String) -> UInt32? {
        let index = System.interfaceIndex(named: name)
        return index == 0 ? nil : index
    }

    /// The name of the interface with this index; nil when there is none.
    public static func name(index: UInt32) -> String? {
        System.interfaceName(index: index)
    }
}

extension IPAddress {
    /// The address with its zone's interface looked up: a name becomes its index, an index
    /// must exist. Throws `unknownZone` when the interface does not exist (now).
    public func resolvingZone() throws(ParseError) -> IPAddress {
        guard let zone else { return self }
        if scopeID != 0 {
            guard NetworkInterface.name(index: scopeID) != nil else { throw .unknownZone(zone) }
            return self
        }
        guard let index = NetworkInterface.index(named: zone) else { throw .unknownZone(zone) }
        return withScopeID(index)
    }
}
