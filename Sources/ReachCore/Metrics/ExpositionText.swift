/// The Prometheus text exposition format (version 0.0.4, as Prometheus's documentation,
/// "Exposition formats", gives it) for `reach watch --textfile`, which
/// must not link swift-prometheus into `reach` (its start-up cost). It writes what
/// swift-prometheus 2.4.1's `PrometheusCollectorRegistry.emit` writes for the same samples
/// (HELP, TYPE, `name{label="value"} value`, a gauge's value as Swift prints a Double, a
/// counter's as an integer), and ReachExporterTests holds the two equal.
public enum ExpositionText {
    /// Families in the order their first sample comes; every sample of a family after its
    /// HELP and TYPE lines.
    public static func render(_ samples: [MetricSample]) -> String {
        var order: [String] = []
        var families: [String: [MetricSample]] = [:]
        for sample in samples {
            if families[sample.name] == nil { order.append(sample.name) }
            families[sample.name, default: []].append(sample)
        }
        var text = ""
        for name in order {
            let family = families[name]!
            if !family[0].help.isEmpty { text += "# HELP \(name) \(escapedHelp(family[0].help))\n" }
            text += "# TYPE \(name) \(family[0].kind.rawValue)\n"
            for sample in family {
                text += name
                if !sample.labels.isEmpty {
                    text += "{" + sample.labels.map { "\($0.name)=\"\(escapedLabelValue($0.value))\"" }.joined(separator: ",") + "} "
                } else {
                    text += " "
                }
                text += formatted(sample) + "\n"
            }
        }
        return text
    }

    /// A counter counts whole events; a gauge's value is printed as Swift prints a Double
    /// ("1.0", "1732532400.123"), which Prometheus parses as it parses Go's.
    static func formatted(_ sample: MetricSample) -> String {
        if sample.kind == .counter, let whole = Int64(exactly: sample.value) { return "\(whole)" }
        return "\(sample.value)"
    }

    /// HELP text: backslash escaped, line feeds taken out.
    static func escapedHelp(_ help: String) -> String {
        var out = ""
        for character in help where character != "\n" {
            out += character == "\\" ? "\\\\" : String(character)
        }
        return out
    }

    /// A label value: backslash, double quote and line feed escaped.
    static func escapedLabelValue(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
