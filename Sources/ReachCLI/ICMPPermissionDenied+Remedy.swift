import ReachSystem

extension ICMPPermissionDenied {
    /// The facts, then what a user can do about them: open ping_group_range to every group
    /// (the datagram socket, net/ipv4/ping.c), or give the binary CAP_NET_RAW (the raw one).
    var withRemedy: String {
        "\(self); fix: sysctl -w net.ipv4.ping_group_range=\"0 2147483647\", or setcap cap_net_raw+p on the reach binary"
    }
}
