import ReachSystem

/// What a trace's probes carry, and how an answer is matched to one. Paris traceroute's
/// rule (Augustin et al., "Avoiding traceroute anomalies with Paris traceroute", IMC 2006):
/// a probe keeps every field a router hashes to pick among equal-cost paths, so each
/// probe of a flow takes the same path; the sequence goes where routers do not look.
public struct TraceProbeCodec: Sendable {
    public let method: TraceMethod
    public let family: AddressFamily
    /// The bytes after the transport header (at least TraceSettings.minimumData).
    public let dataLength: Int
    let icmp: ICMPCodec

    public init(method: TraceMethod, family: AddressFamily, transportLength: Int) {
        self.method = method
        self.family = family
        dataLength = max(TraceSettings.minimumData, transportLength - method.transportHeaderLength)
        icmp = ICMPCodec(family: icmpFamily(for: family))
    }

    /// The IP header before the transport header (IPv4 without options, IPv6 without
    /// extension headers), counted in where an error's extensions start.
    public var ipHeaderLength: Int { family == .ipv4 ? 20 : 40 }

    /// A UDP probe's data: the sequence, then traceroute's filler (0x40 upward, mod-udp.c).
    /// The ports stay those of the flow's socket; the UDP checksum, which routers do not
    /// hash, is what changes.
    public func udpPayload(sequence: UInt16) -> [UInt8] {
        var bytes = (0..<dataLength).map { UInt8(truncatingIfNeeded: 0x40 + $0) }
        bytes[0] = UInt8(sequence >> 8)
        bytes[1] = UInt8(sequence & 0xff)
        return bytes
    }

    /// An echo request whose checksum is the same for every sequence: the first data word
    /// is the sequence's ones' complement, so the two add up to 0xffff in the ones'
    /// complement sum (RFC 1071) and the checksum, which routers hash with the type and
    /// code (the first 4 bytes past the IP header), does not move.
    public func echoRequest(identifier: UInt16, sequence: UInt16) -> [UInt8] {
        var payload = (0..<dataLength).map { UInt8(truncatingIfNeeded: $0) }
        payload[0] = UInt8(~sequence >> 8)
        payload[1] = UInt8(~sequence & 0xff)
        return icmp.echoRequest(identifier: identifier, sequence: sequence, payload: payload)
    }

    /// The probe an error-queue entry returns, as a reply; nil when it is not one of ours.
    /// UDP: the queue gives the probe's data past the UDP header (ip(7) IP_RECVERR), which
    /// starts with the sequence; ICMP: the echo request from its header.
    public func reply(to queued: QueuedError, at instant: MonotonicInstant, target: IPAddress) -> TraceReply? {
        guard queued.origin == .icmp, let offender = queued.offender else { return nil }
        if let destination = queued.destination, destination.bytes != target.bytes { return nil }
        let quote = queued.originalPacket
        let sequence: UInt16
        switch method {
        case .udp:
            guard quote.count >= 2 else { return nil }
            sequence = UInt16(quote[0]) << 8 | UInt16(quote[1])
        case .tcp:
            // The quoted TCP header's sequence number (bytes 4 to 7; RFC 792's 8 bytes hold it).
            guard quote.count >= 8 else { return nil }
            sequence = UInt16(quote[6]) << 8 | UInt16(quote[7])
        case .icmp:
            guard case .quote(let probe) = ProbeQuote.read(queued, codec: icmp) else { return nil }
            sequence = probe.sequence
        }
        // The queue returns a UDP probe past its header, the others from their header.
        let headers = ipHeaderLength + (method == .udp ? method.transportHeaderLength : 0)
        return TraceReply(
            sequence: sequence, responder: offender, receivedAt: instant, icmpType: queued.type, icmpCode: queued.code,
            info: queued.info, quote: quote, quoteOffset: headers)
    }

    /// An ICMP socket's datagram as a reply: an echo reply from the destination, or (raw
    /// sockets) an error quoting our echo request; nil when neither is ours.
    public func reply(to datagram: ReceivedDatagram, identifier: UInt16, checksIdentifier: Bool, target: IPAddress) -> TraceReply? {
        guard method == .icmp, let message = try? icmp.parse(datagram.bytes, includesIPHeader: datagram.includesIPHeader) else {
            return nil
        }
        switch message.body {
        case .echo(let id, let sequence, _):
            guard message.type == icmp.echoReplyType, !checksIdentifier || id == identifier,
                datagram.from.bytes == target.bytes
            else { return nil }
            return TraceReply(
                sequence: sequence, responder: datagram.from, receivedAt: datagram.monotonicTime, icmpType: nil, icmpCode: nil)
        case .error:
            guard case .quote(let probe) = ProbeQuote.read(datagram, codec: icmp, identifier: identifier), probe.isAbout(target),
                let from = probe.from
            else { return nil }
            return TraceReply(
                sequence: probe.sequence, responder: from, receivedAt: datagram.monotonicTime, icmpType: probe.type.rawValue,
                icmpCode: probe.code, info: probe.info, quote: quotedProbe(in: datagram), quoteOffset: ipHeaderLength)
        case .other:
            return nil
        }
    }

