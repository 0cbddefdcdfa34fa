/// The Prometheus text exposition format (version 0.0.4, as Prometheus's documentation,
/// "Exposition formats", gives it): the one writer of `reach watch --textfile` and of every
/// answer of reach-exporter (its probes, its own /metrics). HELP, TYPE, then each sample as
/// `name{label="value"} value`, a gauge's value as Swift prints a Double, a counter's as an
/// integer when it is whole: what swift-prometheus 2.4.1's `PrometheusCollectorRegistry.emit`
/// wrote for the same samples, the exporter's writer before this one, but written straight
/// from the samples, with no registry of metric objects built per answer only to be read
/// back, and in the samples' order rather than a dictionary's.
public enum ExpositionText {
    /// Families in the order their first sample comes; every sample of a family after its
    /// HELP and TYPE lines.
    public static func render(_ samples: [MetricSample]) -> [UInt8] {
        var order: [String] = []
        var families: [String: [Int]] = [:]
        for (index, sample) in samples.enumerated() {
            if families[sample.name] == nil { order.append(sample.name) }
            families[sample.name, default: []].append(index)
        }
        var out: [UInt8] = []
        out.reserveCapacity(samples.count * 128)
        var bounds = BoundTexts()
        for name in order {
            let members = families[name]!
            let first = samples[members[0]]
            if !first.help.isEmpty {
                out += "# HELP ".utf8
                out += name.utf8
                out.append(UInt8(ascii: " "))
                appendHelp(first.help, to: &out)
                out.append(UInt8(ascii: "\n"))
            }
            out += "# TYPE ".utf8
            out += name.utf8
            out.append(UInt8(ascii: " "))
            out += first.kind.rawValue.utf8
            out.append(UInt8(ascii: "\n"))
            for index in members { appendSample(samples[index], bounds: &bounds, to: &out) }
        }
        return out
    }

    private static func appendSample(_ sample: MetricSample, bounds: inout BoundTexts, to out: inout [UInt8]) {
        if sample.kind == .histogram {
            appendHistogram(sample, bounds: &bounds, to: &out)
            return
        }
        out += sample.name.utf8
        if !sample.labels.isEmpty {
            out.append(UInt8(ascii: "{"))
            appendLabels(sample.labels, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: " "))
        out += formatted(sample).utf8
        out.append(UInt8(ascii: "\n"))
    }

    /// `a="x",b="y"`: the labels inside a sample's braces.
    static func appendLabels(_ labels: [MetricSample.Label], to out: inout [UInt8]) {
        for (position, label) in labels.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            out += label.name.utf8
            out += "=\"".utf8
            appendLabelValue(label.value, to: &out)
            out.append(UInt8(ascii: "\""))
        }
    }

    /// A counter counts whole events; a gauge's value is printed as Swift prints a Double
    /// ("1.0", "1732532400.123"), which Prometheus parses as it parses Go's.
    static func formatted(_ sample: MetricSample) -> String {
        if sample.kind == .counter, let whole = Int64(exactly: sample.value) { return "\(whole)" }
        return "\(sample.value)"
    }

    /// HELP text: backslash escaped, line feeds taken out.
    private static func appendHelp(_ help: String, to out: inout [UInt8]) {
        for byte in help.utf8 {
            switch byte {
            case UInt8(ascii: "\n"): continue
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            default: out.append(byte)
            }
        }
    }

    /// A label value: backslash, double quote and line feed escaped, byte by byte (a "\r\n"
    /// is one Character, and its line feed must still be escaped).
    private static func appendLabelValue(_ value: String, to out: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\n"): out += #"\n"#.utf8
            default: out.append(byte)
            }
        }
    }
}
