/// A set of runes as sorted, disjoint, non-adjacent ranges (Go's CharClass).
struct RuneSet: Sendable, Equatable {
    private(set) var ranges: [ClosedRange<UInt32>]

    static let maximumRune: UInt32 = 0x10FFFF
    static let all = RuneSet([0...maximumRune])

    init(_ ranges: [ClosedRange<UInt32>] = []) {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...Swift.max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
    }

    init(rune: UInt32) { self.init([rune...rune]) }

    func contains(_ rune: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < rune {
                low = middle + 1
            } else if ranges[middle].lowerBound > rune {
                high = middle
            } else {
                return true
            }
        }
        return false
    }

    func union(_ other: RuneSet) -> RuneSet { RuneSet(ranges + other.ranges) }

    var negated: RuneSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            next = range.upperBound + 1
        }
        if next <= Self.maximumRune { result.append(next...Self.maximumRune) }
        return RuneSet(result)
    }

    /// The set closed under simple case folding (Go's appendFoldedRange): each member with
    /// every rune of its orbit.
    var folded: RuneSet {
        let folding = CaseFolding.shared
        var targets: Set<UInt32> = []
        for (rune, fold) in folding.fold where contains(rune) { targets.insert(fold) }
        for fold in folding.orbits.keys where contains(fold) { targets.insert(fold) }
        guard !targets.isEmpty else { return self }
        var added: [ClosedRange<UInt32>] = []
        for target in targets {
            added.append(target...target)
            for rune in folding.orbits[target] ?? [] { added.append(rune...rune) }
        }
        return RuneSet(ranges + added)
    }
}

/// Simple case folding (Unicode's CaseFolding.txt, statuses C and S), which Go's
/// unicode.SimpleFold walks as orbits: K, k and U+212A KELVIN SIGN fold together, S, s and
/// U+017F LONG S too. The standard library names no folding, so it is derived from the
/// single-scalar case mappings: a rune folds to the lowercase of its uppercase.
struct CaseFolding: Sendable {
    /// Each rune that folds to another, and that other.
    let fold: [UInt32: UInt32]
    /// Each fold target, and the runes that fold to it.
    let orbits: [UInt32: [UInt32]]

    static let shared = CaseFolding()

    private init() {
        var fold: [UInt32: UInt32] = [:]
        var orbits: [UInt32: [UInt32]] = [:]
        // Every cased script lies below U+20000 (Adlam, the last, ends at U+1E95F).
        for value in UInt32(0)..<0x20000 {
            guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenCaseMapped else { continue }
            let target = Self.simpleFold(scalar)
            guard target != value else { continue }
            fold[value] = target
            orbits[target, default: []].append(value)
        }
        self.fold = fold
        self.orbits = orbits
    }

    /// U+0131 (dotless i) has only a Turkic folding, which Go leaves out; a mapping to several
    /// scalars (ß to SS) is no simple folding.
    private static func simpleFold(_ scalar: Unicode.Scalar) -> UInt32 {
        if scalar.value == 0x131 { return scalar.value }
        let upper = single(scalar.properties.uppercaseMapping) ?? scalar
        return (single(upper.properties.lowercaseMapping) ?? upper).value
    }

    private static func single(_ text: String) -> Unicode.Scalar? {
        var scalars = text.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return nil }
        return first
    }
}
