import Foundation
import ReachSystem
import XCTest

@testable import ReachCore

/// The histogram held to client_golang's arithmetic (prometheus/histogram.go) and to
/// Prometheus 2.42's histogram_quantile (promql/quantile.go).
final class LatencyHistogramTests: XCTestCase {
    /// Native bucket indexes for schemas -4, -1, 0, 1, 3, 4 and 8, computed by Go's algorithm
    /// (histogramCounts.observe: math.Frexp, sort.SearchFloat64s over nativeHistogramBounds)
    /// run over the same float64 values: the bucket edges (1, 0.5, 1/√2 and the float after
    /// it), smokeping's first and last classic bounds, a huge value, +Inf (one past
    /// math.MaxFloat64's bucket) and the smallest subnormal.
    func testNativeIndexesMatchGo() {
        let schemas = [-4, -1, 0, 1, 3, 4, 8]
        let table: [(Double, [Int])] = [
            (1, [0, 0, 0, 0, 0, 0, 0]),
            (0.5, [0, 0, -1, -2, -8, -16, -256]),
            (0.00005, [0, -7, -14, -28, -114, -228, -3657]),
            (0.021, [0, -2, -5, -11, -44, -89, -1426]),
            (3.3e-5, [0, -7, -14, -29, -119, -238, -3811]),
            (0.7071067811865475, [0, 0, 0, -1, -4, -8, -128]),
            (0.7071067811865476, [0, 0, 0, 0, -3, -7, -127]),
            (26.2144, [1, 3, 5, 10, 38, 76, 1207]),
            (1e300, [63, 499, 997, 1994, 7973, 15946, 255125]),
            (.infinity, [65, 513, 1025, 2049, 8193, 16385, 262145]),
            (.leastNonzeroMagnitude, [-67, -537, -1074, -2148, -8592, -17184, -274944]),
        ]
        for (value, indexes) in table {
            XCTAssertEqual(schemas.map { LatencyHistogram.nativeIndex(of: value, schema: $0) }, indexes, "\(value)")
            XCTAssertEqual(schemas.map { LatencyHistogram.nativeIndex(of: -value, schema: $0) }, indexes, "\(-value)")
        }
    }

    /// Every value lies in its bucket: above the bound of the bucket below, at or under its own.
    func testValuesLieInsideTheirBuckets() {
        for schema in [-4, -2, 0, 2, 4, 8] {
            var value = 1e-7
            while value < 100 {
                let index = LatencyHistogram.nativeIndex(of: value, schema: schema)
                XCTAssertLessThanOrEqual(value, LatencyHistogram.nativeUpperBound(index: index, schema: schema), "\(value) @\(schema)")
                XCTAssertGreaterThan(value, LatencyHistogram.nativeUpperBound(index: index - 1, schema: schema), "\(value) @\(schema)")
                value *= 1.013
            }
        }
        // The bucket before the overflow one ends at the largest finite value (getLe).
        XCTAssertEqual(LatencyHistogram.nativeUpperBound(index: 16384, schema: 4), .greatestFiniteMagnitude)
        XCTAssertEqual(LatencyHistogram.nativeUpperBound(index: 64, schema: -4), .greatestFiniteMagnitude)
        XCTAssertEqual(LatencyHistogram.nativeUpperBound(index: -1, schema: 0), 0.5)
        // Go's table entry doubled: 1.414213562373095, one ulp under √2, as getLe gives it.
        XCTAssertEqual(LatencyHistogram.nativeUpperBound(index: 1, schema: 1), 2 * 0.7071067811865475)
        XCTAssertEqual(LatencyHistogram.nativeUpperBound(index: 1, schema: 1).nextUp, 2.squareRoot())
    }

    /// pickSchema: smokeping_prober's 1.05 gives 4, client_golang's documented 1.1 gives 3.
    func testSchemaFromFactor() {
        let schema = LatencyHistogram.Layout.schema(forFactor:)
        XCTAssertEqual(schema(1.05), 4)
        XCTAssertEqual(schema(1.1), 3)
        XCTAssertEqual(schema(4), -1)
        XCTAssertEqual(schema(2), 0)
        XCTAssertEqual(schema(65536), -4)
        XCTAssertEqual(schema(1e9), -4)
        XCTAssertEqual(schema(1.001), 8)
        XCTAssertNil(schema(1))
        XCTAssertNil(schema(0.5))
        XCTAssertNil(schema(.nan))
        XCTAssertEqual(LatencyHistogram.bucketFactor(schema: 4), pow(2, 1.0 / 16), accuracy: 1e-15)
        XCTAssertEqual(LatencyHistogram.Layout.smokeping.schema, 4)
    }

    /// smokeping_prober's default buckets, as its --help prints them; each edge inclusive.
    func testClassicBucketsAndEdges() throws {
        let bounds = LatencyHistogram.Layout.smokepingUpperBounds
        XCTAssertEqual(
            bounds.map { ExpositionText.goFormatted($0) }.joined(separator: ","),
            "5e-05,0.0001,0.0002,0.0004,0.0008,0.0016,0.0032,0.0064,0.0128,0.0256,0.0512,0.1024,0.2048,0.4096,0.8192,1.6384,"
                + "3.2768,6.5536,13.1072,26.2144")
        var histogram = LatencyHistogram(.smokeping)
        for value in [0.00005, 0.0000500001, 0.0001, 26.2144, 27, .nan] { histogram.record(value) }
        XCTAssertEqual(histogram.classicCounts[0], 1)
        XCTAssertEqual(histogram.classicCounts[1], 2)
        XCTAssertEqual(histogram.classicCounts[19], 1)
        XCTAssertEqual(histogram.classicCounts[20], 2, "27 and NaN above every bound")
        XCTAssertEqual(histogram.count, 6)
        XCTAssertEqual(histogram.cumulativeClassicBuckets.map(\.count).last, 4)
        XCTAssertEqual(histogram.positive.counts.reduce(0, +), 5, "NaN has no native bucket")
    }

