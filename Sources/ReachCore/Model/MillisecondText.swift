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

/// printf's "%.Nf" for a non-negative value (a negative one prints as 0): fping's round trips,
/// and the exporter's graph coordinates.
public enum DecimalText {
    public static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((max(0, value) * scale).rounded(.toNearestOrEven))
        guard decimals > 0 else { return String(scaled) }
        let divisor = Int64(scale)
        let fraction = String(scaled % divisor)
        return "\(scaled / divisor)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}
