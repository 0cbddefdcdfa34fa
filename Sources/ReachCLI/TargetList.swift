import ReachCore
import ReachCommandLine
import ReachSystem

/// The targets of one run: the operands, then the lines of `--targets-from FILE` (`-`:
/// standard input). One target a line; blank lines and `#` comments are skipped, as fping's
/// `-f` skips them. Every fault is a usage error found before anything is looked up or sent.
enum TargetList {
    /// More targets than this in one run are refused where each target holds state (a
    /// socket, a sequence number): fping's `-g` limit, and what one ICMP sequence space
    /// (16 bits) can tell apart.
    static let maximumTargets = 65_536
    /// How messages name the options that give targets: the file option (`reach ping`'s too),
    /// and `reach ping`'s range.
    static var fileOption: String { TargetListOptions.Option.targetsFrom.spelled }
    static var generateOption: String { PingOptions.Option.generate.spelled }
    /// A file longer than this cannot hold a valid list (65,536 lines of at most 253 bytes).
    static let maximumFileBytes = 17 * 1024 * 1024
    /// Where a target holds no state (`addr` and `host` look one part of the list up after
    /// another, as `ip -batch` takes any length), only the file's size is bounded.
    static let maximumStatelessFileBytes = 256 * 1024 * 1024

    /// How many targets a run takes: `maximumTargets`, or, for route lookups, any number.
    enum Limit {
        case stateful
        case stateless
    }

    /// The targets `operands` and `files` name, in that order (each file's after the one
    /// before it); at least one, unless `allowingNone` (more come from elsewhere: ping's
    /// --generate).
    static func collect(
        _ operands: [String], from files: [String], allowingNone: Bool = false, limit: Limit = .stateful
    ) throws -> [String] {
        try gather(operands, from: files, allowingNone: allowingNone, limit: limit).texts
    }

    /// The same targets, each from a file with the file and the line it came from.
    static func gather(
        _ operands: [String], from files: [String], allowingNone: Bool = false, limit: Limit = .stateful
    ) throws -> Collected {
        var collected = Collected(texts: operands)
        let room = limit == .stateful ? maximumTargets : Int.max
        // Standard input read once holds nothing the second time: said, not "no targets in it".
        if files.filter({ $0 == "-" }).count > 1 { throw UsageError("\(TargetList.fileOption) -: standard input can be read only once") }
        for file in files {
            let name = file == "-" ? "standard input" : PrintableText.escaped(file)
            let found = try read(file, name: name, limit: limit, room: room - min(room, collected.texts.count))
            collected.texts += found.texts
            collected.origins += found.lineNumbers.map { (name, $0) }
        }
        guard !collected.texts.isEmpty || allowingNone else { throw UsageError("no target given (name one, or \(fileOption) FILE)") }
        guard collected.texts.count <= room else { throw UsageError("more than \(maximumTargets) targets") }
        return collected
    }

    /// One file's targets, at most `room` of them; a file with none is refused.
    private static func read(_ file: String, name: String, limit: Limit, room: Int) throws -> (texts: [String], lineNumbers: [Int]) {
        switch FileContents.read(file, limit: limit == .stateful ? maximumFileBytes : maximumStatelessFileBytes) {
        case .failure(let errno) where errno == .fileTooLarge:
            throw UsageError(limit == .stateful ? "\(TargetList.fileOption) \(name): more than \(maximumTargets) targets"
                : "\(TargetList.fileOption) \(name): larger than \(maximumStatelessFileBytes / 1024 / 1024) MiB")
        case .failure(let errno):
            throw UsageError("\(TargetList.fileOption) \(name): \(errno)")
        case .success(let bytes):
            let found = try lines(bytes, source: name, room: room)
            if found.texts.isEmpty { throw UsageError("\(TargetList.fileOption) \(name): no targets in it") }
            return found
        }
    }

    /// Targets with the lines they came from, so that a fault found in one later names its line.
    struct Collected {
        var texts: [String]
        /// Each target from a file: the file as error messages name it, and the line. They
        /// are the last `origins.count` texts.
        var origins: [(source: String, line: Int)] = []

        /// `parse` applied to each target in order; a usage error about a target from a file
        /// names the file and the line ("\(TargetList.fileOption) FILE: line 3: invalid IP address ...").
        func map<T>(_ parse: (String) throws -> T) throws -> [T] {
            let operands = texts.count - origins.count
            return try texts.indices.map { index in
                do {
                    return try parse(texts[index])
                } catch let error as UsageError where index >= operands {
                    let origin = origins[index - operands]
                    throw UsageError("\(TargetList.fileOption) \(origin.source): line \(origin.line): \(error.message)")
                }
            }
        }
    }

