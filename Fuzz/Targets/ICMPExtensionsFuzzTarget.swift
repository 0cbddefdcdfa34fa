import ReachCore
import ReachSystem

/// ICMP extensions (RFC 4884, 4950, 5837) found in a whole ICMP message, in what an error
/// queue returns, and parsed as a structure alone. The input (scripts/fuzz-seeds.py writes
/// seeds built from the RFCs' layouts):
///
///     flags: bit 0 IPv6
///     stripped headers (1 byte), probe data length (1 byte), the kernel's offset (2 bytes,
///     big-endian; 0xffff for none), then the bytes
///
/// Besides "no trap": a parsed structure holds no more objects than its words allow, prints
/// no control character (traceroute's text escapes a name's bytes), and encodes to bytes
/// that parse back to the same objects.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICMPExtensions(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    var input = FuzzInput.Reader(FuzzInput.bytes(start, count))
    guard let flags = input.byte(), let stripped = input.byte(), let probeData = input.byte(), let offset = input.uint16(),
        let bytes = input.bytes(count - 5)
    else { return 0 }
    let layout = flags & 1 == 0 ? ICMPv4().multipartLayout : ICMPv6().multipartLayout
    if let structure = try? ICMPExtensions.parse(bytes) { check(structure, from: bytes.count) }
    if let found = ICMPExtensions.inMessage(bytes, layout: layout) { check(found, from: bytes.count) }
    let kernelOffset = offset == 0xffff ? nil : Int(offset)
    let queued = ICMPExtensions.inQueuedError(
        bytes, strippedHeaders: Int(stripped), probeData: Int(probeData), layout: layout, kernelOffset: kernelOffset)
    if let queued { check(queued, from: bytes.count) }
    return 0
}

private func check(_ extensions: ICMPExtensions, from count: Int) {
    precondition(extensions.objects.count <= (count - 4) / 4, "\(extensions.objects.count) objects in \(count) bytes")
    let text = extensions.tracerouteText
    precondition(!text.utf8.contains { $0 < 0x20 || $0 == 0x7f }, "a control character in '\(text)'")
    let encoded = extensions.encoded
    guard let again = try? ICMPExtensions.parse(encoded[...]) else { preconditionFailure("'\(text)' does not encode to a structure") }
    precondition(again == extensions, "'\(text)' encodes to '\(again.tracerouteText)'")
}
