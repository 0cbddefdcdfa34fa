/// Milliseconds as ping prints round trips: three decimals from microseconds, "0.401" from
/// 401 µs (iputils ping/ping_common.c prints them with "%ld.%03ld"). A negative value (a
/// clock stepped back between two readings) prints as 0.
public enum MillisecondText {
    public static func threeDecimals(microseconds: Int64) -> String {
        let micro = max(0, microseconds)
        let fraction = String(micro % 1000)
        return "\(micro / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
