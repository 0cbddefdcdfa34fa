import ReachSystem
import XCTest

@testable import ReachCore

/// Histograms in both exposition formats: the text as smokeping_prober 0.6.1 (client_golang's
/// expfmt) writes it, the protobuf as client_model's metrics.proto lays it out.
final class ExpositionHistogramTests: XCTestCase {
    /// Four round trips of 0.07, 0.2, 0.3 and 0.158944 ms, written as smokeping_prober writes its
    /// response histogram (label order and number formats from its own /metrics).
    func testTextAsSmokepingWritesIt() {
        var histogram = LatencyHistogram(.smokeping)
        for value in [0.00007, 0.0003, 0.0002, 0.000158944] { histogram.record(value) }
        let labels: [MetricSample.Label] = [.init("host", "127.0.0.1"), .init("ip", "127.0.0.1")]
        let sample = MetricSample("smokeping_response_duration_seconds", help: "A histogram of latencies for ping responses.",
                                  labels: labels, histogram: histogram)
        let counts = [0, 1, 3] + [Int](repeating: 4, count: 17)
        let bounds = LatencyHistogram.Layout.smokepingUpperBounds.map(ExpositionText.goFormatted)
        let buckets = zip(bounds, counts).map { bound, count in
            "smokeping_response_duration_seconds_bucket{host=\"127.0.0.1\",ip=\"127.0.0.1\",le=\"\(bound)\"} \(count)\n"
        }
        XCTAssertEqual(String(decoding: ExpositionText.render([sample]), as: UTF8.self), """
            # HELP smokeping_response_duration_seconds A histogram of latencies for ping responses.
            # TYPE smokeping_response_duration_seconds histogram

            """ + buckets.joined() + """
            smokeping_response_duration_seconds_bucket{host="127.0.0.1",ip="127.0.0.1",le="+Inf"} 4
            smokeping_response_duration_seconds_sum{host="127.0.0.1",ip="127.0.0.1"} 0.000728944
            smokeping_response_duration_seconds_count{host="127.0.0.1",ip="127.0.0.1"} 4

            """)
        XCTAssertEqual(sample.value, 4)
    }

    /// A histogram sample given no histogram is an empty one: +Inf, sum and count of 0; the
    /// protobuf's histogram then holds its count and sum only (no schema: no native part).
    func testHistogramKindWithoutAHistogram() {
        let sample = MetricSample("h", help: "", kind: .histogram, value: 0)
        XCTAssertEqual(String(decoding: ExpositionText.render([sample]), as: UTF8.self), """
            # TYPE h histogram
            h_bucket{le="+Inf"} 0
            h_sum 0
            h_count 0

            """)
        let expected: [UInt8] = [
            0x16, 0x0a, 0x01, 0x68, 0x12, 0x00, 0x18, 0x04,  // 22 bytes: name "h", help "", type HISTOGRAM
            0x22, 0x0d, 0x3a, 0x0b, 0x08, 0x00, 0x11, 0, 0, 0, 0, 0, 0, 0, 0,  // metric: histogram, count 0, sum 0.0
        ]
        XCTAssertEqual(ExpositionProtobuf.render([sample]), expected)
    }

