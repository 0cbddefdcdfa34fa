#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// An AF_NETLINK / NETLINK_ROUTE socket (netlink(7), rtnetlink(7)) that sends and receives
/// whole datagrams.
public final class NetlinkSocket {
    private let socket: FileDescriptor
    /// What a poll loop waits on for the kernel's messages.
    public var fileDescriptor: FileDescriptor.Number { socket.number }
    private var buffer: [UInt8]

    /// The multicast groups whose changes can change a reachability verdict: links,
    /// addresses, routes and rules of both families (RTNLGRP_* in <linux/rtnetlink.h>).
    public static let reachabilityGroups: [UInt32] = [
        RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, RTNLGRP_IPV4_ROUTE,
        RTNLGRP_IPV6_ROUTE, RTNLGRP_IPV4_RULE, RTNLGRP_IPV6_RULE,
    ].map { UInt32($0.rawValue) }

    /// Opens a route socket, subscribed to `groups` (RTNLGRP_* bits) when given.
    public init(groups: UInt32 = 0, receiveBufferSize: Int32? = nil) throws(SystemCallError) {
        socket = try FileDescriptor.socket(domain: AF_NETLINK, .raw, protocol: NETLINK_ROUTE)
        buffer = [UInt8](receiveRoom: 32 * 1024)
        // A failure below releases this object, and the socket with it.
        let fd = socket.rawValue
        // Extended ACKs give the kernel's error text; harmless where unsupported.
        try? System.setOption(fd, SOL_NETLINK, NETLINK_EXT_ACK, Int32(1))
        if let receiveBufferSize {
            try System.setOption(fd, SOL_SOCKET, SO_RCVBUF, receiveBufferSize)
        }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = groups
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                System.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        if case .failure(let errno) = bound { throw SystemCallError("bind", errno) }
    }

    public func send(_ datagram: [UInt8]) throws(SystemCallError) {
        if case .failure(let errno) = datagram.withUnsafeBytes({ System.send(socket.rawValue, $0) }) {
            throw SystemCallError("send", errno)
        }
    }

    /// Joins a multicast group by its RTNLGRP_* number (works for groups above 31,
    /// which the bind-time bitmask cannot name).
    public func join(group: UInt32) throws(SystemCallError) {
        try System.setOption(socket.rawValue, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, group)
    }

    /// Sets the receive buffer: SO_RCVBUFFORCE first (root may exceed net.core.rmem_max),
    /// then SO_RCVBUF. A multicast listener with room for a burst loses nothing.
    public func setReceiveBuffer(size: Int32) {
        if (try? System.setOption(socket.rawValue, SOL_SOCKET, SO_RCVBUFFORCE, size)) == nil {
            // Without either, the default buffer: a burst can overrun it, which the drain takes as a change (read afresh).
            try? System.setOption(socket.rawValue, SOL_SOCKET, SO_RCVBUF, size)
        }
    }

    /// The next queued datagram, or nil when none is queued (never blocks). Throws
    /// ENOBUFS when the kernel dropped messages because the socket fell behind.
    public func receiveIfQueued() throws(SystemCallError) -> [UInt8]? {
        do {
            return try receive(flags: Int32(MSG_DONTWAIT))
        } catch where error.errno == .wouldBlock {
            return nil
        }
    }

    /// The next datagram from the kernel (blocking).
    public func receive() throws(SystemCallError) -> [UInt8] {
        try receive(flags: 0)
    }

    /// Datagrams a batch receives at most, and the room for each: a route lookup's answer is
    /// built in at most NLMSG_GOODSIZE bytes (a page, net/ipv4/route.c inet_rtm_getroute),
    /// so 8 KiB holds any of them whole.
    public static let batchLimit = 64
    static let batchSlotSize = 8192
    private var batchBuffer: [UInt8] = []

    /// Up to `batchLimit` datagrams in one system call: when `waiting`, blocks for the first,
    /// then takes what is queued (recvmmsg(2) with MSG_WAITFORONE); otherwise takes what is
    /// queued, none at all when nothing is. A datagram larger than a slot is
    /// an error (EMSGSIZE), not a cut message; ENOBUFS says the kernel dropped answers
    /// because the receive buffer was full (netlink(7)). The datagrams are slices of one buffer,
    /// not copies: the next call fills it again in place once the caller has let them go.
    public func receiveBatch(waiting: Bool) throws(SystemCallError) -> [ArraySlice<UInt8>] {
        let slots = Self.batchLimit
        let slotSize = Self.batchSlotSize
        // The kernel writes a short answer at the start of each slot, so the pages beyond are
        // never touched (a zeroed buffer faulted in all 512 KiB at the first batch).
        if batchBuffer.count < slots * slotSize {
            batchBuffer = [UInt8](receiveRoom: slots * slotSize)
        }
        var vectors = [iovec](repeating: iovec(), count: slots)
        var headers = [creach_mmsghdr](repeating: creach_mmsghdr(), count: slots)
        let descriptor = socket.rawValue
        let received: Result<Int32, Errno> = batchBuffer.withUnsafeMutableBytes { buffer in
            vectors.withUnsafeMutableBufferPointer { vectors in
                headers.withUnsafeMutableBufferPointer { headers in
                    for slot in 0..<slots {
                        vectors[slot] = iovec(iov_base: buffer.baseAddress! + slot * slotSize, iov_len: slotSize)
                        headers[slot].msg_hdr.msg_iov = vectors.baseAddress! + slot
                        headers[slot].msg_hdr.msg_iovlen = 1
                    }
                    let flags = waiting ? Int32(CREACH_MSG_WAITFORONE) : Int32(MSG_DONTWAIT)
                    return System.receiveMultiple(descriptor, headers.baseAddress!, count: slots, flags: flags)
                }
            }
        }
        let count: Int
        switch received {
        case .success(let value): count = Int(value)
        case .failure(let errno) where errno == .wouldBlock && !waiting: return []
        case .failure(let errno): throw SystemCallError("recvmmsg", errno)
        }
        var datagrams: [ArraySlice<UInt8>] = []
        datagrams.reserveCapacity(count)
        for slot in 0..<count {
            if headers[slot].msg_hdr.msg_flags & Int32(MSG_TRUNC) != 0 { throw SystemCallError("recvmmsg", Errno(rawValue: EMSGSIZE)) }
            let start = slot * slotSize
            datagrams.append(batchBuffer[start..<(start + Int(headers[slot].msg_len))])
        }
        return datagrams
    }

    private func receive(flags: Int32) throws(SystemCallError) -> [UInt8] {
        // MSG_PEEK | MSG_TRUNC tells the full size first, so no message is ever cut.
        let size = try receiveInto(flags: Int32(MSG_PEEK | MSG_TRUNC) | flags)
        if size > buffer.count {
            buffer = [UInt8](receiveRoom: size)
        }
        let count = try receiveInto(flags: flags)
        return Array(buffer[0..<count])
    }

    private func receiveInto(flags: Int32) throws(SystemCallError) -> Int {
        let descriptor = socket.rawValue
        switch buffer.withUnsafeMutableBytes({ System.receive(descriptor, into: $0, flags: flags) }) {
        case .success(let count): return count
        case .failure(let errno): throw SystemCallError("recv", errno)
        }
    }
}
