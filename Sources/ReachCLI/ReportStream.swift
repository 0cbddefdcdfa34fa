import ReachCore
import ReachSystem

/// Many targets' reports, written part after part as they are evaluated, so a list of any
/// length is held in memory a part at a time: lines in order, or one JSON document whose
/// `results` come first and whose `reachable`, what the exit status says, follows them.
struct ReportStream {
    /// Targets evaluated together: enough for full batches of route lookups, few enough
    /// that a part's reports take little memory.
    static let partSize = 1024

    let output: OutputOptions
    let command: String
    let any: Bool
    private let renderer: ReportRenderer
    private var started = false
    /// The targets' statuses so far, each once.
    private var seen: [ExitStatus] = []
    /// What the next report's JSON may copy from the reports before it.
    private var repeated = ReportRenderer.RepeatedJSON()
    /// What the next report's line may copy from the line before.
    private var repeatedText = ReportRenderer.RepeatedText()

    init(output: OutputOptions, command: String, any: Bool) {
        self.output = output
        self.command = command
        self.any = any
        renderer = output.renderer
    }

    mutating func write(_ reports: [ReachabilityReport]) {
        // Each document follows the one before with a comma: the writer's state carries over.
        let header = "{\"schema\":\(jsonSchemaVersion),\"command\":\"\(command)\",\"results\":["
        var writer = JSONWriter(started || !output.json ? "" : header)
        if started { writer.continueAfterValue() }
        // Room for the part at once (a report's JSON is about 450 bytes, its line 90), not
        // the doublings and copies of an array grown byte by byte.
        if !output.quiet { writer.bytes.reserveCapacity(writer.bytes.count + reports.count * (output.json ? 512 : 128)) }
        for report in reports {
            let status = ExitStatus.of(report)
            if !seen.contains(status) { seen.append(status) }
            guard !output.quiet else { continue }
            if output.json {
                renderer.write(report, command: command, to: &writer, repeated: &repeated)
            } else {
                renderer.write(text: report, to: &writer.bytes, repeated: &repeatedText)
            }
            started = true
        }
        OutputChannel.standard.write(bytes: writer.bytes)
    }

    /// The exit status over all targets (`ExitStatus.combining`).
    func finish() -> ExitStatus {
        let status = ExitStatus.combining(seen, any: any)
        if output.json && !output.quiet {
            OutputChannel.standard.write("],\"reachable\":\(status == .success)}\n")
        }
        return status
    }
}
