import ReachExporterSystem
import XCTest

/// libyaml's tree as the exporter's configuration reads it: yaml.v3's scalars, lines, and
/// the bounds that keep a hostile file small.
final class YAMLNodeTests: XCTestCase {
    private func parse(_ text: String) throws -> YAMLNode? { try YAMLNode.parse(Array(text.utf8)) }

    private func failure(_ text: String, budget: Int = YAMLNode.nodeBudget) -> YAMLNode.Failure? {
        do {
            _ = try YAMLNode.parse(Array(text.utf8), nodeBudget: budget)
            return nil
        } catch {
            return error
        }
    }

    func testMappingsKeepTheirOrderAndLines() throws {
        let root = try XCTUnwrap(parse("b: 1\na:\n  - x\n  - 'y'\nc: {d: e}\n"))
        let pairs = try XCTUnwrap(root.mapping)
        XCTAssertEqual(pairs.map { $0.key.string }, ["b", "a", "c"])
        XCTAssertEqual(pairs.map { $0.key.mark?.line }, [1, 2, 5])
        XCTAssertEqual(pairs[1].value.sequence?.map(\.string), ["x", "y"])
        XCTAssertEqual(pairs[1].value.sequence?[1].mark, YAMLMark(line: 4, column: 5))
        XCTAssertEqual(pairs[2].value.mapping?.first?.value.string, "e")
        XCTAssertNil(root.string)
        XCTAssertNil(pairs[0].value.sequence)
    }

    /// yaml.v3 (what blackbox_exporter 0.23 reads with) resolves a plain scalar into a bool
    /// field with YAML 1.1's words too; quoted, only those words.
    func testBooleans() throws {
        for (text, value) in [("true", true), ("True", true), ("yes", true), ("ON", true), ("y", true), ("false", false), ("No", false),
                              ("off", false), ("N", false)] {
            XCTAssertEqual(try parse("k: \(text)")?.mapping?[0].value.bool, value, text)
        }
        XCTAssertNil(try parse("k: 'true'")?.mapping?[0].value.bool)
        XCTAssertEqual(try parse("k: 'yes'")?.mapping?[0].value.bool, true)
        XCTAssertNil(try parse("k: 1")?.mapping?[0].value.bool)
        XCTAssertNil(try parse("k: truthy")?.mapping?[0].value.bool)
        XCTAssertEqual(try parse("k: yes")?.mapping?[0].value.string, "yes", "a string field takes the text as written")
    }

    func testIntegersAndNull() throws {
        for (text, value) in [("200", 200), ("-5", -5), ("+7", 7), ("0x1F", 31), ("0o17", 15), ("017", 15), ("0b101", 5), ("1_000", 1000)] {
            XCTAssertEqual(try parse("k: \(text)")?.mapping?[0].value.int, value, text)
        }
        for text in ["'200'", "2.5", "12abc", "0x", "--5", "_1", "1e3"] {
            XCTAssertNil(try parse("k: \(text)")?.mapping?[0].value.int, text)
        }
        for text in ["", "~", "null", "Null"] { XCTAssertEqual(try parse("k: \(text)")?.mapping?[0].value.isNull, true, text) }
        XCTAssertEqual(try parse("k: 'null'")?.mapping?[0].value.isNull, false)
        XCTAssertNil(try parse(""))
        XCTAssertNil(try parse("# only a comment\n"))
    }

    func testAliasesAreExpanded() throws {
        let root = try XCTUnwrap(parse("a: &x {p: 1}\nb: *x\n"))
        XCTAssertEqual(root.mapping?[1].value.mapping?.first?.value.int, 1)
    }

    /// "Billion laughs": nine levels of ten aliases each would be 10^9 nodes.
    func testAnAliasBombIsRefused() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            let previous = "*a\(level - 1)"
            text += "a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]\n"
        }
        let failure = self.failure(text)
        XCTAssertEqual(failure?.message, "more than 100000 nodes once aliases are expanded")
        XCTAssertNotNil(failure?.line)
    }

    func testDeepNestingIsRefused() {
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        XCTAssertEqual(failure(deep)?.message, "nested more than 100 deep")
    }

    func testLibyamlErrorsGiveTheLine() {
        XCTAssertEqual(failure("a: [1, 2\nb: 3\n")?.description,
                       "line 2: not YAML: did not find expected ',' or ']' (while parsing a flow sequence)")
        XCTAssertEqual(failure("a: b: c\n")?.description, "line 1: not YAML: mapping values are not allowed in this context")
        XCTAssertEqual(failure("a: *nowhere\n")?.description, "line 1: not YAML: found undefined alias")
        XCTAssertEqual(failure("a: \u{FF}\n")?.line, nil, "not UTF-8: libyaml's reader, no line")
        XCTAssertEqual(failure("\t- x\n")?.line, 1)
    }

    /// The first document only, as yaml.v3's Decode reads one.
    func testTheFirstDocument() throws {
        XCTAssertEqual(try parse("a: 1\n---\nb: 2\n")?.mapping?.count, 1)
    }
}
