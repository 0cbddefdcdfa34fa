import ReachCore

/// An answer's body in the exposition format the scrape asked for: ReachCore's
/// `ExpositionText`, the one text writer, or `ExpositionProtobuf`, the one that carries native
/// histograms; for the probes' answers and the exporter's own /metrics alike. Each answer is
/// written from its own samples, as blackbox_exporter builds a registry per probe
/// (`prober/handler.go`), so a label set that went away (a link renamed, a gateway changed)
/// is never exported again.
public enum Exposition {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func render(_ samples: [MetricSample]) -> [UInt8] {
        ExpositionText.render(samples)
    }

    public enum Format: Hashable, Sendable {
        case text
        case protobuf

        public var contentType: String {
            self == .text ? Exposition.contentType : ExpositionProtobuf.contentType
        }
    }

    public static func render(_ samples: [MetricSample], as format: Format) -> [UInt8] {
        format == .text ? ExpositionText.render(samples) : ExpositionProtobuf.render(samples)
    }

    /// The format for a request's Accept header, as client_golang's promhttp picks it
    /// (prometheus/common expfmt/encode.go `Negotiate`, over goautoneg's ParseAccept): the media
    /// ranges by q, highest first (at equal q the more specific first); the first that is the
    /// delimited protobuf MetricFamily or text/plain (version 0.0.4 or none) wins; text when
    /// none is. Prometheus 2.42 with native histograms on asks for the protobuf at q=1 and the
    /// text at q=0.5.
    public static func format(accepting accept: String?) -> Format {
        for range in MediaRange.parse(accept ?? "") {
            if range.type == "application/vnd.google.protobuf", range.parameters["proto"] == "io.prometheus.client.MetricFamily",
                range.parameters["encoding"] == "delimited"
            {
                return .protobuf
            }
            if range.type == "text/plain", (range.parameters["version"] ?? "0.0.4") == "0.0.4" { return .text }
        }
        return .text
    }

    /// One media range of an Accept header (RFC 9110 §12.5.1): type/subtype, parameters, q.
    struct MediaRange {
        var type: String
        var parameters: [String: String]
        var quality: Double
        /// A wildcard (*/* or type/*) ranks after a full type at the same q.
        var wildcards: Int { type == "*/*" ? 2 : type.hasSuffix("/*") ? 1 : 0 }

        static func parse(_ header: String) -> [MediaRange] {
            let ranges = header.split(separator: ",").compactMap { item -> MediaRange? in
                let parts = item.split(separator: ";").map { String($0).trimmingWhitespace() }
                guard let type = parts.first, !type.isEmpty else { return nil }
                var range = MediaRange(type: type.lowercased(), parameters: [:], quality: 1)
                for parameter in parts.dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace() }
                    guard pair.count == 2 else { continue }
                    if pair[0].lowercased() == "q" {
                        range.quality = Double(pair[1]) ?? 0
                    } else {
                        range.parameters[pair[0].lowercased()] = pair[1]
                    }
                }
                return range
            }
            return ranges.enumerated().sorted { left, right in
                let (a, b) = (left.element, right.element)
                if a.quality != b.quality { return a.quality > b.quality }
                if a.wildcards != b.wildcards { return a.wildcards < b.wildcards }
                if a.parameters.count != b.parameters.count { return a.parameters.count > b.parameters.count }
                return left.offset < right.offset
            }.map(\.element)
        }
    }
}
