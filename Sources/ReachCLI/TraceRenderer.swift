import ReachCommandLine
import ReachCore
import ReachSystem

/// traceroute 2.1.2's text (traceroute.c print_header, print_probe, print_end), probe by
/// probe as the engine settles them, and reach's closing line.
struct TraceRenderer {
    /// -n: addresses only; otherwise `name (address)`, the address standing for a name.
    var numeric: Bool
    var names: (IPAddress) -> String? = AddressName.lookup
    /// The last address printed on the current hop's line, and the hop.
    private var printed: IPAddress?
    /// -e: ICMP extensions shown after the address, as traceroute -e; those last printed.
    var showsExtensions = false
    private var printedExtensions = ""
    private var cache: [IPAddress: String] = [:]

    init(numeric: Bool, names: @escaping (IPAddress) -> String? = AddressName.lookup) {
        self.numeric = numeric
        self.names = names
    }

    /// "traceroute to db.example (198.51.100.7), 30 hops max, 60 byte packets", without the
    /// newline: the first hop's line starts with one (print_probe).
    static func header(host: String, address: IPAddress, maxHops: Int, packetBytes: Int) -> String {
        "traceroute to \(PrintableText.escaped(host)) (\(address)), \(maxHops) hops max, \(packetBytes) byte packets"
    }

    /// One probe's text: a new line with the hop number for a hop's first probe, the
    /// responder when it is the hop's first or differs from the one before, the round
    /// trip ("  0.215 ms"), the annotation; " *" for no answer.
    mutating func text(_ outcome: TraceProbeOutcome) -> String {
        var text = ""
        if outcome.index == 0 {
            text += "\n" + (outcome.hop < 10 ? " " : "") + "\(outcome.hop) "
            printed = nil
            printedExtensions = ""
        }
        guard let answer = outcome.answer else { return text + " *" }
        // -e: the extensions after the address (" <MPLS:...>"), which is printed again when
        // they differ from the probe's before (traceroute.c print_probe).
        let extensions = showsExtensions ? ICMPExtensions(objects: answer.extensions).tracerouteText : ""
        if printed != answer.responder || extensions != printedExtensions {
            text += " " + label(answer.responder) + (extensions.isEmpty ? "" : " <\(extensions)>")
            printed = answer.responder
            printedExtensions = extensions
        }
        text += "  " + Self.milliseconds(answer.roundTrip) + " ms"
        if case .stopped(let annotation) = answer.verdict { text += " \(annotation)" }
        return text
    }

    /// print_end: the newline that ends the last hop's line (or the header's).
    static let end = "\n"

    /// "%.3f" of the round trip in milliseconds.
    static func milliseconds(_ span: TimeSpan) -> String {
        let micros = (span.nanoseconds + 500) / 1000
        let fraction = String(micros % 1000)
        return "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    private mutating func label(_ address: IPAddress) -> String {
        if numeric { return address.description }
        if let known = cache[address] { return "\(known) (\(address))" }
        let name = names(address).map { PrintableText.escaped($0) } ?? address.description
        cache[address] = name
        return "\(name) (\(address))"
    }

    /// reach's closing line: the last hop that answered and why the trace stopped.
    static func closing(_ result: TraceResult) -> String {
        let last = result.lastAnswered.map { "last answer from hop \($0.hop) (\($0.responder))" } ?? "no hop answered"
        let why: String
        switch result.stop {
        case .reachedDestination(let hop): why = "the destination answered at hop \(hop)"
        case .stopped(let annotation, let hop): why = "stopped at hop \(hop): \(annotation.reason) (\(annotation))"
        case .maxHopsReached(let hops): why = "the destination did not answer within \(hops) hops"
        case .cutShort: why = "interrupted"
        }
        return "trace: \(last); \(why)\n"
    }
}
