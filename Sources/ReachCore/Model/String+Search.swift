extension StringProtocol {
    /// The first range of `text` within this one, character by character. The standard
    /// library's `firstRange(of:)` and `contains(_:)` for a string argument live in
    /// _StringProcessing, beside Swift's regex engine, which a statically linked binary then
    /// carries whole; reach-exporter needs neither.
    public func firstRange(ofText text: String) -> Range<Index>? {
        var start = startIndex
        while start != endIndex {
            if self[start...].hasPrefix(text) { return start..<index(start, offsetBy: text.count) }
            start = index(after: start)
        }
        return nil
    }
}
