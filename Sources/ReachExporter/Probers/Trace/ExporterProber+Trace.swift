import ReachCore
import ReachSystem

extension ExporterProber {
    /// The trace prober: one pass of `reach trace`'s engine toward the address, within the
    /// probe's deadline; success when the destination answered. The hops kept are those
    /// up to where the pass ended: each hop's first answering address, or none.
    func trace(
        _ address: IPAddress, settings: TraceProberSettings, deadline: MonotonicInstant, into measurement: inout ProbeMeasurement
    ) throws {
        if let source = settings.address.source, source.family != address.family { return measurement.fail(.sourceAddressUnavailable) }
        let engineSettings = settings.engineSettings(wait: deadline.remaining(from: .now()))
        let transport: SocketTraceTransport
        do {
            transport = try SocketTraceTransport(settings: engineSettings, target: address)
        } catch let error as SystemCallError where error.call == "bind" {
            return measurement.fail(.sourceAddressUnavailable)
        } catch let error as SystemCallError where error.call == ICMPSocketOptions.bindToDeviceCall {
            return measurement.fail(.sourceInterfaceUnavailable)
        }
        let engine = TraceEngine(settings: engineSettings, family: address.family, transport: transport)
        let result = try engine.pass(deadline: deadline) { _ in }
        let trace = ProbeMeasurement.Trace(result)
        measurement.detail = .trace(trace)
        switch result.stop {
        case .reachedDestination: measurement.success = true
        // An ICMP error with traceroute's annotation (!H, !N, !X...) from a router on the way.
        case .stopped: measurement.fail(.hostUnreachable)
        case .maxHopsReached: measurement.fail(.traceMaxHops)
        case .cutShort: measurement.fail(.timedOut)
        }
    }
}

/// The trace prober's own.
extension ProbeFailureReason {
    /// The destination did not answer within max_hops.
    public static let traceMaxHops = Self(rawValue: "max_hops_reached")
}
