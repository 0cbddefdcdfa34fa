/// A histogram in the text format, as client_golang's expfmt writes one
/// (expfmt/text_create.go): a `_bucket` line per classic upper bound with the observations at
/// or below it, the `+Inf` bucket, `_sum`, `_count`. Native buckets have no text form: a
/// scrape that wants them asks for the protobuf format (`ExpositionProtobuf`). Written for
/// thousands of series per answer: each sample's labels escaped once, each layout's `le`
/// values formatted once (`BoundTexts`), counts written digit by digit.
extension ExpositionText {
    static func appendHistogram(_ sample: MetricSample, bounds: inout BoundTexts, to out: inout [UInt8]) {
        let histogram = sample.histogram ?? LatencyHistogram(LatencyHistogram.Layout(checkedUpperBounds: [], schema: nil))
        var labels: [UInt8] = []
        appendLabels(sample.labels, to: &labels)
        var bucketPrefix = Array(sample.name.utf8) + "_bucket{".utf8 + labels
        if !labels.isEmpty { bucketPrefix.append(UInt8(ascii: ",")) }
        bucketPrefix += "le=\"".utf8
        let texts = bounds.texts(for: histogram.layout.upperBounds)
        var running: UInt64 = 0
        for (index, text) in texts.enumerated() {
            running &+= histogram.classicCounts[index]
            appendBucket(bucketPrefix, le: text, count: running, to: &out)
        }
        appendBucket(bucketPrefix, le: Array("+Inf".utf8), count: histogram.count, to: &out)
        for (suffix, value) in [("_sum", goFormatted(histogram.sum)), ("_count", "\(histogram.count)")] {
            out += sample.name.utf8
            out += suffix.utf8
            if !labels.isEmpty {
                out.append(UInt8(ascii: "{"))
                out += labels
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: " "))
            out += value.utf8
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// `name_bucket{labels,le="bound"} count`.
    private static func appendBucket(_ prefix: [UInt8], le: [UInt8], count: UInt64, to out: inout [UInt8]) {
        out += prefix
        out += le
        out += "\"} ".utf8
        appendDecimal(count, to: &out)
        out.append(UInt8(ascii: "\n"))
    }

    /// `value` in decimal digits, most significant first, without a String in between.
    static func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor *= 10 }
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }

    /// The `le` texts of the last layout written: the samples of a family share theirs, so
    /// each answer formats them once.
    struct BoundTexts {
        private var bounds: [Double] = []
        private var texts: [[UInt8]] = []

        mutating func texts(for bounds: [Double]) -> [[UInt8]] {
            if bounds != self.bounds {
                self.bounds = bounds
                texts = bounds.map { Array(ExpositionText.goFormatted($0).utf8) }
            }
            return texts
        }
    }

    /// A float as expfmt's writeFloat writes it: 0 and ±1 whole, ±Inf and NaN spelled out,
    /// anything else as Go's strconv.FormatFloat(f, 'g', -1, 64) (src/strconv/ftoa.go): the
    /// shortest digits that read back the same, in %e form when the decimal exponent is below
    /// -4 or at least 6 ("5e-05", "1e+06"), otherwise plain ("0.0001", "26.2144", "100").
    public static func goFormatted(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "+Inf" }
        if value == 0 { return "0" }
        let (digits, point) = shortestDigits(value.magnitude)
        let sign = value < 0 ? "-" : ""
        let exponent = point - 1
        if exponent < -4 || exponent >= 6 {
            let fraction = digits.count > 1 ? "." + String(digits.dropFirst()) : ""
            let magnitude = exponent.magnitude < 10 ? "0\(exponent.magnitude)" : "\(exponent.magnitude)"
            return sign + String(digits.prefix(1)) + fraction + (exponent < 0 ? "e-" : "e+") + magnitude
        }
        var text = sign
        if point <= 0 {
            text += "0." + String(repeating: "0", count: -point) + String(digits)
        } else if point >= digits.count {
            text += String(digits) + String(repeating: "0", count: point - digits.count)
        } else {
            text += String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
        }
        return text
    }

    /// The shortest decimal digits of a positive finite `value` that read back as it (what
    /// Swift's `description` prints, the same digits Go's shortest formatting finds) and the
    /// decimal point's place: value = 0.d1d2d3… × 10^point.
    static func shortestDigits(_ value: Double) -> (digits: [Character], point: Int) {
        let text = value.description
        let parts = text.split(separator: "e", maxSplits: 1)
        let exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var digits = Array(mantissa[0]) + (mantissa.count > 1 ? Array(mantissa[1]) : [])
        var point = mantissa[0].count + exponent
        while digits.first == "0" {
            digits.removeFirst()
            point -= 1
        }
        while digits.last == "0" { digits.removeLast() }
        return (digits, point)
    }
}
