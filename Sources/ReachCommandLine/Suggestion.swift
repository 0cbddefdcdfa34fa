/// The known name nearest a mistyped one, as a "did you mean" (git's help.c and
/// swift-argument-parser both suggest by edit distance; git's counts two swapped letters as
/// one edit, as here, so `pign` finds `ping`).
public enum Suggestion {
    /// The candidate at the smallest edit distance from `word`, if it is at most a
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

    /// Edit distance with adjacent transpositions (the optimal string alignment distance):
    /// insertions, deletions, substitutions and swaps of two neighbours each cost one. Rows
    /// of the table one at a time, the one before kept for the swaps.
    static func distance(_ first: [UInt8], _ second: [UInt8]) -> Int {
        if first.isEmpty { return second.count }
        var beforePrevious = Array(repeating: 0, count: second.count + 1)
        var previous = Array(0...second.count)
        var current = previous
        for (row, byte) in first.enumerated() {
            current[0] = row + 1
            for (column, other) in second.enumerated() {
                let substitution = previous[column] + (byte == other ? 0 : 1)
                current[column + 1] = min(substitution, previous[column + 1] + 1, current[column] + 1)
                if row > 0, column > 0, byte == second[column - 1], first[row - 1] == other {
                    current[column + 1] = min(current[column + 1], beforePrevious[column - 1] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[second.count]
    }
}
