import ReachCommandLine
import ReachCore
import ReachSystem

/// The exporter's page at `/`: what blackbox_exporter 0.23's shows a person (`main.go`: links
/// to the metrics and the configuration, "Recent Probes" newest first with each one's log),
/// and the version, the health endpoint, each probe's failure reason and duration.
///
/// Plain HTML with its style inline and no script: it reads the same in a text browser, and
/// loads on a network with no internet (no font, style sheet or script from elsewhere). Links
/// are relative, as blackbox's, so they stay under `--web.route-prefix`. Every value from a
/// request or the configuration is escaped (`HTMLText`).
public enum StatusPage {
    /// What the page's headers add: nothing may load from elsewhere, and no script runs, even if
    /// an escape were ever missed.
    public static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'"
    public static let contentType = "text/html; charset=utf-8"

    public static func render(recent: [ProbeHistory.Entry], historyLimit: Int, continuous: [ContinuousTimelines.Row] = []) -> [UInt8] {
        var html = head(title: "reach-exporter")
        html += """
            <h1>reach-exporter</h1>
            <p>Version \(HTMLText.escaped(ReachVersion.current)), a blackbox_exporter 0.23 drop-in.</p>
            <p><a href="metrics">Metrics</a> · <a href="config">Configuration</a> · <a href="-/healthy">Health</a></p>

            """
        html += recentProbes(recent, historyLimit: historyLimit)
        if !continuous.isEmpty { html += continuousTargets(continuous) }
        html += "</body>\n</html>\n"
        return Array(html.utf8)
    }

    /// The recent probes, one row each, newest first, as blackbox's table (Module, Target,
    /// Result, Debug), with reach's columns between: when, why it failed, how long it took.
    static func recentProbes(_ recent: [ProbeHistory.Entry], historyLimit: Int) -> String {
        var html = "<h2>Recent Probes</h2>\n"
        guard let newest = recent.first else {
            let limitOption = ExporterOptions.historyLimitOption.name.spelled
            let kept = historyLimit == 0 ? "none are kept (\(limitOption) 0)" : "none has run since the exporter started"
            return html + "<p>No probe yet: \(kept).</p>\n"
        }
        let (target, module) = (newest.target, newest.moduleName)
        let debugLink = "probe?target=\(HTMLText.queryValue(target))&amp;module=\(HTMLText.queryValue(module))&amp;debug=true"
        html += "<p><a href=\"\(debugLink)\">Debug probe \(HTMLText.escaped(target)) for \(HTMLText.escaped(module))</a></p>\n"
        html += "<table>\n<tr><th>Module</th><th>Target</th><th>Result</th><th>Reason</th><th>Duration</th><th>Time (UTC)</th>"
        html += "<th>Debug</th></tr>\n"
        for entry in recent {
            let result = entry.success ? "Success" : "<strong>Failure</strong>"
            let reason = entry.success ? "" : HTMLText.escaped(entry.measurement.failure?.rawValue ?? "")
            let duration = MillisecondText.threeDecimals(microseconds: entry.measurement.duration.microseconds) + " ms"
            html += "<tr class=\"\(entry.success ? "success" : "failure")\"><td>\(HTMLText.escaped(entry.moduleName))</td>"
            html += "<td>\(HTMLText.escaped(entry.target))</td><td>\(result)</td><td>\(reason)</td><td class=\"number\">\(duration)</td>"
            html += "<td class=\"time\">\(UTCTimestamp.iso8601(entry.started))</td><td><a href=\"logs?id=\(entry.id)\">Logs</a></td></tr>\n"
        }
        return html + "</table>\n"
    }

    /// One row per continuous target: its last round trip, the last minute's loss, and its
    /// graph small, linked to the full one.
    static func continuousTargets(_ rows: [ContinuousTimelines.Row]) -> String {
        var html = "<h2>Continuous Targets</h2>\n<table>\n"
        html += "<tr><th>Host</th><th>IP</th><th>Last round trip</th><th>Loss, last minute</th><th>Last hour</th></tr>\n"
        for row in rows {
            let query = "host=\(HTMLText.queryValue(row.target.host))&amp;ip=\(HTMLText.queryValue(row.target.ip))"
            let last = row.lastRoundTrip.map { MillisecondText.threeDecimals(microseconds: $0.microseconds) + " ms" } ?? "none yet"
            let loss = row.recentLoss.map { DecimalText.fixed($0 * 100, decimals: 1) + "%" } ?? "not a whole minute yet"
            let name = "\(HTMLText.escaped(row.target.host)) (\(HTMLText.escaped(row.target.ip)))"
            html += "<tr><td>\(HTMLText.escaped(row.target.host))</td><td>\(HTMLText.escaped(row.target.ip))</td>"
            html += "<td class=\"number\">\(last)</td><td class=\"number\">\(loss)</td>"
            html += "<td><a href=\"graph?\(query)\"><img src=\"graph?\(query)&amp;size=small\" width=\"240\" height=\"60\" "
            html += "alt=\"round trips to \(name), last hour\"></a></td></tr>\n"
        }
        return html + "</table>\n"
    }

    /// The document's start: its title, and a style for a light and a dark theme (the
    /// reader's `prefers-color-scheme`).
    static func head(title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>\(HTMLText.escaped(title))</title>
        <style>
        body { font-family: sans-serif; margin: 1.5em; color: #1b1b1b; background: #ffffff; }
        a { color: #0b57d0; }
        table { border-collapse: collapse; }
        th, td { border: 1px solid #b8b8b8; padding: 0.2em 0.6em; text-align: left; }
        td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        td.time { white-space: nowrap; }
        tr.failure td { background: #fde7e7; }
        @media (prefers-color-scheme: dark) {
          body { color: #e6e6e6; background: #161616; }
          a { color: #8ab4f8; }
          th, td { border-color: #4a4a4a; }
          tr.failure td { background: #4a1c1c; }
        }
        </style>
        </head>
        <body>

        """
    }
}
