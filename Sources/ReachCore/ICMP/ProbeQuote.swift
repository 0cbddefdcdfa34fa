import ReachSystem

/// An error that names one of our probes: an ICMP error read from a raw socket, whose
/// quote carries the probe's identifier and sequence (RFC 792, RFC 4443 section 3), or an
/// entry of a datagram socket's error queue, which returns the probe itself (ip(7)
/// IP_RECVERR). Both engines read errors through it, so they match them to probes alike.
struct ProbeQuote {
    /// The sequence number of the quoted probe.
    var sequence: UInt16
    /// Where the quoted probe was going, when the quote or the queue says.
    var destination: IPAddress?
    /// Who sent the error, when known.
    var from: IPAddress?
    var origin: QueuedError.Origin
    var type: ICMPType
    var code: UInt8
    /// The 4 bytes after the checksum (next-hop MTU, parameter pointer).
    var info: UInt32
    /// The local stack's error (error queue entries only).
    var errno: Errno?

    /// Whether the quoted probe was going to `target` (true when the quote does not say).
    func isAbout(_ target: IPAddress) -> Bool { destination == nil || destination?.bytes == target.bytes }

    /// What a datagram that is not an echo reply says: an error quoting a probe with
    /// `identifier`, or why it is not about our probes.
    static func read(_ datagram: ReceivedDatagram, codec: ICMPCodec, identifier: UInt16) -> Either {
        let message: ICMPMessage
        do {
            message = try codec.parse(datagram.bytes, includesIPHeader: datagram.includesIPHeader)
        } catch {
            return .notOurs(UnexpectedPacket(from: datagram.from, reason: "\(error)"))
        }
        guard case .error(let info, let destination, let echo?) = message.body, echo.identifier == identifier else {
            return .notOurs(
                UnexpectedPacket(
                    from: datagram.from, type: message.type, code: message.code, reason: "not an answer to our probes"))
        }
        return .quote(
            ProbeQuote(
                sequence: echo.sequence, destination: destination, from: message.ipSource ?? datagram.from, origin: .icmp,
                type: message.type, code: message.code, info: info, errno: nil))
    }

    /// What an error queue entry says: the probe it returns, or why it is not ours.
    static func read(_ queued: QueuedError, codec: ICMPCodec) -> Either {
        let sequence: UInt16
        do {
            let message = try codec.parse(queued.originalPacket, includesIPHeader: false)
            guard case .echo(_, let quoted, _) = message.body else {
                return .notOurs(UnexpectedPacket(from: queued.offender, reason: "error queue entry without our probe"))
            }
            sequence = quoted
        } catch {
            return .notOurs(UnexpectedPacket(from: queued.offender, reason: "error queue entry: \(error)"))
        }
        return .quote(
            ProbeQuote(
                sequence: sequence, destination: queued.destination, from: queued.offender, origin: queued.origin,
                type: ICMPType(queued.type), code: queued.code, info: queued.info, errno: queued.errno))
    }

    enum Either {
        case quote(ProbeQuote)
        case notOurs(UnexpectedPacket)
    }
}
