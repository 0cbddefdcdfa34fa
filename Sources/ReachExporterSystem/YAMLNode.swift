import CYAML

/// A place in a YAML text: 1-based, as editors and yaml.v3's errors count.
public struct YAMLMark: Hashable, Sendable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// One node of a YAML document as libyaml composes it (`yaml_parser_load`), aliases
/// expanded: the reader blackbox.yml-style files go through. Scalars keep their text and
/// whether they were plain (unquoted), which decides how yaml.v3 resolves them.
public struct YAMLNode: Sendable {
    public enum Content: Sendable {
        case scalar(String, plain: Bool)
        case sequence([YAMLNode])
        case mapping([(key: YAMLNode, value: YAMLNode)])
    }

    public var content: Content
    public var mark: YAMLMark?

    public init(_ content: Content, mark: YAMLMark? = nil) {
        self.content = content
        self.mark = mark
    }

    /// Why a text is not a usable YAML document: libyaml's own words, and the line.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var line: Int?
        public var message: String
        public var description: String { line.map { "line \($0): \(message)" } ?? message }
    }

    /// Nodes at most, aliases counted each time they are expanded: a few "billion laughs"
    /// lines (anchors of anchors) would otherwise expand to gigabytes.
    public static let nodeBudget = 100_000
    /// Nesting at most, so that expanding a node never runs out of stack.
    public static let depthLimit = 100

    /// The first document of `bytes` (yaml.v3's Decode reads only the first); nil for
    /// a text with no document or an empty one.
    public static func parse(_ bytes: [UInt8], nodeBudget: Int = nodeBudget) throws(Failure) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Failure(line: nil, message: "libyaml: out of memory") }
        defer { yaml_parser_delete(&parser) }
        var document = yaml_document_t()
        // One byte more, so that even an empty text has an address; libyaml reads `count`.
        let input = bytes + [0]
        let loaded = input.withUnsafeBufferPointer { buffer -> Int32 in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, bytes.count)
            return yaml_parser_load(&parser, &document)
        }
        guard loaded == 1 else { throw failure(of: parser) }
        defer { yaml_document_delete(&document) }
        guard let root = yaml_document_get_root_node(&document) else { return nil }
        var expansion = Expansion(document: document, budget: nodeBudget)
        let node = try expansion.node(root, depth: 0)
        if case .scalar(let text, plain: true) = node.content, text.isEmpty { return nil }
        return node
    }

    private static func failure(of parser: yaml_parser_t) -> Failure {
        let problem = parser.problem.map { String(cString: $0) } ?? "not YAML"
        let context = parser.context.map { " (\(String(cString: $0)))" } ?? ""
        // libyaml counts lines from 0.
        let line = parser.error == YAML_READER_ERROR ? nil : parser.problem_mark.line + 1
        return Failure(line: line, message: "not YAML: \(problem)\(context)")
    }

    /// The walk from libyaml's node table to `YAMLNode`s, with the budget spent as it goes.
    private struct Expansion {
        var document: yaml_document_t
        var budget: Int

        mutating func node(_ node: UnsafeMutablePointer<yaml_node_t>, depth: Int) throws(Failure) -> YAMLNode {
            let mark = YAMLMark(line: node.pointee.start_mark.line + 1, column: node.pointee.start_mark.column + 1)
            budget -= 1
            guard budget >= 0 else {
                throw Failure(line: mark.line, message: "more than \(YAMLNode.nodeBudget) nodes once aliases are expanded")
            }
            guard depth < YAMLNode.depthLimit else {
                throw Failure(line: mark.line, message: "nested more than \(YAMLNode.depthLimit) deep")
            }
            switch node.pointee.type {
            case YAML_SEQUENCE_NODE:
                var items: [YAMLNode] = []
                var item = node.pointee.data.sequence.items.start
                while let current = item, current != node.pointee.data.sequence.items.top {
                    items.append(try child(current.pointee, depth: depth))
                    item = current + 1
                }
                return YAMLNode(.sequence(items), mark: mark)
            case YAML_MAPPING_NODE:
                var pairs: [(key: YAMLNode, value: YAMLNode)] = []
                var pair = node.pointee.data.mapping.pairs.start
                while let current = pair, current != node.pointee.data.mapping.pairs.top {
                    pairs.append((try child(current.pointee.key, depth: depth), try child(current.pointee.value, depth: depth)))
                    pair = current + 1
                }
                return YAMLNode(.mapping(pairs), mark: mark)
            default:
                let scalar = node.pointee.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                return YAMLNode(.scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE), mark: mark)
            }
        }

        private mutating func child(_ index: Int32, depth: Int) throws(Failure) -> YAMLNode {
            guard let child = yaml_document_get_node(&document, index) else {
                throw Failure(line: nil, message: "libyaml: a node refers to no node")
            }
            return try node(child, depth: depth + 1)
        }
    }
}

extension YAMLNode {
    /// The pairs of a mapping, in the file's order.
    public var mapping: [(key: YAMLNode, value: YAMLNode)]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// A scalar's text, whatever it resolves to (yaml.v3 gives a string field the text of
    /// `yes` or `42` as written).
    public var string: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// An unquoted `~`, `null` or nothing: yaml.v3's null, which leaves a field at its default.
    public var isNull: Bool {
        guard case .scalar(let text, plain: true) = content else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(text)
    }

    /// A scalar that yaml.v3 (`decode.go`, what blackbox_exporter 0.23 reads with) puts into a
    /// bool field: true and false (also capitalised or upper case) unquoted, and YAML 1.1's
    /// y, yes, on, n, no, off (likewise) quoted or not.
    public var bool: Bool? {
        guard case .scalar(let text, let plain) = content else { return nil }
        switch text {
        case "true", "True", "TRUE": return plain ? true : nil
        case "false", "False", "FALSE": return plain ? false : nil
        case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON": return true
        case "n", "N", "no", "No", "NO", "off", "Off", "OFF": return false
        default: return nil
        }
    }

    /// A plain scalar that yaml.v3 reads as an integer (strconv.ParseInt, base 0): decimal, 0x hexadecimal, 0o or a
    /// leading 0 octal, 0b binary, a sign, underscores between digits.
    public var int: Int? {
        guard case .scalar(let text, plain: true) = content, !text.isEmpty else { return nil }
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        let radix: Int
        switch true {
        case digits.hasPrefix("0x"): (radix, digits) = (16, digits.dropFirst(2))
        case digits.hasPrefix("0b"): (radix, digits) = (2, digits.dropFirst(2))
        case digits.hasPrefix("0o"): (radix, digits) = (8, digits.dropFirst(2))
        case digits.count > 1 && digits.hasPrefix("0"): (radix, digits) = (8, digits.dropFirst())
        default: radix = 10
        }
        let cleaned = digits.filter { $0 != "_" }
        guard !cleaned.isEmpty, digits.first != "_", cleaned.allSatisfy(\.isHexDigit), let magnitude = Int(cleaned, radix: radix) else {
            return nil
        }
        return negative ? -magnitude : magnitude
    }
}
