/// Checks a host name argument before it reaches getaddrinfo: anything getaddrinfo
/// accepts is a name (as with iputils ping), but these can never be one.
public enum HostName {
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case empty
        case tooLong(Int)
        case labelTooLong(String)
        case emptyLabel
        case invalidCharacter(String)

        public var description: String {
            switch self {
            case .empty: "empty host name"
            case .tooLong(let count): "host name is \(count) characters long, more than 253"
            case .labelTooLong(let label): "host name label '\(label.prefix(20))...' is longer than 63 characters"
            case .emptyLabel: "host name has an empty label"
            case .invalidCharacter(let what): "host name contains \(what)"
            }
        }
    }

    public static func validate(_ name: String) throws(Problem) {
        if name.isEmpty { throw .empty }
        for scalar in name.unicodeScalars {
            if scalar == "\u{FFFD}" { throw .invalidCharacter("bytes that are not valid UTF-8") }
            if scalar.value < 0x20 || scalar.value == 0x7f { throw .invalidCharacter("a control character") }
            if scalar == " " { throw .invalidCharacter("a space") }
        }
        let body = name.hasSuffix(".") ? String(name.dropLast()) : name
        // Before the IPv6 exemption: a literal with its zone is far shorter than 253.
        if body.utf8.count > 253 { throw .tooLong(body.utf8.count) }
        // An IPv6 literal (with or without a zone) is not a DNS name: no label rules.
        if name.contains(":") { return }
        if body.isEmpty { throw .emptyLabel }
        for label in body.split(separator: ".", omittingEmptySubsequences: false) {
            if label.isEmpty { throw .emptyLabel }
            if label.utf8.count > 63 { throw .labelTooLong(String(label)) }
        }
    }
}
