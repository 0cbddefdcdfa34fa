import ReachCore
import ReachSystem

/// SmokePing's graph of one continuous target, as SVG: per step of the timeline the median round
/// trip as a line coloured by that step's loss, and the spread of the other answers as grey
/// "smoke" around it (SmokePing's `Smokeping.pm` draws each step's pings sorted, darker toward
/// the middle); a step with no answer at all is a red band. Axes with units, a legend, and a
/// light and a dark theme (`prefers-color-scheme`, which a browser applies inside an `<img>`
/// too). Each step is a `<g>` whose `data-` attributes hold its figures, and whose `<title>` a
/// browser shows on hover.
public enum SmokeGraph {
    public static let contentType = "image/svg+xml"

    /// The full graph, or the small one the exporter's page shows in a row.
    public enum Size: Sendable, Equatable {
        case full, small

        var width: Int { self == .full ? 800 : 240 }
        var height: Int { self == .full ? 330 : 60 }
        /// The plot's box: left, top, right, bottom.
        var plot: (left: Int, top: Int, right: Int, bottom: Int) {
            self == .full ? (70, 34, 780, 262) : (2, 2, 238, 58)
        }
    }

    /// Loss classes and their colours, lightest loss first (SmokePing's default scale runs from
    /// green through blue and purple to red).
    static let lossColours: [(upTo: Double, colour: String, label: String)] = [
        (0, "#26a269", "0%"), (0.05, "#1c71d8", "< 5%"), (0.10, "#9141ac", "< 10%"), (0.50, "#e66100", "< 50%"),
        (1, "#c01c28", "≥ 50%"),
    ]

    /// The smoke's bands between quantile pairs (indexes into a step's 11 quantiles), widest first.
    static let bands: [(low: Int, high: Int, opacity: Double)] = [(0, 10, 0.12), (1, 9, 0.18), (2, 8, 0.24), (3, 7, 0.3), (4, 6, 0.38)]

