/// Where the system bus listens: `DBUS_SYSTEM_BUS_ADDRESS` when set, else the default
/// `unix:path=/run/dbus/system_bus_socket` (the D-Bus Specification, "Server Addresses" and
/// "Well-known Message Bus Instances").
struct DBusAddress: Hashable, Sendable {
    var path: String
    /// A name in the abstract socket namespace (`unix:abstract=`), not a file.
    var isAbstract: Bool

    static let defaultSystemBus = DBusAddress(path: "/run/dbus/system_bus_socket", isAbstract: false)

    /// The system bus for an environment value (nil: unset). A value with no unix path or
    /// abstract name reach can use (tcp:, launchd:, a malformed escape) gives nil: no bus.
    static func systemBus(environment value: String?) -> DBusAddress? {
        guard let value else { return defaultSystemBus }
        // Addresses are tried in order, separated by ';'.
        for address in value.split(separator: ";") {
            guard let colon = address.firstIndex(of: ":"), address[..<colon] == "unix" else { continue }
            for pair in address[address.index(after: colon)...].split(separator: ",") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let key = pair[..<equals]
                guard key == "path" || key == "abstract", let path = unescape(pair[pair.index(after: equals)...]), !path.isEmpty
                else { continue }
                return DBusAddress(path: path, isAbstract: key == "abstract")
            }
        }
        return nil
    }

    /// Undoes the address format's %XX escapes; nil for a bad escape.
    static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let high = hexDigit(utf8.popFirst()!), let low = hexDigit(utf8.popFirst()!) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
