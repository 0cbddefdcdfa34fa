import ReachCore

/// An answer's body in the text exposition format: ReachCore's `ExpositionText`, the one
/// writer, for the probes' answers and the exporter's own /metrics alike. Each answer is
/// written from its own samples, as blackbox_exporter builds a registry per probe
/// (`prober/handler.go`), so a label set that went away (a link renamed, a gateway changed)
/// is never exported again.
public enum Exposition {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func render(_ samples: [MetricSample]) -> [UInt8] {
        ExpositionText.render(samples)
    }
}
