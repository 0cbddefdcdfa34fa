import ReachCore
import ReachSystem

/// `&debug=true`: the answer blackbox_exporter's `prober/handler.go` DebugOutput gives
/// instead of the metrics: "Logs for the probe:" (its logfmt lines), "Metrics that would have
/// been returned:" (the exposition) and "Module configuration:" (the module as YAML).
public enum ProbeDebugOutput {
    public static func render(
        _ request: ExporterRouter.ProbeRequest, target text: String, measurement: ProbeMeasurement, started: RealtimeInstant
    ) -> [UInt8] {
        var out = "Logs for the probe:\n"
        for line in logLines(request, target: text, measurement: measurement, started: started) { out += line + "\n" }
        out += "\n\n\nMetrics that would have been returned:\n"
        var bytes = Array(out.utf8) + Exposition.render(measurement.samples)
        bytes += Array("\n\n\nModule configuration:\n\(request.module.yaml)".utf8)
        return bytes
    }

    /// The probe's steps, in the words and fields blackbox_exporter logs them with.
    static func logLines(
        _ request: ExporterRouter.ProbeRequest, target: String, measurement: ProbeMeasurement, started: RealtimeInstant
    ) -> [String] {
        let prefix = "ts=\(UTCTimestamp.iso8601(started)) module=\(quoted(request.module.name)) target=\(quoted(target))"
        let module = request.module
        var lines = [
            "\(prefix) level=info msg=\"Beginning probe\" probe=\(module.prober.rawValue) timeout_seconds=\(request.timeout.secondsValue)",
            "\(prefix) level=info msg=\"Resolving target address\" target=\(quoted(request.target.host)) "
                + "ip_protocol=\(module.preferredIPProtocol.rawValue)",
        ]
        let resolved = measurement.families.isEmpty ? measurement.address.map { [$0] } ?? [] : measurement.families.map(\.address)
        for address in resolved {
            lines.append("\(prefix) level=info msg=\"Resolved target address\" target=\(quoted(request.target.host)) ip=\(address)")
        }
        lines += measurement.families.map { familyLine($0, prefix: prefix) }
        let duration = measurement.duration.secondsValue
        if measurement.success {
            lines.append("\(prefix) level=info msg=\"Probe succeeded\" duration_seconds=\(duration)")
        } else {
            let reason = measurement.failure.map { " reason=\($0.rawValue)" } ?? ""
            lines.append("\(prefix) level=error msg=\"Probe failed\" duration_seconds=\(duration)\(reason)")
        }
        return lines
    }

    /// How one family's probe of a `both` module ended (reach's own line).
    static func familyLine(_ family: ProbeMeasurement.FamilyOutcome, prefix: String) -> String {
        let fields = "ip_protocol=\(family.ipProtocol.rawValue) ip=\(family.address) duration_seconds=\(family.duration.secondsValue)"
        guard !family.success else { return "\(prefix) level=info msg=\"Family probe succeeded\" \(fields)" }
        let reason = family.failure.map { " reason=\($0.rawValue)" } ?? ""
        return "\(prefix) level=error msg=\"Family probe failed\" \(fields)\(reason)"
    }

    /// A logfmt value: bare when it has no space, quote or equals sign, else quoted.
    static func quoted(_ text: String) -> String {
        let bare = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "=" }
        return bare ? text : JSONString.quoted(text)
    }
}
