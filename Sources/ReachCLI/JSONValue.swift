import ReachSystem

/// A JSON value with ordered keys, written without Foundation (start-up cost matters:
/// docs/LINUX-FACTS.md, "Swift and the process") and always on one line.
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// A value already written as JSON (by `JSONWriter`).
    case raw(String)

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }

    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// A round trip in milliseconds to the whole microsecond, truncated: the precision of
    /// one target's statistics, which iputils computes in whole microseconds
    /// (ping_common.c gather_statistics), given to every `rtt_ms` so that a summary's
    /// minimum is one of its replies' times.
    static func milliseconds(_ span: TimeSpan) -> JSONValue {
        .number(Double(span.microseconds) / 1000)
    }

    func serialized() -> String {
        var output = ""
        write(to: &output)
        return output
    }

    /// Appends the value to `output` (a list's documents go into one string).
    func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .number(let value): output += value.isFinite ? String(value) : "null"
        case .string(let value): JSONString.write(value, to: &output)
        case .raw(let text): output += text
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                JSONString.write(key, to: &output)
                output += ":"
                value.write(to: &output)
            }
            output += "}"
        }
    }
}

/// Writes JSON straight into UTF-8 bytes, for documents written by the thousand (a list's
/// reports): no tree of values is built first, and no String grown piece by piece (perf
/// showed String's append as the cost of a long list's JSON). A value after another at the
/// same level is preceded by a comma, so objects written one after another form an array's
/// elements.
struct JSONWriter {
    var bytes: [UInt8] = []
    private var needsComma = false

    init(_ start: String = "") { bytes += start.utf8 }

    /// The bytes written, as text.
    var output: String { String(decoding: bytes, as: UTF8.self) }

    /// What comes next follows a value written before (by another writer).
    mutating func continueAfterValue() { needsComma = true }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's key; its value follows. A literal, so written without an escape check.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes += UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func string(_ value: String) {
        separate()
        append(quoted: value)
    }

    /// An address as a string: its text has nothing to escape, unless a zone is written.
    mutating func string(_ address: IPAddress?) {
        guard let address else { return null() }
        guard address.zone == nil else { return string(address.description) }
        separate()
        bytes.append(UInt8(ascii: "\""))
        address.appendDescription(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string in quotes; escaped by JSONString when it needs to be.
    private mutating func append(quoted value: String) {
        if !JSONString.needsEscape(value) {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(utf8: value)
            bytes.append(UInt8(ascii: "\""))
        } else {
            var escaped = ""
            JSONString.write(value, to: &escaped)
            bytes += escaped.utf8
        }
    }

    mutating func string(_ value: String?) {
        guard let value else { return null() }
        string(value)
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(literal: value ? "true" : "false")
    }

    mutating func int(_ value: Int64) {
        separate()
        bytes.append(utf8: String(value))
    }

    mutating func null() {
        separate()
        bytes.append(literal: "null")
    }

    /// A value built as a tree (the rare parts: probes, cellular facts).
    mutating func value(_ value: JSONValue) {
        separate()
        bytes += value.serialized().utf8
    }

    /// Bytes `recording` gave, copied as they were, and the state they left.
    fileprivate mutating func append(recorded: JSONRecording) {
        bytes += recorded.bytes
        needsComma = recorded.needsCommaAfter
    }

    /// What `write` writes, and the writer's state before and after it.
    fileprivate mutating func recording(_ write: (inout JSONWriter) -> Void) -> JSONRecording {
        let (start, before) = (bytes.count, needsComma)
        write(&self)
        return JSONRecording(bytes: Array(bytes[start...]), needsCommaBefore: before, needsCommaAfter: needsComma)
    }

    fileprivate var needsCommaNow: Bool { needsComma }
}

/// Bytes a writer wrote, with whether a comma was due before and after them.
private struct JSONRecording {
    var bytes: [UInt8]
    var needsCommaBefore: Bool
    var needsCommaAfter: Bool
}

/// What was written last for a key, kept to be copied when the next key is equal: a list's
/// reports mostly differ from their neighbours only in their addresses, and writing the rest
/// member by member was most of what --json cost beside text (perf). A copy is taken only
/// where the writer stands as it stood when the bytes were written (a comma due or not).
struct JSONMemo<Key: Equatable> {
    /// Kept apart and compared in place: the two bound together as one optional were copied
    /// whole at every comparison (callgrind).
    private var key: Key?
    private var recording = JSONRecording(bytes: [], needsCommaBefore: false, needsCommaAfter: false)

    /// What `write` writes for `key`, or a copy of what it wrote for an equal key last time.
    mutating func write(_ key: Key, to writer: inout JSONWriter, by write: (inout JSONWriter) -> Void) {
        if recording.needsCommaBefore == writer.needsCommaNow, self.key == key {
            return writer.append(recorded: recording)
        }
        recording = writer.recording(write)
        self.key = key
    }
}
