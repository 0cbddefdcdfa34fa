import ReachCommandLine
import ReachCore
import ReachSystem

/// `--allow`: which targets `/probe` may probe. A scrape endpoint must not be a way to make
/// the host probe any address a caller names, so nothing is allowed until something is.
/// An address literal is allowed by a CIDR that holds it; a host name by the same name or a
/// `*.suffix` it ends with (names are compared as written, case aside, before any lookup).
public struct AllowList: Sendable, Equatable {
    public enum Entry: Sendable, Equatable {
        case everything
        case network(IPAddress, prefixLength: Int)
        case name(String)
        /// `*.example.org`: any name ending in `.example.org` (not the bare suffix).
        case suffix(String)
    }

    public var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static func entry(_ text: String) throws(ParseError) -> Entry {
        if text == "*" { return .everything }
        let shown = PrintableText.ascii(text)
        if text.dropFirst(text.hasPrefix("*.") ? 2 : 0).contains("*") {
            throw ParseError(description: "'\(shown)': '*' only alone or as *.suffix")
        }
        if let slash = text.firstIndex(of: "/") {
            let prefixText = text[text.index(after: slash)...]
            guard let address = try? IPAddress.parse(String(text[..<slash])), let length = Int(prefixText),
                  (0...Int(address.family.prefixLength)).contains(length), prefixText.allSatisfy(\.isASCII)
            else { throw ParseError(description: "'\(shown)' is not a CIDR (198.51.100.0/24, 2001:db8::/32)") }
            return .network(address, prefixLength: length)
        }
        if let address = try? IPAddress.parse(text) {
            return .network(address, prefixLength: Int(address.family.prefixLength))
        }
        if text.hasPrefix("*.") {
            let suffix = String(text.dropFirst(2))
            guard (try? HostName.validate(suffix)) != nil else {
                throw ParseError(description: "'\(shown)' is not *. followed by a host name")
            }
            return .suffix(suffix.lowercased())
        }
        guard (try? HostName.validate(text)) != nil else {
            throw ParseError(description: "'\(shown)' is neither a CIDR, a host name, *.suffix nor *")
        }
        return .name(text.lowercased())
    }

    /// nil when `host` (a name or an address literal, as the target gave it) may be probed;
    /// else the one-line reason it may not.
    public func refusal(of host: String) -> String? {
        if entries.isEmpty { return "no \(ExporterOptions.allowOption.spelled) given: every target is refused" }
        if entries.contains(.everything) { return nil }
        if let address = try? IPAddress.parse(host) {
            for case .network(let network, let length) in entries where Self.contains(network, length, address) { return nil }
            return "target \(address) is outside \(ExporterOptions.allowOption.spelled)"
        }
        let name = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        for entry in entries {
            switch entry {
            case .name(let allowed) where allowed == name: return nil
            case .suffix(let suffix) where name.hasSuffix("." + suffix): return nil
            default: continue
            }
        }
        return "target \(PrintableText.ascii(host)) is outside \(ExporterOptions.allowOption.spelled)"
    }

    static func contains(_ network: IPAddress, _ length: Int, _ address: IPAddress) -> Bool {
        guard network.family == address.family else { return false }
        var remaining = length
        for (mine, theirs) in zip(network.bytes, address.bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine & mask != theirs & mask { return false }
            remaining -= bits
        }
        return true
    }
}
