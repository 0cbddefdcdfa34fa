extension Array where Element == UInt8 {
    /// Room for the kernel to write a datagram into (recv(2), recvmsg(2), recvmmsg(2)), not
    /// zeroed: only the bytes a call says it wrote are ever read, and zeroing would fault in
    /// every page of the room at start-up, before the first (usually short) answer arrives.
    init(receiveRoom count: Int) {
        self.init(unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }
}
