/// A parse failure in bytes that came from the kernel or the network; names the offset.
public struct ParseError: Error, Equatable, CustomStringConvertible {
    public var offset: Int
    public var what: String
    public init(offset: Int, _ what: String) {
        self.offset = offset
        self.what = what
    }
    public var description: String { "malformed data at offset \(offset): \(what)" }
}
