/// A regular expression a probe matches a line against, with its source kept: modules are
/// compared and shown by what the file said.
///
/// `@unchecked Sendable`: `Regex` is an immutable value that the standard library does not
/// mark Sendable; the program it compiles on first use is published with an atomic
/// (swift-experimental-string-processing, `Regex.Program`), so threads may share it.
public struct ExpectPattern: Hashable, @unchecked Sendable, CustomStringConvertible {
    public let source: String
    private let regex: Regex<AnyRegexOutput>

    /// The groups of one match: the number-th (0: the whole match) or the named, nil when
    /// the group took no part in the match.
    public struct Match {
        var groups: [Substring?]
        var names: [String: Int]
    }

    /// `regex`, compiled by the caller from `source` (blackbox.yml's RE2 pattern, rewritten
    /// in Swift's dialect by the exporter's configuration reader).
    public init(source: String, regex: Regex<AnyRegexOutput>) {
        self.source = source
        self.regex = regex
    }

    public var description: String { source }

    public static func == (lhs: ExpectPattern, rhs: ExpectPattern) -> Bool { lhs.source == rhs.source }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }

    /// The leftmost match anywhere in `line` (Go's FindSubmatchIndex), or nil.
    public func firstMatch(in line: String) -> Match? {
        guard let match = try? regex.firstMatch(in: line) else { return nil }
        var names: [String: Int] = [:]
        var groups: [Substring?] = []
        for (index, group) in match.output.enumerated() {
            groups.append(group.substring)
            if let name = group.name { names[name] = index }
        }
        return Match(groups: groups, names: names)
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
