import ReachRegex

/// Any bytes read as an RE2 pattern: refused with one printable line, or compiled and then
/// matched against the same bytes (unanchored, and for its submatches), with no trap and in
/// time linear in the text. A match's groups lie within the text, in order.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRegex(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = FuzzInput.bytes(start, count)
    let text = String(decoding: bytes, as: UTF8.self)
    let regex: RE2
    do {
        regex = try RE2(text)
    } catch {
        precondition(!error.message.isEmpty && !error.message.contains("\n"), "refusal of more than one line")
        return 0
    }
    let matched = regex.matches(utf8: bytes)
    precondition(regex.matches(text) == (regex.firstMatch(in: text) != nil), "matches and firstMatch disagree")
    if let groups = regex.firstMatch(in: text) {
        precondition(groups.count == regex.captureCount + 1 && groups[0] != nil, "no whole match")
        for case let group? in groups { precondition(group.upperBound <= text.utf8.count, "group past the text") }
    }
    // The bytes and their lossy String differ only where they are not UTF-8.
    if String(validating: bytes, as: UTF8.self) != nil { precondition(matched == regex.matches(text), "bytes and text disagree") }
    return 0
}
