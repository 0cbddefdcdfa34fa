import ReachSystem

/// Runs probes over the network: TCP connects and HTTP requests over ReachSystem's
/// sockets, ICMP echoes through the ping engine on an ICMP socket.
public struct NetworkProbeRunner: ProbeRunner {
    /// `--expect`: the text a 200 body must contain to pass.
    public var expectedText: String?
    /// `-4` / `-6`: the family probe targets are resolved to; nil for either.
    public var family: AddressFamily?
    public var userAgent = "reach/1"
    /// Drop every capability of the probe's thread before it reads anything from the
    /// network: an ICMP probe right after opening its sockets, any other at once. Set by
    /// the command line, which keeps CAP_NET_RAW (permitted) for ICMP probes only until
    /// their sockets are open (as iputils ping does). Capabilities are per thread.
    public var dropsCapabilities = false
    /// The command line's option that allows pinging a broadcast address (`-b`), which an
    /// icmp probe refused toward one names.
    public var broadcastOption: String?

    public init(expectedText: String? = nil, family: AddressFamily? = nil) {
        self.expectedText = expectedText
        self.family = family
    }

    public func run(_ spec: ProbeSpec, deadline: MonotonicInstant) throws -> ProbeResult {
        let start = MonotonicInstant.now()
        var family: AddressFamily?
        let (outcome, detail, location) = try probe(spec, deadline: deadline, family: &family)
        let elapsed = MonotonicInstant.now() - start
        return ProbeResult(spec: spec, outcome: outcome, elapsed: elapsed, detail: detail, location: location, family: family)
    }

    /// `used`: the family of the address probed, once the host resolved.
    private func probe(_ spec: ProbeSpec, deadline: MonotonicInstant, family used: inout AddressFamily?) throws
        -> (ProbeResult.Outcome, String, String?) {
        // The ICMP sockets first, for each family the host may resolve to, while the thread may
        // still hold CAP_NET_RAW; then none is left when the first byte from the network comes
        // (a resolver's answer, a reply, a hostile HTTP response on another probe's thread).
        let sockets = Self.icmpSockets(for: spec, family: family)
        if dropsCapabilities { try Capabilities.dropAll() }
        let address: IPAddress
        switch try resolve(spec.host, deadline: deadline) {
        case .success(let resolved): address = resolved
        case .failure(let why): return (.failed, why, nil)
        }
        used = address.family
        switch spec {
        case .tcp(_, let port):
            switch try TCPProbe.connect(to: address, port: port, deadline: deadline) {
            case .success: return (.passed, "connected to \(address) port \(port)", nil)
            case .failure(let why): return (.failed, why.detail, nil)
            }
        case .http(let host, let port, let path):
            return try http(address, host: host, port: port, path: path, deadline: deadline)
        case .icmp:
            guard let sockets else { throw SystemCallError("socket (ICMP, not opened)", .addressFamilyNotSupported) }
            return try icmp(address, socket: sockets.socket(for: address.family), deadline: deadline)
        }
    }

    private enum Resolution {
        case success(IPAddress)
        case failure(String)
    }

    private func resolve(_ host: String, deadline: MonotonicInstant) throws -> Resolution {
        switch try SystemHostResolver().addresses(of: host, family: family, timeout: deadline.remaining(from: .now())) {
        case .resolved(let addresses): return .success(addresses[0])
        case .notResolved(let why): return .failure("name not resolved: \(why)")
        case .failed(let error): throw error
        }
    }

    private func http(_ address: IPAddress, host: String, port: UInt16, path: String, deadline: MonotonicInstant) throws
        -> (ProbeResult.Outcome, String, String?) {
        var phases = HTTPProbe.Phases()
        switch try HTTPProbe(userAgent: userAgent).get(address, host: host, port: port, path: path, deadline: deadline, phases: &phases) {
        case .response(let response, _): return classify(response)
        case .notConnected(let why): return (.failed, why.detail, nil)
        case .noResponse(let why), .timedOut(let why): return (.failed, why, nil)
        case .malformed(let why): return (.portal, "unexpected answer (\(why))", nil)
        }
    }

    /// 204, or 200 with the expected text, passes; a redirect or anything else is a portal.
    func classify(_ response: HTTPResponse) -> (ProbeResult.Outcome, String, String?) {
        let code = response.statusCode
        if code == 204 { return (.passed, "HTTP 204", nil) }
        if code == 200, let expectedText {
            if response.body.containsSubsequence(Array(expectedText.utf8)) { return (.passed, "HTTP 200 with the expected text", nil) }
            return (.portal, "HTTP 200 without the expected text", nil)
        }
        if (300...399).contains(code) {
            let location = response.header("Location")
            return (.portal, "http probe redirected to \(location ?? "(no Location)")", location)
        }
        return (.portal, "HTTP \(code)", nil)
    }
}

extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= count else { return false }
        for start in 0...(count - needle.count) where self[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}
