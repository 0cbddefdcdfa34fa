import ReachCommandLine
import ReachCore
import ReachSystem

/// What `watch --notify` tells the service manager (sd_notify(3)): `STATUS=` with the state
/// at each line the watch reports, and `READY=1` once, when `--until`'s state holds (the
/// watch then ends), or without `--until` when the first state is known. A unit of
/// Type=notify running `reach watch --until reachable --notify` so starts when the path is
/// there, and `systemctl status` shows the state meanwhile.
struct WatchNotification {
    private let notifier: ServiceNotifier
    private let renderer: WatchRenderer
    private var readySent = false
    private var failureSaid = false

    init(notifier: ServiceNotifier, renderer: WatchRenderer) {
        self.notifier = notifier
        self.renderer = renderer
    }

    mutating func reported(_ event: WatchEvent, waitingUntil: Bool) {
        // STATUS= is one line: the assignments of a datagram are separated by newlines.
        var assignments = ["STATUS=" + renderer.statusLine(event.current)]
        if !waitingUntil && !readySent {
            assignments.append("READY=1")
            readySent = true
        }
        send(assignments)
    }

    mutating func ended(_ end: WatchEnd) {
        guard end == .conditionMet, !readySent else { return }
        readySent = true
        send(["READY=1"])
    }

    /// A manager that stopped listening is said once on stderr; the watch goes on.
    private mutating func send(_ assignments: [String]) {
        guard let failure = notifier.send(assignments), !failureSaid else { return }
        failureSaid = true
        OutputChannel.standardError.write("reach: \(WatchOptions.Option.notify.spelled): \(failure)\n")
    }
}

extension WatchOptions {
    /// `--notify`'s messages; nil without `--notify` or when no manager waits
    /// (`$NOTIFY_SOCKET` unset, as sd_notify(3) then sends nothing).
    func makeNotification() throws -> WatchNotification? {
        guard notify else { return nil }
        let notifier: ServiceNotifier?
        do {
            notifier = try ServiceNotifier.fromEnvironment()
        } catch .unusableAddress(let text) {
            let shown = PrintableText.escaped(text)
            throw UsageError(
                "\(WatchOptions.Option.notify.spelled): NOTIFY_SOCKET '\(shown)' is neither an absolute path nor an @abstract name")
        } catch .socket(let error) {
            throw error
        }
        return notifier.map { WatchNotification(notifier: $0, renderer: WatchRenderer(report: output.renderer)) }
    }
}