    /// A raw socket's ICMP error from our echo request on, as the error queue would give it:
    /// past the error's own headers (its IPv4 header when the socket delivers it, its 8
    /// bytes of ICMP header) and the quoted IP header.
    func quotedProbe(in datagram: ReceivedDatagram) -> [UInt8] {
        var quoted = datagram.bytes
        if datagram.includesIPHeader, let first = quoted.first { quoted = quoted.dropFirst(Int(first & 0x0f) * 4) }
        quoted = quoted.dropFirst(ICMPCodec.headerLength)
        guard let inner = try? icmp.family.quotedHeaderLength(quoted) else { return [] }
        return Array(quoted.dropFirst(inner))
    }

    // MARK: - TCP (traceroute -T)

    /// A SYN from `sourcePort` (the flow's, fixed) whose sequence number carries the
    /// probe's sequence in its low 16 bits; options MSS and SACK-permitted, then NOPs to
    /// the probe's length (a SYN carries no data; at most 40 bytes of options, RFC 9293).
    public func tcpSYN(
        sequence: UInt16, sourcePort: UInt16, destinationPort: UInt16, source: IPAddress, destination: IPAddress
    ) -> [UInt8] {
        let length = min(60, max(28, (dataLength + method.transportHeaderLength) / 4 * 4))
        let number = UInt32(sequence) << 16 | UInt32(sequence)
        var segment: [UInt8] = [
            UInt8(sourcePort >> 8), UInt8(sourcePort & 0xff), UInt8(destinationPort >> 8), UInt8(destinationPort & 0xff),
            UInt8(number >> 24), UInt8(number >> 16 & 0xff), UInt8(number >> 8 & 0xff), UInt8(number & 0xff),
            0, 0, 0, 0,
            UInt8(length / 4) << 4, 0x02,
            0xfa, 0xf0, 0, 0, 0, 0,
            2, 4, 0x05, 0xb4, 4, 2,
        ]
        segment += [UInt8](repeating: 1, count: length - segment.count)
        let sum = Self.pseudoHeaderSum(source: source, destination: destination, length: segment.count) &+ ICMPCodec.wordSum(segment[...])
        let checksum = ICMPCodec.checksum(wordSum: sum)
        segment[16] = UInt8(checksum >> 8)
        segment[17] = UInt8(checksum & 0xff)
        return segment
    }

    /// The pseudo-header TCP's checksum covers (RFC 9293 section 3.1, RFC 8200 section 8.1).
    static func pseudoHeaderSum(source: IPAddress, destination: IPAddress, length: Int) -> UInt32 {
        var header = source.bytes + destination.bytes
        header +=
            source.family == .ipv4
            ? [0, 6, UInt8(length >> 8), UInt8(length & 0xff)] : [0, 0, UInt8(length >> 8), UInt8(length & 0xff), 0, 0, 0, 6]
        return ICMPCodec.wordSum(header[...])
    }

    /// The destination's answer to a SYN (a SYN-ACK or a reset, both acknowledging our
    /// sequence number plus one), from the raw TCP socket; nil for any other segment.
    public func tcpReply(to datagram: ReceivedDatagram, sourcePort: UInt16, destinationPort: UInt16, target: IPAddress) -> TraceReply? {
        var segment = datagram.bytes
        if datagram.includesIPHeader {
            guard let first = segment.first else { return nil }
            segment = segment.dropFirst(Int(first & 0x0f) * 4)
        }
        guard method == .tcp, segment.count >= 14, datagram.from.bytes == target.bytes else { return nil }
        let bytes = Array(segment)
        let ports = (UInt16(bytes[0]) << 8 | UInt16(bytes[1]), UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
        let acknowledged = bytes[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        // ACK set (0x10), with SYN (0x02) or RST (0x04).
        guard ports == (destinationPort, sourcePort), bytes[13] & 0x10 != 0, bytes[13] & 0x06 != 0 else { return nil }
        return TraceReply(
            sequence: UInt16(truncatingIfNeeded: acknowledged &- 1), responder: datagram.from, receivedAt: datagram.monotonicTime,
            icmpType: nil, icmpCode: nil)
    }
}
