/// The Prometheus protobuf exposition format: each family one io.prometheus.client.MetricFamily
/// message (client_model io/prometheus/client/metrics.proto, proto2), each preceded by its
/// length as a varint ("encoding=delimited"). The one format that carries native histograms to
/// Prometheus 2.42 (scraped with `--enable-feature=native-histograms`). Written by hand: the
/// few fields used, in field-number order, as Go's protobuf marshals them; proto2 repeated
/// numbers unpacked, as the .proto declares them.
public enum ExpositionProtobuf {
    public static let contentType = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"

    /// Families in the order their first sample comes, like `ExpositionText.render`.
    public static func render(_ samples: [MetricSample]) -> [UInt8] {
        var order: [String] = []
        var families: [String: [MetricSample]] = [:]
        for sample in samples {
            if families[sample.name] == nil { order.append(sample.name) }
            families[sample.name, default: []].append(sample)
        }
        var out = ProtobufWriter()
        for name in order {
            let family = family(families[name]!)
            out.varint(UInt64(family.bytes.count))
            out.bytes += family.bytes
        }
        return out.bytes
    }

    /// MetricFamily: name = 1, help = 2, type = 3 (MetricType: COUNTER 0, GAUGE 1,
    /// HISTOGRAM 4), metric = 4.
    static func family(_ members: [MetricSample]) -> ProtobufWriter {
        let first = members[0]
        var out = ProtobufWriter()
        out.string(1, first.name)
        out.string(2, first.help)
        switch first.kind {
        case .counter: out.varintField(3, 0)
        case .gauge: out.varintField(3, 1)
        case .histogram: out.varintField(3, 4)
        }
        for sample in members { out.message(4, metric(sample, kind: first.kind)) }
        return out
    }

    /// Metric: label = 1 (LabelPair: name = 1, value = 2), gauge = 2, counter = 3 (each
    /// value = 1, a double), histogram = 7.
    static func metric(_ sample: MetricSample, kind: MetricSample.Kind) -> ProtobufWriter {
        var out = ProtobufWriter()
        for label in sample.labels {
            var pair = ProtobufWriter()
            pair.string(1, label.name)
            pair.string(2, label.value)
            out.message(1, pair)
        }
        var value = ProtobufWriter()
        switch kind {
        case .gauge, .counter:
            value.double(1, sample.value)
            out.message(kind == .gauge ? 2 : 3, value)
        case .histogram:
            out.message(7, histogram(sample.histogram ?? LatencyHistogram(.init(checkedUpperBounds: [], schema: nil))))
        }
        return out
    }

    /// Histogram: sample_count = 1, sample_sum = 2, bucket = 3 (Bucket: cumulative_count = 1,
    /// upper_bound = 2; +Inf left out, as client_golang leaves it), then the native part:
    /// schema = 5 (sint32), zero_threshold = 6, zero_count = 7, negative_span = 9,
    /// negative_delta = 10 (sint64), positive_span = 12, positive_delta = 13.
    static func histogram(_ histogram: LatencyHistogram) -> ProtobufWriter {
        var out = ProtobufWriter()
        out.varintField(1, histogram.count)
        out.double(2, histogram.sum)
        for (bound, count) in histogram.cumulativeClassicBuckets {
            // Written in place, not as a nested writer: thousands of series each have 20 or so.
            out.key(3, wireType: 2)
            out.varint(UInt64(1 + ProtobufWriter.varintSize(count) + 9))
            out.varintField(1, count)
            out.double(2, bound)
        }
        guard let schema = histogram.layout.schema else { return out }
        out.varintField(5, ProtobufWriter.zigzag(Int64(schema)))
        out.double(6, histogram.layout.zeroThreshold)
        out.varintField(7, histogram.zeroCount)
        appendBuckets(histogram.negative, spanField: 9, deltaField: 10, to: &out)
        appendBuckets(histogram.positive, spanField: 12, deltaField: 13, to: &out)
        return out
    }

    /// BucketSpan: offset = 1 (sint32), length = 2 (uint32); then each delta.
    static func appendBuckets(_ buckets: NativeBucketCounts, spanField: Int, deltaField: Int, to out: inout ProtobufWriter) {
        let (spans, deltas) = LatencyHistogram.spansAndDeltas(buckets)
        for span in spans {
            var message = ProtobufWriter()
            message.varintField(1, ProtobufWriter.zigzag(Int64(span.offset)))
            message.varintField(2, UInt64(span.length))
            out.message(spanField, message)
        }
        for delta in deltas { out.varintField(deltaField, ProtobufWriter.zigzag(delta)) }
    }
}

/// Protocol buffers' wire format (protobuf.dev, "Encoding"): a key (field number << 3 | wire
/// type), then a varint (type 0), 8 little-endian bytes (type 1), or a length and the bytes
/// (type 2).
struct ProtobufWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func key(_ field: Int, wireType: UInt64) {
        varint(UInt64(field) << 3 | wireType)
    }

    mutating func varintField(_ field: Int, _ value: UInt64) {
        key(field, wireType: 0)
        varint(value)
    }

    mutating func double(_ field: Int, _ value: Double) {
        key(field, wireType: 1)
        var bits = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    mutating func string(_ field: Int, _ value: String) {
        key(field, wireType: 2)
        varint(UInt64(value.utf8.count))
        bytes += value.utf8
    }

    mutating func message(_ field: Int, _ message: ProtobufWriter) {
        key(field, wireType: 2)
        varint(UInt64(message.bytes.count))
        bytes += message.bytes
    }

    /// How many bytes `varint` writes for `value`: 7 bits a byte.
    static func varintSize(_ value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest > 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    /// sint32/sint64's ZigZag: small magnitudes of either sign stay short.
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}
