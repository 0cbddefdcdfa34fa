extension ReachabilityReport {
    /// The report with every path that leaves through another link than `interface`
    /// counted as not reachable (systemd-networkd-wait-online's `--interface`).
    public func restricted(toInterface interface: String) -> ReachabilityReport {
        var report = self
        report.paths = paths.map { path in
            guard path.isReachable, path.link?.name != interface else { return path }
            var restricted = path
            restricted.reason = .otherInterface
            restricted.flags.remove(.reachable)
            return restricted
        }
        return report
    }
}
