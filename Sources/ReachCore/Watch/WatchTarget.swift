import ReachSystem

/// What `watch` evaluates: what `status`, `addr` or `host` would.
public enum WatchTarget: Hashable, Sendable {
    /// The internet, per address family (`families` as in `status`).
    case internet(families: Set<AddressFamily>)
    case address(IPAddress)
    /// A name, re-resolved on its own schedule; `family` nil asks for both.
    case host(String, family: AddressFamily?)
}
