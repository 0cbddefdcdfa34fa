import ReachSystem

extension TraceReply {
    /// The RFC 4884 extension objects of the error this reply is (an MPLS label stack, the
    /// router's interface), found where traceroute 2.1.2 looks in what the error queue
    /// returned (ICMPExtensions.inQueuedError); none for an answer of another kind.
    /// `packetBytes`: the whole probe, headers included, as sent.
    public func extensions(packetBytes: Int, family: AddressFamily) -> [ICMPExtensionObject] {
        let layout = icmpFamily(for: family).multipartLayout
        guard let icmpType, layout.carriesExtensions(ICMPType(icmpType)) else { return [] }
        let found = ICMPExtensions.inQueuedError(
            quote[...], strippedHeaders: quoteOffset, probeData: packetBytes - quoteOffset, layout: layout)
        return found?.objects ?? []
    }
}
