#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// Sends and receives whole netlink datagrams. Only `NetlinkSocket` makes
/// syscalls; tests replay canned kernel replies through a fake.
public protocol NetlinkTransport: AnyObject {
    func send(_ datagram: [UInt8]) throws
    /// The next datagram from the kernel (blocking).
    func receive() throws -> [UInt8]
}

/// An AF_NETLINK / NETLINK_ROUTE socket.
public final class NetlinkSocket: NetlinkTransport {
    public let fileDescriptor: Int32
    private var buffer: [UInt8]

    /// Opens a route socket, subscribed to `groups` (RTNLGRP_* bits) when given.
    public init(groups: UInt32 = 0, receiveBufferSize: Int32? = nil) throws {
        fileDescriptor = try System.socket(AF_NETLINK, Int32(SOCK_RAW.rawValue), NETLINK_ROUTE)
        buffer = [UInt8](repeating: 0, count: 32 * 1024)
        do {
            // Extended ACKs give the kernel's error text; harmless where unsupported.
            try? System.setOption(fileDescriptor, SOL_NETLINK, NETLINK_EXT_ACK, Int32(1))
            if let receiveBufferSize {
                try System.setOption(fileDescriptor, SOL_SOCKET, SO_RCVBUF, receiveBufferSize)
            }
            var address = sockaddr_nl()
            address.nl_family = sa_family_t(AF_NETLINK)
            address.nl_groups = groups
            _ = try syscall("bind") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fileDescriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                    }
                }
            }
        } catch {
            System.close(fileDescriptor)
            throw error
        }
    }

    deinit { System.close(fileDescriptor) }

    public func send(_ datagram: [UInt8]) throws {
        _ = try System.send(fileDescriptor, datagram)
    }

    /// Joins a multicast group by its RTNLGRP_* number (works for groups above 31,
    /// which the bind-time bitmask cannot name).
    public func join(group: UInt32) throws {
        try System.setOption(fileDescriptor, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, group)
    }

    /// The next queued datagram, or nil when none is queued (never blocks). Throws
    /// ENOBUFS when the kernel dropped messages because the socket fell behind.
    public func receiveIfQueued() throws -> [UInt8]? {
        let dontWait = Int32(MSG_DONTWAIT)
        do {
            let size = try System.receive(fileDescriptor, into: &buffer, flags: Int32(MSG_PEEK | MSG_TRUNC) | dontWait)
            if size > buffer.count {
                buffer = [UInt8](repeating: 0, count: size)
            }
            let count = try System.receive(fileDescriptor, into: &buffer, flags: dontWait)
            return Array(buffer[0..<count])
        } catch let error as SystemCallError where error.errno == .wouldBlock {
            return nil
        }
    }

    public func receive() throws -> [UInt8] {
        while true {
            // MSG_PEEK | MSG_TRUNC tells the full size first, so no message is ever cut.
            let size = try System.receive(fileDescriptor, into: &buffer, flags: Int32(MSG_PEEK | MSG_TRUNC))
            if size > buffer.count {
                buffer = [UInt8](repeating: 0, count: size)
            }
            let count = try System.receive(fileDescriptor, into: &buffer)
            return Array(buffer[0..<count])
        }
    }
}
