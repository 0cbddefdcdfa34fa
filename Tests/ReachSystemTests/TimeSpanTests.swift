import XCTest
@testable import ReachSystem

final class TimeSpanTests: XCTestCase {
    func testUnitsAndBareSeconds() throws {
        let cases: [(String, Int64)] = [
            ("5", 5000), ("1.5", 1500), ("0.25s", 250), ("1.5s", 1500), ("300ms", 300), ("2m", 120_000),
            ("0", 0), ("0ms", 0), (".5", 500), ("0.0004s", 0), ("0.0005s", 1), ("1.2345ms", 1),
            ("86400", 86_400_000), ("1440m", 86_400_000),
        ]
        for (text, milliseconds) in cases {
            XCTAssertEqual(try TimeSpan.parse(text).milliseconds, milliseconds, text)
        }
    }

    func testNotADuration() {
        for text in ["", "s", "ms", "m", ".", "-1", "+1", "1e3", "inf", "nan", "0x10", "1_000", " 5", "5 ", "5 s",
                     "5h", "5sec", "1.2.3", "5msm", "٥", "5\u{0}"] {
            XCTAssertThrowsError(try TimeSpan.parse(text), text.debugDescription) { error in
                XCTAssertEqual(error as? TimeSpan.ParseError, .notADuration(text), text.debugDescription)
            }
        }
    }

    func testOutOfRange() {
        for text in ["86401", "1441m", "86400001ms", "99999999999999999999999", String(repeating: "9", count: 400)] {
            XCTAssertThrowsError(try TimeSpan.parse(text), text) { error in
                XCTAssertEqual(error as? TimeSpan.ParseError, .outOfRange(text))
            }
        }
    }

    /// Go's grammar as blackbox.yml's time.Duration reads it: units on every number, "0" alone.
    func testGoGrammar() throws {
        let cases: [(String, Int64)] = [
            ("5s", 5_000_000_000), ("250ms", 250_000_000), ("1m30s", 90_000_000_000), ("1.5h", 5_400_000_000_000),
            ("300ms", 300_000_000), ("0", 0), ("-1s", -1_000_000_000), ("1us", 1000), ("1\u{B5}s", 1000), ("1\u{3BC}s", 1000),
            ("2h45m", 9_900_000_000_000), ("1ns", 1), ("48h", TimeSpan.maximum.nanoseconds),
        ]
        for (text, nanoseconds) in cases {
            XCTAssertEqual(try TimeSpan.parse(text, .go).nanoseconds, nanoseconds, text)
        }
        for text in ["5", "s", "1x", "", "-", "1m30", "1.2.3s", "1e3s", " 1s"] {
            XCTAssertThrowsError(try TimeSpan.parse(text, .go), text.debugDescription)
        }
    }

    /// ping's -i and -W: seconds without a unit, to the nanosecond.
    func testSecondsGrammar() throws {
        XCTAssertEqual(try TimeSpan.parse("0.2", .seconds), .milliseconds(200))
        XCTAssertEqual(try TimeSpan.parse("0.0000015", .seconds), .nanoseconds(1500))
        XCTAssertEqual(try TimeSpan.parse("86400", .seconds), .maximum)
        for text in ["1s", "-1", "1e3", "86401", "", "."] {
            XCTAssertThrowsError(try TimeSpan.parse(text, .seconds), text.debugDescription)
        }
    }

    /// The CLI's grammar takes Go's compound form too, within its units.
    func testCommandLineCompound() throws {
        XCTAssertEqual(try TimeSpan.parse("1m30s"), .seconds(90))
        XCTAssertEqual(try TimeSpan.parse("1s500ms"), .milliseconds(1500))
        XCTAssertThrowsError(try TimeSpan.parse("1m30"))
    }

    func testDescriptionAndPollTimeout() {
        XCTAssertEqual(TimeSpan(milliseconds: 5000).description, "5s")
        XCTAssertEqual(TimeSpan(milliseconds: 1500).description, "1500ms")
        XCTAssertEqual(TimeSpan(milliseconds: 0).description, "0s")
        XCTAssertEqual(TimeSpan(milliseconds: 5000).secondsText, "5", "as the docs quote it: no answer within 5 s")
        XCTAssertEqual(TimeSpan(milliseconds: 1500).secondsText, "1.5")
        XCTAssertEqual(TimeSpan(milliseconds: 300).secondsText, "0.3")
        XCTAssertEqual(TimeSpan(milliseconds: 1).secondsText, "0.001")
        XCTAssertEqual(TimeSpan.maximum.pollTimeout, 86_400_000)
        XCTAssertEqual(TimeSpan(milliseconds: Int64.max).pollTimeout, Int32.max, "clamped, not trapped")
    }
}

final class MonotonicInstantTests: XCTestCase {
    func testArithmeticSaturatesAndPollTimeoutRoundsUp() {
        XCTAssertEqual(TimeSpan(nanoseconds: 400_000).pollTimeout, 1, "0.4 ms left is a wait of 1 ms, not a busy 0")
        XCTAssertEqual(TimeSpan(nanoseconds: -5).pollTimeout, 0)
        XCTAssertEqual(TimeSpan.milliseconds(1500).milliseconds, 1500)
        XCTAssertEqual(TimeSpan.seconds(2) - .milliseconds(500), .milliseconds(1500))
        XCTAssertEqual(TimeSpan(milliseconds: .max).nanoseconds, .max, "saturated, not trapped")
        XCTAssertEqual((TimeSpan.maximum * .max).nanoseconds, .max)
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        let deadline = start + .milliseconds(250)
        XCTAssertEqual(deadline - start, .milliseconds(250))
        XCTAssertEqual(deadline.remaining(from: start + .seconds(1)), .zero, "a passed deadline leaves nothing")
        XCTAssertEqual(deadline.pollTimeout(from: start), 250)
        XCTAssertEqual((MonotonicInstant(nanoseconds: .max) + .seconds(1)).nanoseconds, .max)
    }

    func testNowIsMonotonic() {
        let first = MonotonicInstant.now()
        let second = MonotonicInstant.now()
        XCTAssertLessThanOrEqual(first, second)
        XCTAssertGreaterThan(RealtimeInstant.now().seconds, 1_700_000_000, "the epoch clock, not the boot clock")
    }
}