    /// Counts of several digits and varints of several bytes: 200 observations under 1 s are
    /// `200` in the text and the varint c8 01 in a 12-byte Bucket message.
    func testLargerCounts() throws {
        var histogram = LatencyHistogram(try .init(upperBounds: [1], nativeFactor: nil))
        for _ in 0..<200 { histogram.record(0.5) }
        let sample = MetricSample("h", help: "", histogram: histogram)
        XCTAssertTrue(String(decoding: ExpositionText.render([sample]), as: UTF8.self).contains("h_bucket{le=\"1\"} 200\n"))
        let bucket: [UInt8] = [0x1a, 0x0c, 0x08, 0xc8, 0x01, 0x11, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f]
        let bytes = ExpositionProtobuf.render([sample])
        XCTAssertTrue((0...(bytes.count - bucket.count)).contains { Array(bytes[$0..<($0 + bucket.count)]) == bucket }, "\(bytes)")
        XCTAssertEqual([0, 127, 128, 16383, 16384, UInt64.max].map(ProtobufWriter.varintSize), [1, 1, 2, 2, 3, 10])
        for value: UInt64 in [0, 9, 10, 12345, .max] {
            var out: [UInt8] = []
            ExpositionText.appendDecimal(value, to: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), "\(value)")
        }
    }

    /// Go's strconv 'g' with the shortest digits, as expfmt writes `le` and `_sum`.
    func testGoFloatFormat() {
        let cases: [(Double, String)] = [
            (0.0008589439999999999, "0.0008589439999999999"), (5e-05, "5e-05"), (0.0001, "0.0001"), (1e6, "1e+06"),
            (1_234_567, "1.234567e+06"), (123_456, "123456"), (100, "100"), (1, "1"), (0, "0"), (-0.5, "-0.5"),
            (1e21, "1e+21"), (1e-7, "1e-07"), (1e100, "1e+100"), (.infinity, "+Inf"), (-.infinity, "-Inf"), (.nan, "NaN"),
            (0.1 + 0.2, "0.30000000000000004"), (123_456_789_012_345_680, "1.2345678901234568e+17"), (26.2144, "26.2144"),
        ]
        for (value, text) in cases { XCTAssertEqual(ExpositionText.goFormatted(value), text) }
    }

    /// One family, one labelled histogram (classic bound 1, schema 0) of 0.5 s and 3 s, field
    /// by field.
    func testProtobufFieldByField() throws {
        var histogram = LatencyHistogram(try .init(upperBounds: [1], nativeFactor: 2))
        histogram.record(0.5)
        histogram.record(3)
        let bytes = ExpositionProtobuf.render([MetricSample("rtt", help: "h", labels: [.init("host", "a")], histogram: histogram)])
        let expected: [UInt8] = [
            0x4c,  // the family's length: 76
            0x0a, 0x03, 0x72, 0x74, 0x74,  // name = 1: "rtt"
            0x12, 0x01, 0x68,  // help = 2: "h"
            0x18, 0x04,  // type = 3: HISTOGRAM
            0x22, 0x40,  // metric = 4, 64 bytes
            0x0a, 0x09, 0x0a, 0x04, 0x68, 0x6f, 0x73, 0x74, 0x12, 0x01, 0x61,  // label = 1: host="a"
            0x3a, 0x33,  // histogram = 7, 51 bytes
            0x08, 0x02,  // sample_count = 1: 2
            0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x40,  // sample_sum = 2: 3.5
            0x1a, 0x0b, 0x08, 0x01, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f,  // bucket = 3: 1 at or under 1.0
            0x28, 0x00,  // schema = 5: 0
            0x31, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x37,  // zero_threshold = 6: 2^-128
            0x38, 0x00,  // zero_count = 7: 0
            0x62, 0x04, 0x08, 0x01, 0x10, 0x04,  // positive_span = 12: offset -1 (zigzag 1), length 4
            0x68, 0x02, 0x68, 0x01, 0x68, 0x00, 0x68, 0x02,  // positive_delta = 13: 1, -1, 0, 1 (buckets -1 and 2)
        ]
        XCTAssertEqual(bytes, expected)
    }

    /// Gauges and counters: value = 1 inside gauge = 2 or counter = 3; families in the order
    /// of their first sample, each sample of a family inside it.
    func testProtobufGaugesAndCounters() {
        let bytes = ExpositionProtobuf.render([
            MetricSample("g", help: "", value: 1.5), MetricSample("c", help: "", kind: .counter, value: 3),
            MetricSample("g", help: "", labels: [.init("a", "b")], value: -1),
        ])
        let expected: [UInt8] = [
            0x29, 0x0a, 0x01, 0x67, 0x12, 0x00, 0x18, 0x01,  // 41 bytes: name "g", help "", type GAUGE
            0x22, 0x0b, 0x12, 0x09, 0x09, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,  // metric: gauge 1.5
            0x22, 0x13, 0x0a, 0x06, 0x0a, 0x01, 0x61, 0x12, 0x01, 0x62,  // metric: label a="b",
            0x12, 0x09, 0x09, 0, 0, 0, 0, 0, 0, 0xf0, 0xbf,  // gauge -1
            0x14, 0x0a, 0x01, 0x63, 0x12, 0x00, 0x18, 0x00,  // 20 bytes: name "c", help "", type COUNTER
            0x22, 0x0b, 0x1a, 0x09, 0x09, 0, 0, 0, 0, 0, 0, 0x08, 0x40,  // metric: counter 3
        ]
        XCTAssertEqual(bytes, expected)
    }
}
