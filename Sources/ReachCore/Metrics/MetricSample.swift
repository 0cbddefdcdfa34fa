/// One sample of the Prometheus text exposition format: a metric's name, its family's help
/// text and type, the sample's labels in order, and its value, or for a histogram its
/// buckets. The decisions (which metrics, which labels, which values) are made as these
/// values, without sockets; `ExpositionText` writes them, for the exporter and for
/// `reach watch --textfile`.
public struct MetricSample: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case gauge
        case counter
        case histogram
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var labels: [Label]
    /// A gauge's or counter's value; a histogram's count of observations.
    public var value: Double
    /// A histogram sample's buckets, count and sum; nil for the other kinds (a histogram
    /// sample without one is written as an empty histogram).
    public var histogram: LatencyHistogram?

    public struct Label: Hashable, Sendable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(_ name: String, help: String, kind: Kind = .gauge, labels: [Label] = [], value: Double) {
        self.name = name
        self.help = help
        self.kind = kind
        self.labels = labels
        self.value = value
    }

    /// A histogram sample: `name` is the family's (`name_bucket`, `name_sum` and `name_count`
    /// are written from it).
    public init(_ name: String, help: String, labels: [Label] = [], histogram: LatencyHistogram) {
        self.init(name, help: help, kind: .histogram, labels: labels, value: Double(histogram.count))
        self.histogram = histogram
    }

    /// The value of the sample named `name` whose labels include `labels`; nil when none.
    public static func value(of name: String, in samples: [MetricSample], labels: [Label] = []) -> Double? {
        samples.first { $0.name == name && labels.allSatisfy($0.labels.contains) }?.value
    }
}
