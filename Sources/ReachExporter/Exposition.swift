import Prometheus
import ReachCore

/// Samples to the text exposition format through swift-prometheus: a registry per answer,
/// as blackbox_exporter builds one per probe (`prober/handler.go`), so a label set that
/// went away (a link renamed, a gateway changed) is never exported again.
public enum Exposition {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func render(_ samples: [MetricSample]) -> [UInt8] {
        let registry = PrometheusCollectorRegistry()
        for sample in samples {
            let labels = sample.labels.map { ($0.name, $0.value) }
            // The whole name as the descriptor's base name: it joins only the parts that are not empty.
            let descriptor = MetricNameDescriptor(metricName: sample.name, unitName: "", helpText: sample.help)
            switch sample.kind {
            case .gauge:
                let gauge = labels.isEmpty
                    ? registry.makeGauge(descriptor: descriptor) : registry.makeGauge(descriptor: descriptor, labels: labels)
                gauge.set(to: sample.value)
            case .counter:
                let counter = labels.isEmpty
                    ? registry.makeCounter(descriptor: descriptor) : registry.makeCounter(descriptor: descriptor, labels: labels)
                if let whole = Int64(exactly: sample.value), whole >= 0 {
                    counter.increment(by: whole)
                } else if sample.value > 0 {
                    counter.increment(by: sample.value)
                }
            }
        }
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