    public static func render(
        title: String, steps: [LatencyTimeline.Step], stepLength: TimeSpan, from first: Int64, to last: Int64, size: Size
    ) -> [UInt8] {
        let scale = Scale(steps: steps, from: first, to: last, size: size)
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(size.width)" height="\(size.height)" \
            viewBox="0 0 \(size.width) \(size.height)" role="img" aria-label="\(HTMLText.escaped(title))">
            <title>\(HTMLText.escaped(title))</title>
            \(style)
            <rect class="background" width="100%" height="100%"/>

            """
        if size == .full { svg += axes(scale, title: title, stepLength: stepLength) }
        for step in steps { svg += drawn(step, scale) }
        if size == .full { svg += legend(scale) }
        svg += "</svg>\n"
        return Array(svg.utf8)
    }

    static let style = """
        <style>
        .background { fill: #ffffff; } .text { fill: #1b1b1b; font: 12px sans-serif; } .grid { stroke: #d8d8d8; stroke-width: 1; }
        .axis { stroke: #6b6b6b; stroke-width: 1; } .smoke { fill: #000000; }
        @media (prefers-color-scheme: dark) {
          .background { fill: #161616; } .text { fill: #e6e6e6; } .grid { stroke: #363636; } .axis { stroke: #9a9a9a; }
          .smoke { fill: #ffffff; }
        }
        </style>
        """

    /// From steps and microseconds to the plot's pixels.
    struct Scale {
        let size: Size
        let first: Int64
        let count: Int64
        /// The top of the round-trip axis, in microseconds: a round number above most steps'
        /// 90th percentile, so one outlier does not flatten the rest (as SmokePing's
        /// max_rtt guess does); smoke above it is cut at the top.
        let top: UInt32
        let tick: UInt32

        init(steps: [LatencyTimeline.Step], from first: Int64, to last: Int64, size: Size) {
            self.size = size
            self.first = first
            count = max(last - first + 1, 1)
            let highs = steps.compactMap { $0.quantiles.isEmpty ? nil : $0.quantiles[9] }.sorted()
            let high = highs.isEmpty ? 1000 : highs[(highs.count - 1) * 95 / 100]
            (top, tick) = Self.roundAxis(above: Double(high) * 1.15)
        }

        /// The smallest 1, 2 or 5 × 10^n tick giving at most five ticks, and the top it makes.
        static func roundAxis(above value: Double) -> (top: UInt32, tick: UInt32) {
            var tick: Double = 1
            while tick * 5 < value { tick *= 10 }
            for candidate in [tick / 5, tick / 2] where candidate >= 1 && candidate * 5 >= value {
                tick = candidate
                break
            }
            let ticks = max((value / tick).rounded(.up), 1)
            return (UInt32(clamping: Int64(ticks * tick)), UInt32(clamping: Int64(tick)))
        }

        func x(_ index: Int64) -> Double {
            let plot = size.plot
            return Double(plot.left) + Double(plot.right - plot.left) * Double(index - first) / Double(count)
        }

        var stepWidth: Double { Double(size.plot.right - size.plot.left) / Double(count) }

        func y(_ microseconds: UInt32) -> Double {
            let plot = size.plot
            let share = min(Double(microseconds) / Double(top), 1)
            return Double(plot.bottom) - Double(plot.bottom - plot.top) * share
        }
    }

    static func colour(loss: Double) -> String {
        lossColours.first { loss <= $0.upTo }?.colour ?? lossColours[lossColours.count - 1].colour
    }

    /// One step: its smoke, its median, or a red band when nothing answered.
    static func drawn(_ step: LatencyTimeline.Step, _ scale: Scale) -> String {
        let (x, width) = (scale.x(step.index), scale.stepWidth)
        let median = step.median.map(String.init) ?? ""
        let percent = DecimalText.fixed(step.loss * 100, decimals: 1)
        var svg = "<g class=\"step\" data-index=\"\(step.index)\" data-sent=\"\(step.sent)\" data-received=\"\(step.received)\""
        svg += " data-median-us=\"\(median)\">"
        let answered = step.median.map { "median \(MillisecondText.threeDecimals(microseconds: Int64($0))) ms, " } ?? ""
        svg += "<title>\(answered)\(step.received) of \(step.sent) answered, \(percent)% loss</title>"
        guard let middle = step.median, step.quantiles.count == LatencyTimeline.Step.quantileCount else {
            let plot = scale.size.plot
            let height = Double(plot.bottom - plot.top)
            svg += rect(x: x, y: Double(plot.top), width: width, height: height, fill: colour(loss: 1), opacity: 0.35)
            return svg + "</g>\n"
        }
        for band in bands {
            let (low, high) = (scale.y(step.quantiles[band.low]), scale.y(step.quantiles[band.high]))
            svg += rect(x: x, y: high, width: width, height: max(low - high, 0.5), fill: nil, opacity: band.opacity)
        }
        let y = scale.y(middle)
        svg += line(from: (x, y), to: (x + width, y), attributes: "stroke=\"\(colour(loss: step.loss))\" stroke-width=\"2\"")
        return svg + "</g>\n"
    }

    static func rect(x: Double, y: Double, width: Double, height: Double, fill: String?, opacity: Double) -> String {
        let paint = fill.map { "fill=\"\($0)\"" } ?? "class=\"smoke\""
        return "<rect x=\"\(pixels(x))\" y=\"\(pixels(y))\" width=\"\(pixels(width))\" height=\"\(pixels(height))\" \(paint) "
            + "fill-opacity=\"\(opacity)\"/>"
    }

    static func line(from start: (Double, Double), to end: (Double, Double), attributes: String) -> String {
        "<line x1=\"\(pixels(start.0))\" y1=\"\(pixels(start.1))\" x2=\"\(pixels(end.0))\" y2=\"\(pixels(end.1))\" \(attributes)/>"
    }

    /// A coordinate: two decimals are finer than any screen's pixel.
    static func pixels(_ value: Double) -> String { DecimalText.fixed(value, decimals: 2) }

    static func text(_ content: String, x: Double, y: Double, anchor: String = "start") -> String {
        "<text class=\"text\" x=\"\(pixels(x))\" y=\"\(pixels(y))\" text-anchor=\"\(anchor)\">\(HTMLText.escaped(content))</text>\n"
    }

    /// The axes: round trips in milliseconds up the left with a grid line per tick, time in UTC
    /// along the bottom (a label every sixth of the span), the title above (it says what is
    /// drawn: "round trip to ...").
    static func axes(_ scale: Scale, title: String, stepLength: TimeSpan) -> String {
        let plot = scale.size.plot
        var svg = text(title, x: Double(plot.left), y: 20)
        var tick: UInt32 = 0
        while tick <= scale.top {
            let y = scale.y(tick)
            svg += line(from: (Double(plot.left), y), to: (Double(plot.right), y), attributes: "class=\"grid\"") + "\n"
            svg += text(milliseconds(tick, tick: scale.tick) + " ms", x: Double(plot.left - 6), y: y + 4, anchor: "end")
            tick += scale.tick
        }
        let labels = max(scale.count / 6, 1)
        var index = scale.first
        while index <= scale.first + scale.count {
            let x = scale.x(index)
            svg += line(from: (x, Double(plot.bottom)), to: (x, Double(plot.bottom + 4)), attributes: "class=\"axis\"") + "\n"
            let start = RealtimeInstant(nanoseconds: index * stepLength.nanoseconds)
            svg += text(String(UTCTimestamp.iso8601(start).dropFirst(11).prefix(5)), x: x, y: Double(plot.bottom + 17), anchor: "middle")
            index += labels
        }
        svg += line(from: (Double(plot.left), Double(plot.bottom)), to: (Double(plot.right), Double(plot.bottom)),
                    attributes: "class=\"axis\"") + "\n"
        svg += line(from: (Double(plot.left), Double(plot.top)), to: (Double(plot.left), Double(plot.bottom)),
                    attributes: "class=\"axis\"") + "\n"
        return svg + text("time (UTC)", x: Double(plot.right), y: Double(plot.bottom + 30), anchor: "end")
    }

    /// A tick's label: as many decimals as the tick's size needs (0.2 ms, 5 ms, 100 ms).
    static func milliseconds(_ microseconds: UInt32, tick: UInt32) -> String {
        let decimals = tick >= 1000 ? 0 : tick >= 100 ? 1 : tick >= 10 ? 2 : 3
        return DecimalText.fixed(Double(microseconds) / 1000, decimals: decimals)
    }

    /// The loss colours and what the smoke and the line are, under the time axis.
    static func legend(_ scale: Scale) -> String {
        let y = Double(scale.size.plot.bottom + 46)
        var x = Double(scale.size.plot.left)
        var svg = text("median by loss:", x: x, y: y)
        x += 98
        for (_, colour, label) in lossColours {
            svg += rect(x: x, y: y - 9, width: 14, height: 10, fill: colour, opacity: 1) + "\n"
            svg += text(label, x: x + 18, y: y)
            // About 7 pixels a character at 12 px.
            x += 30 + Double(label.count * 7)
        }
        svg += rect(x: x + 8, y: y - 9, width: 14, height: 10, fill: nil, opacity: 0.3) + "\n"
        return svg + text("smoke: spread of the answers", x: x + 26, y: y)
    }
}