    /// The targets in a file's bytes with their line numbers, at most `room` of them.
    static func lines(_ bytes: [UInt8], source: String, room: Int) throws -> (texts: [String], lineNumbers: [Int]) {
        var targets: (texts: [String], lineNumbers: [Int]) = ([], [])
        var lineNumber = 0
        var start = bytes.startIndex
        // Line by line in place: split() first made an array of every line, 32 bytes a line
        // more at the peak of a long list (and a pass more).
        while start <= bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            defer { start = end + 1 }
            lineNumber += 1
            // Up to a comment, without the blanks around it (and a CRLF file's CR).
            var text = bytes[start..<end]
            if let hash = text.firstIndex(of: UInt8(ascii: "#")) { text = text[..<hash] }
            while let first = text.first, isBlank(first) { text = text.dropFirst() }
            while let last = text.last, isBlank(last) { text = text.dropLast() }
            if text.isEmpty { continue }
            // ASCII (every address, most names) needs no validation: String(validating:) walks
            // the bytes through its generic decoder, most of the cost of reading a long list.
            guard let target = text.allSatisfy({ $0 < 0x80 }) ? String(decoding: text, as: UTF8.self)
                : String(validating: text, as: UTF8.self) else {
                throw UsageError("\(TargetList.fileOption) \(source): line \(lineNumber) is not valid UTF-8")
            }
            guard !text.contains(where: isBlank) else {
                throw UsageError("\(fileOption) \(source): line \(lineNumber): one target a line: '\(PrintableText.escaped(target))'")
            }
            guard targets.texts.count < room else { throw UsageError("\(fileOption) \(source): more than \(maximumTargets) targets") }
            targets.texts.append(target)
            targets.lineNumbers.append(lineNumber)
        }
        return targets
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }
}

extension TargetList {
    /// Every host address of a prefix, as fping's `-g` lists them (src/fping.c add_cidr): an
    /// IPv4 prefix shorter than /31 without its network and broadcast addresses; an IPv6
    /// prefix without its Subnet-Router anycast address, the first (RFC 4291 2.6.1).
    /// Refused when, with the `already` targets before them, they would be more than
    /// `maximumTargets`.
    static func generate(_ cidr: String, after already: Int = 0) throws -> [String] {
        let shown = PrintableText.escaped(cidr)
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].contains("%"), let address = try? IPAddress.parse(String(parts[0])),
            !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(parts[1]),
            length <= address.family.addressLength * 8
        else { throw UsageError("\(generateOption): '\(shown)' is not an address prefix such as 198.51.100.0/24") }
        let hostBits = address.family.addressLength * 8 - length
        // 2^hostBits addresses, fewer the excluded ones: refused before any is made.
        let excluded = address.family == .ipv4 ? (length < 31 ? 2 : 0) : (hostBits > 0 ? 1 : 0)
        guard hostBits <= 17, (1 << hostBits) - excluded + already <= maximumTargets else {
            throw UsageError("\(generateOption): \(shown) has more than \(maximumTargets) host addresses")
        }
        // The prefix's first address: the host bits cleared.
        var first = address.bytes
        for bit in length..<(first.count * 8) { first[bit / 8] &= ~(UInt8(0x80) >> UInt8(bit % 8)) }
        var targets: [String] = []
        targets.reserveCapacity((1 << hostBits) - excluded)
        for offset in 0..<(1 << hostBits) {
            if address.family == .ipv4 && length < 31 && (offset == 0 || offset == (1 << hostBits) - 1) { continue }
            if address.family == .ipv6 && hostBits > 0 && offset == 0 { continue }
            var bytes = first
            var carry = offset
            var position = bytes.count - 1
            while carry > 0 && position >= 0 {
                let sum = Int(bytes[position]) + (carry & 0xff)
                bytes[position] = UInt8(sum & 0xff)
                carry = (carry >> 8) + (sum >> 8)
                position -= 1
            }
            if let host = IPAddress(family: address.family, bytes: bytes) { targets.append(host.description) }
        }
        return targets
    }
}

extension TargetList {
    /// Every address from `start` to `end`, both included, as fping's `-g START END` lists
    /// them (src/fping.c add_range); IPv6 too. Refused when the end comes before the start,
    /// or when, with the `already` targets before them, they would be more than `maximumTargets`.
    static func generate(from start: String, to end: String, after already: Int = 0) throws -> [String] {
        func address(_ text: String) throws -> IPAddress {
            guard !text.contains("%"), let address = try? IPAddress.parse(text) else {
                throw UsageError("\(generateOption): '\(PrintableText.escaped(text))' is not an IP address (START END, or a prefix)")
            }
            return address
        }
        let (first, last) = (try address(start), try address(end))
        guard first.family == last.family else {
            throw UsageError("\(generateOption): \(first) and \(last) are not of one family")
        }
        // last - first, byte by byte with a borrow; negative when the end comes first.
        var difference = [UInt8](repeating: 0, count: first.bytes.count)
        var borrow = 0
        for position in difference.indices.reversed() {
            let value = Int(last.bytes[position]) - Int(first.bytes[position]) - borrow
            borrow = value < 0 ? 1 : 0
            difference[position] = UInt8((value + 256) % 256)
        }
        guard borrow == 0 else { throw UsageError("\(generateOption): the end \(last) comes before the start \(first)") }
        let high = difference.dropLast(3)
        let low = difference.suffix(3).reduce(0) { $0 << 8 | Int($1) }
        guard high.allSatisfy({ $0 == 0 }), low + 1 + already <= maximumTargets else {
            throw UsageError("\(generateOption): \(first) to \(last) is more than \(maximumTargets) addresses")
        }
        var targets: [String] = []
        targets.reserveCapacity(low + 1)
        var bytes = first.bytes
        for _ in 0...low {
            if let host = IPAddress(family: first.family, bytes: bytes) { targets.append(host.description) }
            // The next address: add one, carrying.
            var position = bytes.count - 1
            while position >= 0 {
                bytes[position] &+= 1
                if bytes[position] != 0 { break }
                position -= 1
            }
        }
        return targets
    }
}
