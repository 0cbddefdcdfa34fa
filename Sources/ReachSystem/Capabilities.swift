#if canImport(Glibc)
import Glibc
#endif
import CLibcap

/// libcap, as iputils ping_common.c uses it: keep only CAP_NET_RAW permitted, raise it
/// into the effective set only around socket(), then drop every capability. Never setuid.
///
/// As in iputils (limit_capabilities, drop_capabilities), a set that cannot be narrowed or
/// dropped stops the run: going on would keep privileges the caller believes are gone.
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
    public static func limitToNetRaw() throws(SystemCallError) {
        let keep = netRawPermitted
        try apply(named: "cap_set_proc") { state throws(SystemCallError) in
            guard keep else { return }
            var list = [cap_value_t(CAP_NET_RAW)]
            guard cap_set_flag(state, CAP_PERMITTED, 1, &list, CAP_SET) == 0 else {
                throw SystemCallError("cap_set_flag", Errno.current)
            }
        }
    }

    /// Runs `body` with CAP_NET_RAW effective, when permitted; lowers it again after.
    /// Neither change is checked here, as iputils' modify_capability only warns: a raise that
    /// fails makes socket() fail with EPERM, which its caller reports; a lowering that fails
    /// leaves effective what is permitted, and the dropAll() every command makes next is checked.
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
    public static func dropAll() throws(SystemCallError) {
        try apply(named: "cap_set_proc") { _ in }
    }

    /// Sets the thread's capabilities to a set that starts empty and `fill` completes.
    private static func apply(
        named call: String, _ fill: (cap_t) throws(SystemCallError) -> Void
    ) throws(SystemCallError) {
        guard let state = cap_init() else { throw SystemCallError("cap_init", Errno.current) }
        defer { cap_free(UnsafeMutableRawPointer(state)) }
        try fill(state)
        guard cap_set_proc(state) == 0 else { throw SystemCallError(call, Errno.current) }
    }
}
