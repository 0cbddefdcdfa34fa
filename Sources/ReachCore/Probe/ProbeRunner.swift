import ReachSystem

/// Runs one probe to its verdict within a deadline. NetworkProbeRunner is the real
/// one; tests substitute their own. A probe that cannot run (no ICMP permission, a
/// failing system call) throws: that is no verdict about the network.
public protocol ProbeRunner: Sendable {
    func run(_ spec: ProbeSpec, deadline: MonotonicInstant) throws -> ProbeResult
}
