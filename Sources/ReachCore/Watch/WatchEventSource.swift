import ReachSystem

/// What wakes the watch loop, as it handles it.
public enum WatchInput {
    /// The reader of the output went away (`reach watch | head -1`).
    case readerGone
    /// SIGINT or SIGTERM.
    case interrupted
    /// The kernel's route, link, address or rule messages, drained.
    case kernelChanged(NetlinkDrain)
    /// The lookup of `name` started by `startLookup` finished.
    case resolved(ResolutionOutcome, name: String)
    /// The check started by `startCheck` finished (an error: the probe could not run).
    case checked(Result<ConnectivityReport, Error>)
    /// A service on the bus said a link's facts changed (ModemManager, NetworkManager).
    case servicesChanged
}

/// The sources the watch loop waits on, and its clock. `KernelWatchEvents` is the real one
/// (netlink, signalfd, the output's reader, background jobs); tests drive the loop with a
/// fake, as the ping loop is driven with a fake transport.
public protocol WatchEventSource: AnyObject {
    /// CLOCK_MONOTONIC and the wall clock.
    func now() -> WatchInstant
    /// Starts resolving `name`, abandoning a lookup of it still running (lookups of other
    /// names go on); the outcome arrives as `.resolved` from a later `wait`.
    func startLookup(name: String, family: AddressFamily?) throws
    /// Starts a connectivity check; its report arrives as `.checked` from a later `wait`.
    func startCheck(_ checker: ConnectivityChecker) throws
    /// Blocks until something arrives, or `timeout` passes (nil: no limit); what arrived, in
    /// the order the loop handles it (empty when the time ran out).
    func wait(timeout: TimeSpan?) throws -> [WatchInput]
}
