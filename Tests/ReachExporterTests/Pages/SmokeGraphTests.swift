import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// A continuous target's steps, and SmokePing's graph drawn from them.
final class SmokeGraphTests: XCTestCase {
    private func at(_ seconds: Double) -> RealtimeInstant { RealtimeInstant(nanoseconds: Int64(seconds * 1e9)) }

    /// Requests every second for three minutes, every fifth unanswered, round trips 20–28 ms; a
    /// reply that comes after its step ended still counts in its request's step.
    func testStepsCountEachRequestInTheStepItLeftIn() {
        var timeline = LatencyTimeline(stepLength: .seconds(60), kept: 60)
        for second in 0..<180 {
            let sent = at(6000 + Double(second))
            timeline.sent(at: sent)
            guard second % 5 != 4 else { continue }
            let roundTrip = TimeSpan(nanoseconds: Int64(20 + second % 10) * 1_000_000)
            timeline.received(roundTrip, sentAt: sent, now: at(6000 + Double(second) + 0.5))
        }
        let steps = timeline.steps(from: 0, now: at(6180.2))
        XCTAssertEqual(steps.map(\.index), [100, 101, 102])
        XCTAssertEqual(steps.map(\.sent), [60, 60, 60])
        XCTAssertEqual(steps.map(\.received), [48, 48, 48])
        XCTAssertEqual(steps[0].loss, 0.2, accuracy: 1e-9)
        XCTAssertEqual(steps[0].quantiles.first, 20_000)
        XCTAssertEqual(steps[0].quantiles.last, 28_000)
        XCTAssertEqual(steps[0].median, 23_000)
        // from: leaves out the older steps.
        XCTAssertEqual(timeline.steps(from: 102, now: at(6180.2)).map(\.index), [102])
    }

    func testTheRingKeepsTheNewestSteps() {
        var timeline = LatencyTimeline(stepLength: .seconds(1), kept: 3)
        for second in 0..<10 {
            timeline.sent(at: at(Double(second)))
            timeline.received(.milliseconds(5), sentAt: at(Double(second)), now: at(Double(second) + 0.1))
        }
        // Three finished, and the two still open.
        XCTAssertEqual(timeline.steps(from: 0, now: at(9.5)).map(\.index), [5, 6, 7, 8, 9])
        // Late answers: a step two behind is summed up already.
        timeline.received(.milliseconds(5), sentAt: at(7), now: at(9.6))
        XCTAssertEqual(timeline.steps(from: 0, now: at(9.6)).map(\.received), [1, 1, 1, 1, 1])
        timeline.received(.milliseconds(5), sentAt: at(8), now: at(9.7))
        XCTAssertEqual(timeline.steps(from: 0, now: at(9.7)).map(\.received), [1, 1, 1, 2, 1])
    }

    func testAxisTopsAreRound() {
        XCTAssertEqual(SmokeGraph.Scale.roundAxis(above: 24_150).top, 25_000)
        XCTAssertEqual(SmokeGraph.Scale.roundAxis(above: 24_150).tick, 5_000)
        XCTAssertEqual(SmokeGraph.Scale.roundAxis(above: 380).top, 400)
        XCTAssertEqual(SmokeGraph.Scale.roundAxis(above: 1_000_001).top, 1_500_000)
        XCTAssertEqual(SmokeGraph.milliseconds(200, tick: 100), "0.2")
    }

