@testable import ReachCore
import ReachSystem

/// A response as an http probe reads it: the first byte picks how many bytes each read
/// brings (1-256), then the prefixes the read loop would see are parsed, as NetworkProbeRunner
/// parses them (the first 64 reads, then the rest at once: reparsing every byte of 8 KiB
/// would make each input cost 8,000 parses), and the last with the connection closed. Besides "no trap": a closed
/// connection always decides (complete or malformed), bodies stay within their limit, and
/// every complete response classifies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput.bytes(start, count)
    guard let first = input.first else { return 0 }
    let response = Array(input.dropFirst())
    let step = Int(first) + 1
    var end = 0
    var reads = 0
    while true {
        reads += 1
        end = reads > 64 ? response.count : min(end + step, response.count)
        let received = Array(response[..<end])
        let closed = end == response.count
        let progress = HTTPResponse.parse(received, connectionClosed: closed)
        switch progress {
        case .incomplete:
            precondition(!closed, "a closed connection left the response incomplete")
        case .complete(let parsed):
            check(parsed)
            return 0
        case .malformed(let why):
            precondition(!why.isEmpty, "malformed, with no reason")
            return 0
        }
        if closed { return 0 }
    }
}

private let prober = NetworkProbeRunner(expectedText: "success")

private func check(_ response: HTTPResponse) {
    precondition((100...999).contains(response.statusCode), "status \(response.statusCode)")
    precondition(response.body.count <= HTTPResponse.bodyLimit, "body of \(response.body.count) bytes")
    let (outcome, detail, location) = prober.classify(response)
    precondition(!detail.isEmpty, "classified with no detail")
    precondition(location == nil || outcome == .portal, "a location on a probe that is no portal")
}
