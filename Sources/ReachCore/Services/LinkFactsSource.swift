import ReachSystem

/// What services outside the kernel say about one link.
public struct LinkServiceFacts: Hashable, Sendable {
    /// The facts of the modem whose NET port is the link (ModemManager); nil when no
    /// modem claims it, or nobody could say.
    public var modem: CellularFacts?
    /// NetworkManager's Metered for the device of that name; nil when unknown.
    public var metered: Metered?

    public init(modem: CellularFacts? = nil, metered: Metered? = nil) {
        self.modem = modem
        self.metered = metered
    }
}

/// Where the evaluator learns what ModemManager and NetworkManager say about a link.
/// `BusLinkFacts` asks them over the system bus; tests use a table.
public protocol LinkFactsSource: AnyObject {
    func facts(forLink name: String) -> LinkServiceFacts
}

/// A source of change notices the watch loop polls beside the kernel's: the bus
/// connection's descriptor, and what its signals mean.
public protocol ServiceSignalSource: AnyObject {
    /// The descriptor to poll; nil while there is no connection.
    var signalDescriptor: FileDescriptor.Number? { get }
    /// Signals already read (while a question was answered) and not yet handled.
    var hasPendingSignals: Bool { get }
    /// Reads the signals queued now; true when one of them can change a link's facts,
    /// which are then asked afresh at the next evaluation.
    func handleSignals() -> Bool
}
