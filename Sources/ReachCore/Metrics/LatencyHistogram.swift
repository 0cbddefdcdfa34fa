import ReachSystem

/// Round trips, in seconds, counted as Prometheus client_golang counts a histogram's
/// observations (prometheus/histogram.go): classic buckets under fixed upper bounds, a count
/// and a sum, and, when the layout has a schema, native buckets (exponential, sparse) beside
/// them. A value, owned by the one thread that records into it and copied out whole for a
/// scrape; a recording is two short binary searches and a few additions, no allocation once
/// the buckets of the values seen exist.
public struct LatencyHistogram: Hashable, Sendable {
    public let layout: Layout
    /// Observations under each classic upper bound and above the last (the +Inf bucket),
    /// each counted once (not cumulative).
    public private(set) var classicCounts: [UInt64]
    public private(set) var count: UInt64 = 0
    public private(set) var sum: Double = 0
    /// Observations whose magnitude is at most `layout.zeroThreshold` (client_golang's zero
    /// bucket); always 0 without a schema.
    public private(set) var zeroCount: UInt64 = 0
    /// Native buckets of positive and of negative observations, by bucket index.
    public private(set) var positive = NativeBucketCounts()
    public private(set) var negative = NativeBucketCounts()

    public init(_ layout: Layout = .smokeping) {
        self.layout = layout
        classicCounts = [UInt64](repeating: 0, count: layout.upperBounds.count + 1)
    }

    /// One observation, in seconds. NaN is counted and summed but has no native bucket, as
    /// client_golang's `observe` treats it.
    public mutating func record(_ value: Double) {
        count &+= 1
        sum += value
        classicCounts[layout.classicBucket(of: value)] &+= 1
        guard let schema = layout.schema, !value.isNaN else { return }
        if value > layout.zeroThreshold {
            positive.add(at: Self.nativeIndex(of: value, schema: schema))
        } else if value < -layout.zeroThreshold {
            negative.add(at: Self.nativeIndex(of: value, schema: schema))
        } else {
            zeroCount &+= 1
        }
    }

    public mutating func record(_ span: TimeSpan) {
        record(span.secondsValue)
    }

    /// The classic buckets as the exposition formats give them: each upper bound with the
    /// observations at or below it (the +Inf bucket, equal to `count`, is left to the writer).
    public var cumulativeClassicBuckets: [(upperBound: Double, count: UInt64)] {
        var running: UInt64 = 0
        return layout.upperBounds.enumerated().map { index, bound in
            running &+= classicCounts[index]
            return (bound, running)
        }
    }
}

extension LatencyHistogram {
    /// What every histogram of one metric shares: the classic bounds and the native resolution.
    public struct Layout: Hashable, Sendable {
        /// Classic upper bounds, strictly increasing, finite; +Inf is implied.
        public let upperBounds: [Double]
        /// Native buckets' schema: each power of two split into 2^schema buckets; nil for
        /// classic buckets only.
        public let schema: Int?
        /// Magnitudes at or below this count in the zero bucket.
        public let zeroThreshold: Double

        /// smokeping_prober's default buckets (main.go `defaultBuckets`,
        /// `prometheus.ExponentialBuckets(0.00005, 2, 20)`): 50 µs doubling to 26.2144 s.
        public static let smokepingUpperBounds: [Double] = (0..<20).reduce(into: []) { bounds, _ in
            bounds.append(bounds.last.map { $0 * 2 } ?? 0.00005)
        }
        /// smokeping_prober's hidden `--native-histogram-factor` default (main.go).
        public static let smokepingNativeFactor = 1.05
        /// client_golang's DefNativeHistogramZeroThreshold, 2^-128: a bucket boundary in every
        /// schema.
        public static let defaultZeroThreshold = Double(sign: .plus, exponent: -128, significand: 1)
        /// smokeping_prober's histogram: its default buckets and native factor.
        public static let smokeping = Layout(
            checkedUpperBounds: smokepingUpperBounds, schema: schema(forFactor: smokepingNativeFactor))

        /// Native buckets only, at schema 8, the finest native histograms have: quantiles
        /// within 0.27 %, for `reach ping`'s percentiles, which no exposition writes.
        public static let finest = Layout(checkedUpperBounds: [], schema: 8)

        /// `upperBounds` as a user gave them; a last +Inf is dropped (client_golang's
        /// newHistogram does). `nativeFactor` at or below 1 means no native buckets, as there.
        public init(upperBounds: [Double], nativeFactor: Double?) throws(BoundsError) {
            var bounds = upperBounds
            if bounds.last == .infinity { bounds.removeLast() }
            for (index, bound) in bounds.enumerated() {
                guard bound.isFinite else { throw .notFinite(bound) }
                if index > 0, bounds[index - 1] >= bound { throw .notIncreasing(bounds[index - 1], bound) }
            }
            self.init(checkedUpperBounds: bounds, schema: nativeFactor.flatMap(Self.schema(forFactor:)))
        }

        init(checkedUpperBounds: [Double], schema: Int?) {
            upperBounds = checkedUpperBounds
            self.schema = schema
            zeroThreshold = Self.defaultZeroThreshold
        }

        /// client_golang's pickSchema, -floor(log2(log2(factor))) held to -4...8: the
        /// coarsest schema whose bucket factor 2^(2^-n) is at or below `factor` (1.05 gives 4,
        /// 2^(1/16) ≈ 1.044), 8 for any finer factor; nil at or below 1 (no native buckets, as
        /// there). Found by comparing with the factors themselves, so no C logarithm is needed.
        public static func schema(forFactor factor: Double) -> Int? {
            guard factor > 1, !factor.isNaN else { return nil }
            for schema in (-4...8) where factor >= LatencyHistogram.bucketFactor(schema: schema) {
                return schema
            }
            return 8
        }

        /// A comma list of upper bounds in seconds, as smokeping_prober's `--buckets` takes it
        /// (main.go parseBuckets: each item read by strconv.ParseFloat).
        public static func upperBounds(parsing text: String) throws(BoundsError) -> [Double] {
            var bounds: [Double] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let bound = Double(item), !bound.isNaN else { throw .notANumber(String(item)) }
                bounds.append(bound)
            }
            return bounds
        }

        /// The classic bucket `value` falls in: the first bound at or above it, or the +Inf
        /// bucket (client_golang's findBucket; NaN lands in +Inf as there).
        func classicBucket(of value: Double) -> Int {
            var low = 0
            var high = upperBounds.count
            while low < high {
                let middle = (low + high) / 2
                if upperBounds[middle] >= value { high = middle } else { low = middle + 1 }
            }
            return low
        }
    }

    public enum BoundsError: Error, Equatable, CustomStringConvertible {
        case notANumber(String)
        case notFinite(Double)
        case notIncreasing(Double, Double)

        public var description: String {
            switch self {
            case .notANumber(let text): return "\"\(text)\" is not a number of seconds"
            case .notFinite(let bound): return "bucket bound \(bound) is not finite"
            case .notIncreasing(let previous, let bound): return "bucket bounds must increase: \(bound) after \(previous)"
            }
        }
    }
}
