#if canImport(Glibc)
import Glibc
#endif
import CLibcap

/// libcap, as iputils ping_common.c uses it: keep only CAP_NET_RAW permitted, raise it
/// into the effective set only around socket(), then drop every capability. Never setuid.
public enum Capabilities {
    /// Whether CAP_NET_RAW is in the permitted set (a `cap_net_raw+p` file capability,
    /// an ambient capability, or root).
    public static var netRawPermitted: Bool {
        guard let state = cap_get_proc() else { return false }
        defer { cap_free(UnsafeMutableRawPointer(state)) }
        var value = cap_flag_value_t(0)
        guard cap_get_flag(state, cap_value_t(CAP_NET_RAW), CAP_PERMITTED, &value) == 0 else { return false }
        return value == CAP_SET
    }

    /// Leaves CAP_NET_RAW alone in permitted (if it was there), nothing effective.
    public static func limitToNetRaw() {
        let keep = netRawPermitted
        guard let state = cap_init() else { return }
        defer { cap_free(UnsafeMutableRawPointer(state)) }
        if keep {
            var list = [cap_value_t(CAP_NET_RAW)]
            _ = cap_set_flag(state, CAP_PERMITTED, 1, &list, CAP_SET)
        }
        _ = cap_set_proc(state)
    }

    /// Runs `body` with CAP_NET_RAW effective, when permitted; lowers it again after.
    static func withNetRaw<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let raised = setNetRawEffective(true)
        defer { if raised { _ = setNetRawEffective(false) } }
        return try body()
    }

    private static func setNetRawEffective(_ on: Bool) -> Bool {
        guard let state = cap_get_proc() else { return false }
        defer { cap_free(UnsafeMutableRawPointer(state)) }
        var list = [cap_value_t(CAP_NET_RAW)]
        guard cap_set_flag(state, CAP_EFFECTIVE, 1, &list, on ? CAP_SET : CAP_CLEAR) == 0 else { return false }
        return cap_set_proc(state) == 0
    }

    /// Drops every capability (cap_init gives an empty set).
    public static func dropAll() {
        guard let state = cap_init() else { return }
        defer { cap_free(UnsafeMutableRawPointer(state)) }
        _ = cap_set_proc(state)
    }
}
