/// The known name nearest a mistyped one, as a "did you mean" (git's help.c and
/// swift-argument-parser both suggest by edit distance).
public enum Suggestion {
    /// The candidate at the smallest Levenshtein distance from `word`, if it is at most a
    /// third of the word's length: `--jsn` finds `--json`; a word of fewer than 3 characters
    /// (`-x`) finds nothing, since any letter is one edit from it.
    public static func nearest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.utf8)
        let limit = typed.count / 3
        guard limit > 0 else { return nil }
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = Self.distance(typed, Array(candidate.utf8))
            if distance <= limit, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance, one row at a time.
    static func distance(_ first: [UInt8], _ second: [UInt8]) -> Int {
        if first.isEmpty { return second.count }
        var previous = Array(0...second.count)
        var current = previous
        for (row, byte) in first.enumerated() {
            current[0] = row + 1
            for (column, other) in second.enumerated() {
                let substitution = previous[column] + (byte == other ? 0 : 1)
                current[column + 1] = min(substitution, previous[column + 1] + 1, current[column] + 1)
            }
            swap(&previous, &current)
        }
        return previous[second.count]
    }
}
