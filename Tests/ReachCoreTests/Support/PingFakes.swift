import XCTest
@testable import ReachCore
import ReachSystem

/// A clock the test moves by hand.
final class ManualClock: PingClock {
    var monotonicNanoseconds: Int64 = 1_000_000_000
    /// CLOCK_REALTIME runs `realtimeOffset` ahead of the monotonic clock (a step changes it).
    var realtimeOffset: Int64 = 1_700_000_000_000_000_000
    var realtimeNanoseconds: Int64 { monotonicNanoseconds + realtimeOffset }
    var monotonicNow: MonotonicInstant { mono(monotonicNanoseconds) }
    var realtimeNow: RealtimeInstant { real(realtimeNanoseconds) }
}

/// Instants from the manual clock's nanoseconds.
func mono(_ nanoseconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: nanoseconds) }
func real(_ nanoseconds: Int64) -> RealtimeInstant { RealtimeInstant(nanoseconds: nanoseconds) }

/// A transport that answers probes as a script says, on the manual clock.
final class FakeTransport: PingTransport {
    let kind: ICMPSocketKind
    let identifier: UInt16
    let clock: ManualClock
    /// Called for each probe sent (sequence, packet, send time); returns what arrives and when.
    var answer: (UInt16, [UInt8], Int64) -> [(delay: Int64, input: TransportInput)] = { _, _, _ in [] }
    var refuse: (UInt16) -> Errno? = { _ in nil }
    private(set) var sent: [(sequence: UInt16, time: Int64)] = []
    private var scheduled: [(time: Int64, input: TransportInput)] = []

    init(kind: ICMPSocketKind = .datagram, identifier: UInt16 = 0x4242, clock: ManualClock) {
        self.kind = kind
        self.identifier = identifier
        self.clock = clock
    }

    /// The family of the last target sent to: the one socket's.
    private var family = AddressFamily.ipv4

    func identifier(for family: AddressFamily) -> UInt16 { identifier }
    func kind(for family: AddressFamily) -> ICMPSocketKind? { kind }

    func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws -> Errno? {
        beforeSend()
        family = target.family
        let sequence = UInt16(packet[6]) << 8 | UInt16(packet[7])
        if let error = refuse(sequence) { return error }
        sent.append((sequence, clock.monotonicNanoseconds))
        for (delay, input) in answer(sequence, packet, clock.monotonicNanoseconds) {
            schedule(input, at: clock.monotonicNanoseconds + delay)
        }
        return nil
    }

    func interrupt() {
        schedule(.interrupted, at: clock.monotonicNanoseconds)
    }

    func schedule(_ input: TransportInput, at time: Int64) {
        scheduled.append((time, input))
        scheduled.sort { $0.time < $1.time }
    }

    func wait(until instant: MonotonicInstant?, _ deliver: (AddressFamily, TransportInput) -> Void) throws {
        let deadline = instant?.nanoseconds
        guard let next = scheduled.first, deadline == nil || next.time <= deadline! else {
            guard let deadline else { throw SystemCallError("wait", .invalidArgument) } // would block forever
            clock.monotonicNanoseconds = max(clock.monotonicNanoseconds, deadline)
            return
        }
        clock.monotonicNanoseconds = max(clock.monotonicNanoseconds, next.time)
        let due = scheduled.prefix { $0.time <= clock.monotonicNanoseconds }
        scheduled.removeFirst(due.count)
        let inputs = due.map { input -> TransportInput in
            // The kernel stamps a datagram when it arrives: fill in the times of delivery.
            guard case .datagram(var datagram) = input.input else { return input.input }
            datagram.monotonicTime = clock.monotonicNow
            if datagram.kernelTimestamp == real(0) { datagram.kernelTimestamp = real(input.time + clock.realtimeOffset) }
            return .datagram(datagram)
        }
        for input in inputs { deliver(family, input) }
    }
}

/// Sockets of both families on the manual clock: probes answered as a script says.
final class FakeSocketGroup: PingTransport {
    let clock: ManualClock
    /// For each probe sent (its target and packet): what arrives, and after how long.
    var answer: (IPAddress, [UInt8]) -> [(delay: Int64, input: TransportInput)] = { _, _ in [] }
    var refuse: (IPAddress) -> Errno? = { _ in nil }
    private(set) var sent: [(target: IPAddress, sequence: UInt16, time: Int64)] = []
    private var scheduled: [(time: Int64, family: AddressFamily, input: TransportInput)] = []

    init(clock: ManualClock) { self.clock = clock }

    func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws -> Errno? {
        beforeSend()
        if let error = refuse(target) { return error }
        sent.append((target, UInt16(packet[6]) << 8 | UInt16(packet[7]), clock.monotonicNanoseconds))
        for (delay, input) in answer(target, packet) {
            scheduled.append((clock.monotonicNanoseconds + delay, target.family, input))
        }
        scheduled.sort { $0.time < $1.time }
        return nil
    }

    func identifier(for family: AddressFamily) -> UInt16 { family == .ipv4 ? 0x4242 : 0x4343 }
    func kind(for family: AddressFamily) -> ICMPSocketKind? { .datagram }
    func interrupt() { scheduled.insert((clock.monotonicNanoseconds, .ipv4, .interrupted), at: 0) }

    func wait(until instant: MonotonicInstant?, _ deliver: (AddressFamily, TransportInput) -> Void) throws {
        let deadline = instant?.nanoseconds
        guard let next = scheduled.first, deadline == nil || next.time <= deadline! else {
            guard let deadline else { throw SystemCallError("wait", .invalidArgument) }
            clock.monotonicNanoseconds = max(clock.monotonicNanoseconds, deadline)
            return
        }
        clock.monotonicNanoseconds = max(clock.monotonicNanoseconds, next.time)
        scheduled.removeFirst()
        guard case .datagram(var datagram) = next.input else { return deliver(next.family, next.input) }
        datagram.monotonicTime = clock.monotonicNow
        datagram.kernelTimestamp = real(next.time + clock.realtimeOffset)
        deliver(next.family, .datagram(datagram))
    }
}
