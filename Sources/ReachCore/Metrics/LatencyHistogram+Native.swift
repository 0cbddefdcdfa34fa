/// Native buckets: the index math of client_golang's histogram (prometheus/histogram.go
/// `observe`, `getLe`, `makeBuckets`), which Prometheus's native histograms share
/// (model/histogram/generic.go): bucket i of schema s holds (2^((i-1)/2^s), 2^(i/2^s)].
extension LatencyHistogram {
    /// The native bucket of `value` (its magnitude) under `schema`: Go's math.Frexp, then the
    /// fraction's place among the schema's bounds (schema > 0) or the exponent shifted
    /// (schema <= 0). ±Inf lands one past the bucket of the largest finite value; 0, which
    /// only the zero bucket holds, has none (Int.min).
    public static func nativeIndex(of value: Double, schema: Int) -> Int {
        var magnitude = value.magnitude
        let infinite = magnitude.isInfinite
        if infinite { magnitude = .greatestFiniteMagnitude }
        guard magnitude != 0 else { return Int.min }
        // math.Frexp: magnitude = fraction × 2^exponent, fraction in [0.5, 1).
        let fraction = magnitude.significand / 2
        let exponent = Int(magnitude.exponent) + 1
        var index: Int
        if schema > 0 {
            let perOctave = 1 << schema
            index = firstBound(atLeast: fraction, schema: schema) + (exponent - 1) * perOctave
        } else {
            index = fraction == 0.5 ? exponent - 1 : exponent
            index = (index + (1 << -schema) - 1) >> -schema
        }
        return infinite ? index + 1 : index
    }

    /// The upper bound of native bucket `index` (client_golang's getLe): the largest finite
    /// value for the bucket that ends where a float64 overflows.
    public static func nativeUpperBound(index: Int, schema: Int) -> Double {
        if schema < 0 {
            let exponent = index << -schema
            return exponent == 1024 ? .greatestFiniteMagnitude : Double(sign: .plus, exponent: exponent, significand: 1)
        }
        let fraction = nativeBounds[(index & ((1 << schema) - 1)) << (8 - schema)]
        let exponent = (index >> schema) + 1
        if fraction == 0.5, exponent == 1025 { return .greatestFiniteMagnitude }
        return Double(sign: .plus, exponent: exponent, significand: fraction)
    }

    /// 2^(2^-schema): the ratio of a native bucket's upper bound to its lower.
    public static func bucketFactor(schema: Int) -> Double {
        if schema <= 0 { return Double(sign: .plus, exponent: 1 << -schema, significand: 1) }
        return 2 * nativeBounds[256 >> schema]
    }

    /// sort.SearchFloat64s over the schema's bounds: the first at or above `fraction`.
    static func firstBound(atLeast fraction: Double, schema: Int) -> Int {
        let stride = 8 - schema
        var low = 0
        var high = 1 << schema
        while low < high {
            let middle = (low + high) / 2
            if nativeBounds[middle << stride] >= fraction { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// A run of consecutive native buckets in the exposition (metrics.proto BucketSpan):
    /// `offset` from the end of the previous span, or the first bucket's index.
    public struct BucketSpan: Hashable, Sendable {
        public var offset: Int32
        public var length: UInt32
    }

    /// The spans and count deltas of one sign's buckets, as client_golang's makeBuckets
    /// writes them: a gap of one or two empty buckets is written as zeros inside a span (one
    /// span is cheaper than two), a longer gap starts a new span.
    public static func spansAndDeltas(_ buckets: NativeBucketCounts) -> (spans: [BucketSpan], deltas: [Int64]) {
        var spans: [BucketSpan] = []
        var deltas: [Int64] = []
        var previousCount: Int64 = 0
        var nextIndex = 0
        for (index, count) in buckets.populated {
            let gap = index - nextIndex
            if spans.isEmpty || gap > 2 {
                spans.append(BucketSpan(offset: Int32(clamping: gap), length: 0))
            } else {
                for _ in 0..<gap {
                    deltas.append(-previousCount)
                    previousCount = 0
                    spans[spans.count - 1].length += 1
                }
            }
            let current = Int64(clamping: count)
            deltas.append(current &- previousCount)
            previousCount = current
            spans[spans.count - 1].length += 1
            nextIndex = index + 1
        }
        return (spans, deltas)
    }
}

/// One sign's native bucket counts, kept dense from the lowest index seen to the highest: a
/// recording is an array store. Latencies span few powers of two (2^schema buckets each), so
/// the array stays small: 1 µs to 60 s at schema 4 is about 420 buckets.
public struct NativeBucketCounts: Hashable, Sendable {
    /// The bucket index of `counts[0]`.
    public private(set) var firstIndex = 0
    public private(set) var counts: [UInt64] = []

    public init() {}

    mutating func add(at index: Int) {
        if counts.isEmpty {
            firstIndex = index
            counts = [1]
            return
        }
        if index < firstIndex {
            counts.insert(contentsOf: repeatElement(0, count: firstIndex - index), at: 0)
            firstIndex = index
        } else if index - firstIndex >= counts.count {
            counts.append(contentsOf: repeatElement(0, count: index - firstIndex - counts.count + 1))
        }
        counts[index - firstIndex] &+= 1
    }

    /// The buckets holding observations, lowest index first.
    public var populated: [(index: Int, count: UInt64)] {
        counts.enumerated().compactMap { offset, count in count == 0 ? nil : (firstIndex + offset, count) }
    }

    public var isEmpty: Bool { counts.isEmpty }
}