    func testBoundsFromTheCommandLine() throws {
        XCTAssertEqual(try LatencyHistogram.Layout.upperBounds(parsing: "0.001,0.01,1e-1,+Inf"), [0.001, 0.01, 0.1, .infinity])
        XCTAssertEqual(try LatencyHistogram.Layout(upperBounds: [0.001, 0.01, .infinity], nativeFactor: nil).upperBounds, [0.001, 0.01])
        XCTAssertThrowsError(try LatencyHistogram.Layout.upperBounds(parsing: "0.1,,0.2")) {
            XCTAssertEqual($0 as? LatencyHistogram.BoundsError, .notANumber(""))
        }
        XCTAssertThrowsError(try LatencyHistogram.Layout.upperBounds(parsing: "0.1,NaN"))
        XCTAssertThrowsError(try LatencyHistogram.Layout(upperBounds: [0.2, 0.1], nativeFactor: nil)) {
            XCTAssertEqual($0 as? LatencyHistogram.BoundsError, .notIncreasing(0.2, 0.1))
        }
        XCTAssertThrowsError(try LatencyHistogram.Layout(upperBounds: [0.1, 0.1], nativeFactor: nil))
        XCTAssertThrowsError(try LatencyHistogram.Layout(upperBounds: [-.infinity, 0.1], nativeFactor: nil))
        XCTAssertNil(try LatencyHistogram.Layout(upperBounds: [1], nativeFactor: 1).schema, "a factor of 1: classic only")
    }

    /// makeBuckets: gaps of one or two buckets are zeros inside a span, three start a new one.
    func testSpansAndDeltas() throws {
        var histogram = LatencyHistogram(try .init(upperBounds: [], nativeFactor: 2))
        // Schema 0: bucket i holds (2^(i-1), 2^i].
        for value in [1.0, 4, 32, 32, 512, -0.5, 0] { histogram.record(value) }
        let (spans, deltas) = LatencyHistogram.spansAndDeltas(histogram.positive)
        XCTAssertEqual(spans, [.init(offset: 0, length: 6), .init(offset: 3, length: 1)])
        XCTAssertEqual(deltas, [1, -1, 1, -1, 0, 2, -1])
        XCTAssertEqual(LatencyHistogram.spansAndDeltas(histogram.negative).spans, [.init(offset: -1, length: 1)])
        XCTAssertEqual(histogram.zeroCount, 1)
        XCTAssertEqual(LatencyHistogram.spansAndDeltas(NativeBucketCounts()).spans, [])
    }

    /// One observation of 1 s at schema 4: Prometheus interpolates inside (2^(-1/16), 1].
    func testQuantileInterpolatesLikePrometheus() throws {
        var histogram = LatencyHistogram(.smokeping)
        XCTAssertNil(histogram.quantile(0.5))
        histogram.record(1)
        let lower = LatencyHistogram.nativeUpperBound(index: -1, schema: 4)
        XCTAssertEqual(histogram.quantile(0.5), lower + (1 - lower) * 0.5)
        XCTAssertEqual(histogram.quantile(1), 1)
        XCTAssertNil(histogram.quantile(1.5))
        XCTAssertNil(histogram.quantile(-0.1))
    }

    /// bucketQuantile on classic buckets: linear inside the bucket, the highest finite bound
    /// for the +Inf bucket.
    func testClassicQuantile() throws {
        var histogram = LatencyHistogram(try .init(upperBounds: [1, 2, 4], nativeFactor: nil))
        for value in [0.5, 1.5, 1.5, 3] { histogram.record(value) }
        XCTAssertEqual(histogram.quantile(0.5), 1.5)
        XCTAssertEqual(histogram.quantile(1), 4)
        XCTAssertEqual(histogram.quantile(0.25), 1)
        histogram.record(9)
        XCTAssertEqual(histogram.quantile(1), 4)
    }

    /// Known distributions: the estimate errs by less than the bucket factor (4.4 % at
    /// smokeping's schema 4, 0.27 % at schema 8), the documented bound.
    func testQuantilesOfKnownDistributions() throws {
        let fine = try LatencyHistogram.Layout(upperBounds: [], nativeFactor: 1.001)
        for layout in [LatencyHistogram.Layout.smokeping, fine] {
            let factor = LatencyHistogram.bucketFactor(schema: layout.schema!)
            // Uniform: 1 ms to 1 s in 1 ms steps; exponential: mean 20 ms by its inverse CDF.
            let uniform = (1...1000).map { Double($0) / 1000 }
            let exponential = (1...10000).map { -log(1 - (Double($0) - 0.5) / 10000) * 0.020 }
            for values in [uniform, exponential] {
                var histogram = LatencyHistogram(layout)
                for value in values.shuffled() { histogram.record(value) }
                let sorted = values.sorted()
                for q in [0.5, 0.9, 0.99] {
                    let truth = sorted[Int((q * Double(sorted.count)).rounded(.up)) - 1]
                    let estimate = try XCTUnwrap(histogram.quantile(q))
                    XCTAssertLessThan(max(estimate / truth, truth / estimate), factor, "q \(q) schema \(layout.schema!)")
                }
                XCTAssertEqual(histogram.sum, values.reduce(0, +), accuracy: 1e-9)
            }
        }
    }

    func testRecordsTimeSpans() {
        var histogram = LatencyHistogram()
        histogram.record(TimeSpan(nanoseconds: 21_000_000))
        XCTAssertEqual(histogram.sum, 0.021)
        XCTAssertEqual(histogram.positive.populated.map(\.index), [-89])
    }
}
