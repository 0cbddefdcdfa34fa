import ReachSystem

/// The module as `&debug=true` shows it: blackbox_exporter marshals its Module with yaml.v3
/// (four-space indents, empty values left out, `omitempty`); the same here for the keys each
/// prober's key table prints, its settings' empty values left out, `true` defaults kept as there.
extension ExporterModule {
    public var yaml: String {
        var out = "prober: \(prober.rawValue)\n"
        if let timeout { out += "timeout: \(Self.goDuration(timeout))\n" }
        out += DebugValue.block("http", http, HTTPProberSettings.keys)
        out += DebugValue.block("tcp", tcp, TCPProberSettings.keys)
        out += DebugValue.block("icmp", icmp, ICMPProberSettings.keys)
        out += DebugValue.block("dns", dns, DNSProberSettings.keys)
        if grpc != GRPCProberSettings.unset { out += DebugValue.block("grpc", grpc, GRPCProberSettings.keys) }
        if prober == .trace { out += DebugValue.block("trace", trace, TraceProberSettings.keys) }
        return out
    }

    /// Go's Duration.String for whole milliseconds and up: "5s", "1m30s", "500ms".
    static func goDuration(_ span: TimeSpan) -> String {
        let milliseconds = span.milliseconds
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        var text = ""
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let seconds = Double(milliseconds % 60_000) / 1000
        if hours > 0 { text += "\(hours)h" }
        if hours > 0 || minutes > 0 { text += "\(minutes)m" }
        let whole = seconds.rounded(.towardZero) == seconds
        return text + (whole ? "\(Int(seconds))s" : "\(seconds)s")
    }
}