    /// The graph's figures are the steps': each step a group with its counts and median, the
    /// median coloured by loss, a step with no answer a red band; names escaped.
    func testTheGraphCarriesEachStepsFigures() {
        var timeline = LatencyTimeline(stepLength: .seconds(60), kept: 60)
        for second in 0..<120 {
            timeline.sent(at: at(Double(second)))
            if second < 60 { timeline.received(.milliseconds(21), sentAt: at(Double(second)), now: at(Double(second) + 0.1)) }
        }
        let steps = timeline.steps(from: 0, now: at(121))
        let svg = String(
            decoding: SmokeGraph.render(
                title: "far<&>.lab (198.51.100.7)", steps: steps, stepLength: .seconds(60), from: 0, to: 59, size: .full), as: UTF8.self)
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"330\""), svg)
        XCTAssertTrue(svg.contains("<title>far&lt;&amp;&gt;.lab (198.51.100.7)</title>"), svg)
        XCTAssertTrue(svg.contains("data-index=\"0\" data-sent=\"60\" data-received=\"60\" data-median-us=\"21000\""), svg)
        XCTAssertTrue(svg.contains("<title>median 21.000 ms, 60 of 60 answered, 0.0% loss</title>"), svg)
        XCTAssertTrue(svg.contains("data-index=\"1\" data-sent=\"60\" data-received=\"0\" data-median-us=\"\""), svg)
        XCTAssertTrue(svg.contains("stroke=\"#26a269\""), svg)
        XCTAssertTrue(svg.contains("fill=\"#c01c28\" fill-opacity=\"0.35\""), svg)
        XCTAssertTrue(svg.contains(">25 ms</text>"), svg)
        XCTAssertTrue(svg.contains("@media (prefers-color-scheme: dark)"), svg)
        let small = String(
            decoding: SmokeGraph.render(title: "t", steps: steps, stepLength: .seconds(60), from: 0, to: 59, size: .small), as: UTF8.self)
        XCTAssertTrue(small.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"240\" height=\"60\""), small)
        XCTAssertFalse(small.contains("ms</text>"), small)
    }

    func testDecimalText() {
        XCTAssertEqual(DecimalText.fixed(12.346, decimals: 2), "12.35")
        XCTAssertEqual(DecimalText.fixed(-3, decimals: 1), "0.0")
        XCTAssertEqual(DecimalText.fixed(7.5, decimals: 0), "8")
    }

    /// What the page reads of the continuous prober's series: rows in the order the series
    /// began, the last whole minute's loss, a graph for a known target only, none once its
    /// address has left.
    func testTheContinuousSeriesTimelines() throws {
        let metrics = SmokepingMetrics(layout: .smokeping)
        let far = ContinuousTimelines.Target(host: "far.lab", ip: "198.51.100.7")
        let near = ContinuousTimelines.Target(host: "<near>", ip: "2001:db8::1")
        for (id, target) in [far, near].enumerated() {
            metrics.activate(id, labels: [MetricSample.Label("host", target.host), MetricSample.Label("ip", target.ip)])
        }
        let from = try IPAddress.parse("198.51.100.7")
        for second in 0..<90 {
            let probe = PingProbe(target: 0, index: second, sequence: UInt16(second))
            let reply = PingEvent.reply(PingReply(probe: probe, from: from, ttl: 63, bytes: 64, roundTrip: .milliseconds(20)))
            for id in [0, 1] {
                metrics.observe(.sent(probe, bytes: 64), series: id, at: at(Double(second)))
                if id == 1 || second % 4 != 0 { metrics.observe(reply, series: id, at: at(Double(second) + 0.02)) }
            }
        }
        let rows = metrics.pageRows(now: at(90.5))
        XCTAssertEqual(rows.map(\.target), [far, near])
        XCTAssertEqual(try XCTUnwrap(rows[0].recentLoss), 0.25, accuracy: 1e-9)
        XCTAssertEqual(rows[1].recentLoss, 0)
        XCTAssertEqual(rows[0].lastRoundTrip, .milliseconds(20))
        let graph = try XCTUnwrap(metrics.graph(far, range: .seconds(3600), size: .full, now: at(90.5)))
        let svg = String(decoding: graph, as: UTF8.self)
        XCTAssertTrue(svg.contains("<title>round trip to far.lab (198.51.100.7), last 1 h</title>"), svg)
        XCTAssertTrue(svg.contains("data-index=\"0\" data-sent=\"60\" data-received=\"45\""), svg)
        XCTAssertTrue(svg.contains("data-index=\"1\" data-sent=\"30\" data-received=\"22\""), svg)
        XCTAssertNil(metrics.graph(ContinuousTimelines.Target(host: "x", ip: "y"), range: .seconds(60), size: .full, now: at(90)))
        let page = String(decoding: StatusPage.render(recent: [], historyLimit: 1, continuous: rows), as: UTF8.self)
        XCTAssertTrue(page.contains("<td>&lt;near&gt;</td><td>2001:db8::1</td><td class=\"number\">20.000 ms</td>"), page)
        XCTAssertTrue(page.contains("<img src=\"graph?host=%3Cnear%3E&amp;ip=2001%3Adb8%3A%3A1&amp;size=small\""), page)
        metrics.deactivate(0)
        XCTAssertEqual(metrics.pageRows(now: at(91)).map(\.target), [near])
        XCTAssertNil(metrics.graph(far, range: .seconds(60), size: .small, now: at(91)))
    }
}
