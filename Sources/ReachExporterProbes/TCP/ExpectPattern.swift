import ReachRegex

/// A regular expression a probe matches a line against, with its source kept: modules are
/// compared and shown by what the file said.
public struct ExpectPattern: Hashable, Sendable, CustomStringConvertible {
    public let source: String
    private let regex: RE2

    /// The groups of one match: the number-th (0: the whole match) or the named, nil when
    /// the group took no part in the match.
    public struct Match {
        var groups: [Substring?]
        var names: [String: Int]
    }

    /// `regex`, compiled by the exporter's configuration reader from blackbox.yml's pattern.
    public init(_ regex: RE2) {
        source = regex.pattern
        self.regex = regex
    }

    public var description: String { source }

    public static func == (lhs: ExpectPattern, rhs: ExpectPattern) -> Bool { lhs.source == rhs.source }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }

    /// The leftmost match anywhere in `line` (Go's FindSubmatchIndex), or nil.
    public func firstMatch(in line: String) -> Match? {
        guard let ranges = regex.firstMatch(in: line) else { return nil }
        // Offsets into the UTF-8 fall on scalar boundaries, which the scalar view keeps (a
        // String's own subscript would round them to characters).
        let utf8 = line.utf8
        let groups = ranges.map { range in
            range.map { range in
                let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
                return Substring(line.unicodeScalars[start..<utf8.index(start, offsetBy: range.count)])
            }
        }
        return Match(groups: groups, names: regex.captureNames)
    }

    /// Go's `regexp.Expand` (`regexp/regexp.go`): `$1` and `${1}` are the first group, `$name`
    /// and `${name}` a named one (a name is the longest run of letters, digits and "_":
    /// `$1x` is the group "1x"), `$$` is "$"; a group that does not exist or did not take
    /// part is empty, and a `$` that starts no valid reference stays as it is.
    public func expand(_ template: String, with match: Match) -> String {
        var output = ""
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            output += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "$" {
                output.append("$")
                rest = rest.dropFirst()
                continue
            }
            guard let (name, after) = Self.reference(rest) else {
                output.append("$")
                continue
            }
            rest = after
            if let number = Self.number(name) {
                if number < match.groups.count, let group = match.groups[number] { output += group }
            } else if let index = match.names[String(name)], let group = match.groups[index] {
                output += group
            }
        }
        return output + rest
    }

    /// The name after a `$` (Go's extract): `{name}` or a bare name; nil when malformed.
    private static func reference(_ text: Substring) -> (name: Substring, rest: Substring)? {
        let isNameCharacter = { (character: Character) in character == "_" || character.isLetter || character.isNumber }
        if text.first == "{" {
            let body = text.dropFirst()
            let name = body.prefix(while: isNameCharacter)
            let after = body[name.endIndex...]
            guard !name.isEmpty, after.first == "}" else { return nil }
            return (name, after.dropFirst())
        }
        let name = text.prefix(while: isNameCharacter)
        return name.isEmpty ? nil : (name, text[name.endIndex...])
    }

    /// A group number: ASCII digits, no leading zero, below 10^8 (as Go reads it).
    private static func number(_ name: Substring) -> Int? {
        guard name.allSatisfy({ $0.isASCII && $0.isNumber }), name.count <= 8 else { return nil }
        if name.count > 1, name.first == "0" { return nil }
        return Int(name)
    }
}
