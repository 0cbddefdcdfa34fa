import ReachCore
@testable import ReachExporterProbes

/// A DNS response as the exporter's dns prober reads it (Fuzz/capture-dns-seeds.py writes real
/// ones from dnsmasq). Besides "no trap" and a bounded time however the compression pointers
/// loop: no section holds more records than its header count, every record renders to text
/// (what blackbox_exporter's regular expressions match), and every name's text reads back
/// as the same labels, so the text escapes what it must.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDNS(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput.bytes(start, count)
    guard let message = try? DNSMessage.decode(input) else { return 0 }
    let counts = (0..<4).map { Int(input[4 + 2 * $0]) << 8 | Int(input[5 + 2 * $0]) }
    precondition(message.questions.count <= counts[0], "more questions than QDCOUNT")
    precondition(message.answers.count <= counts[1] && message.authorities.count <= counts[2], "more records than counted")
    precondition(message.additionals.count <= counts[3], "more additional records than ARCOUNT")
    for question in message.questions { checkRoundTrip(question.name) }
    for record in message.answers + message.authorities + message.additionals {
        precondition(!record.text.isEmpty, "a record with no text")
        checkRoundTrip(record.name)
        switch record.data {
        case .name(let name), .preference(_, let name), .service(_, _, _, let name): checkRoundTrip(name)
        case .names(let first, let second): [first, second].forEach(checkRoundTrip)
        case .soa(let soa): [soa.primary, soa.mailbox].forEach(checkRoundTrip)
        default: break
        }
    }
    return 0
}

private func checkRoundTrip(_ name: DNSName) {
    guard let parsed = try? DNSName.parse(name.text) else { preconditionFailure("'\(name.text)' does not parse back") }
    precondition(parsed == name, "'\(name.text)' parses back as other labels")
    var wire: [UInt8] = []
    name.encode(into: &wire)
    precondition(wire.count <= DNSName.maximumWireLength, "a decoded name of \(wire.count) bytes")
}
