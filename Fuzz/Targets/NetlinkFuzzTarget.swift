import ReachCore
import ReachSystem

/// A datagram from a netlink socket, as RouteNetlinkClient and NetlinkDrain read it:
/// split into messages, then every payload decoded as a route, a link and an error code.
/// Any result is fine; a trap, a leak or a hang is the bug. The checks below are what
/// every successful parse must keep.
/// Netlink facts only: a sysfs root that does not exist, so no input reaches the file system.
private let classifier = LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent/reach-fuzz"))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNetlink(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let datagram = FuzzInput.bytes(start, count)
    guard let messages = try? NetlinkMessage.parseAll(datagram) else { return 0 }
    var consumed = 0
    for message in messages {
        consumed += NetlinkMessage.headerLength + message.payload.count
        _ = try? message.errorCode()
        if let route = try? RouteMessage.decode(message.payload) {
            for address in [route.gateway, route.preferredSource, route.destination].compactMap({ $0 }) {
                precondition(address.bytes.count == address.family.addressLength, "address of the wrong length")
                _ = address.description
            }
            _ = route.type.description
        }
        if let link = try? LinkMessage.decode(message.payload) {
            _ = link.operState.description
            _ = classifier.classify(link)
        }
        _ = try? NetlinkAttribute.parseAll(message.payload)
        // Re-encoding a parsed message gives a message that parses back to itself.
        let again = try? NetlinkMessage.parseAll(message.encoded())
        precondition(again?.count == 1 && again?[0] == message.reencodedForm, "message does not survive re-encoding")
    }
    precondition(consumed <= datagram.count, "messages claim more bytes than arrived")
    return 0
}

extension NetlinkMessage {
    /// What `encoded()` then `parseAll` gives: the same fields, the payload rebased at 0.
    fileprivate var reencodedForm: NetlinkMessage {
        NetlinkMessage(type: type, flags: flags, sequence: sequence, portID: portID, payload: Array(payload)[...])
    }
}
