import Foundation

/// The helpers a lab can start inside its namespaces: a process holding a tun device open,
/// dnsmasq, and a DNS server that never answers.
extension NetworkLab {
    /// Attaches a process to the tun device `name` (made beforehand with `ip tuntap add`, so
    /// it outlives the process): TUNSETIFF with IFF_TUN | IFF_NO_PI on /dev/net/tun (IFF_TAP
    /// with `tap: true`). While the process lives the device has carrier; `stop()` on the
    /// result detaches it again.
    func attachTun(_ name: String, in namespace: Namespace, tap: Bool = false) throws -> BackgroundProcess {
        let holder = try launchHelper("tun-holder.py", [name, tap ? "tap" : "tun"], in: namespace, label: "tun-\(name)")
        try holder.waitUntilReady(marker: "attached")
        try namespace.waitFor(link: name, operstate: "UP")
        return holder
    }

    /// dnsmasq answering for `records` (name to its A and AAAA addresses) and with NXDOMAIN
    /// for every name in `nonexistent`, listening on `address` port 53. It never forwards:
    /// no upstream servers, no /etc/hosts, no configuration file; unless `options` say so
    /// (`--server=/DOMAIN/ADDRESS`: a domain forwarded to a server inside the lab).
    func startDNSMasq(in namespace: Namespace, address: String, records: [String: [String]],
                      nonexistent: [String], options: [String] = []) throws -> BackgroundProcess {
        var arguments = [
            "dnsmasq", "--keep-in-foreground", "--no-resolv", "--no-hosts", "--conf-file=/dev/null",
            "--bind-interfaces", "--listen-address=\(address)", "--port=53", "--pid-file=",
            "--user=root", "--log-facility=-", "--log-queries",
        ]
        arguments += records.sorted { $0.key < $1.key }.map { "--host-record=\($0.key),\($0.value.joined(separator: ","))" }
        arguments += nonexistent.map { "--address=/\($0)/" }
        arguments += options
        let server = try launch(arguments, in: namespace, label: "dnsmasq")
        try server.waitUntilReady(marker: "started, version")
        return server
    }

    /// A DNS server that reads every query and drops it: a resolver pointed at it waits
    /// for its whole timeout.
    func startSilentDNS(in namespace: Namespace, address: String) throws -> BackgroundProcess {
        let server = try launchHelper("silent-dns-server.py", [address], in: namespace, label: "silent-dns")
        try server.waitUntilReady(marker: "listening")
        return server
    }
}
