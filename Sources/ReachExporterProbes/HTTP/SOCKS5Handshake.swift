import ReachCore
import ReachSystem

/// A SOCKS5 proxy asked to connect (RFC 1928), with RFC 1929's username and password when
/// the proxy URL has them, as Go's SOCKS dialler does (golang.org/x/net/internal/socks):
/// an address is sent as one (ATYP 1 or 4), a name as a name (ATYP 3), for the proxy to
/// resolve.
enum SOCKS5Handshake {
    /// nil when the proxy connected, else why not.
    static func connect(
        to host: String, port: UInt16, username: String?, password: String, over stream: any ByteStream, deadline: MonotonicInstant
    ) throws -> String? {
        // Section 3: the methods offered, "no authentication" (0), and 2 with credentials.
        let methods: [UInt8] = username == nil ? [0] : [0, 2]
        guard try stream.sendAll([5, UInt8(methods.count)] + methods, deadline: deadline) else {
            return "timed out greeting the SOCKS5 proxy"
        }
        let choice = try read(2, from: stream, deadline: deadline)
        guard let choice else { return "the SOCKS5 proxy did not answer the greeting" }
        guard choice[0] == 5 else { return "the proxy does not speak SOCKS5 (version \(choice[0]))" }
        switch choice[1] {
        case 0: break
        case 2 where username != nil:
            if let refusal = try authenticate(username ?? "", password, over: stream, deadline: deadline) { return refusal }
        default: return "the SOCKS5 proxy accepted none of the authentication methods offered"
        }
        guard try stream.sendAll([5, 1, 0] + destination(host, port), deadline: deadline) else { return "timed out sending CONNECT" }
        // Section 6: VER REP RSV ATYP, then the bound address by its type, and the port.
        guard let reply = try read(5, from: stream, deadline: deadline), reply[0] == 5 else {
            return "the SOCKS5 proxy did not answer CONNECT"
        }
        guard reply[1] == 0 else { return "the SOCKS5 proxy answered CONNECT: \(replyText(reply[1]))" }
        let remaining: Int
        switch reply[3] {
        case 1: remaining = 4 - 1 + 2
        case 4: remaining = 16 - 1 + 2
        case 3: remaining = Int(reply[4]) + 2
        default: return "the SOCKS5 proxy answered with an unknown address type \(reply[3])"
        }
        guard try read(remaining, from: stream, deadline: deadline) != nil else {
            return "the SOCKS5 proxy's answer to CONNECT was cut short"
        }
        return nil
    }

    /// RFC 1929, 2: version 1, the name and password each with its length; status 0 is success.
    private static func authenticate(
        _ username: String, _ password: String, over stream: any ByteStream, deadline: MonotonicInstant
    ) throws -> String? {
        let (name, secret) = (Array(username.utf8), Array(password.utf8))
        guard name.count <= 255, secret.count <= 255 else { return "SOCKS5 user names and passwords are at most 255 bytes" }
        let request = [1, UInt8(name.count)] + name + [UInt8(secret.count)] + secret
        guard try stream.sendAll(request, deadline: deadline) else { return "timed out authenticating to the SOCKS5 proxy" }
        guard let status = try read(2, from: stream, deadline: deadline), status[1] == 0 else {
            return "the SOCKS5 proxy refused the user name and password"
        }
        return nil
    }

    /// ATYP and DST.ADDR, then DST.PORT in network order.
    private static func destination(_ host: String, _ port: UInt16) -> [UInt8] {
        let address: [UInt8]
        if let literal = try? IPAddress.parse(host) {
            address = [literal.family == .ipv4 ? 1 : 4] + literal.bytes
        } else {
            address = [3, UInt8(min(host.utf8.count, 255))] + host.utf8.prefix(255)
        }
        return address + [UInt8(port >> 8), UInt8(port & 0xFF)]
    }

    /// Section 6's replies, in Go's words (golang.org/x/net/internal/socks, Reply.String).
    private static func replyText(_ code: UInt8) -> String {
        let texts = [
            "succeeded", "general SOCKS server failure", "connection not allowed by ruleset", "network unreachable", "host unreachable",
            "connection refused", "TTL expired", "command not supported", "address type not supported",
        ]
        return Int(code) < texts.count ? texts[Int(code)] : "unknown code \(code)"
    }

    /// Exactly `count` bytes, or nil when the stream ended or the deadline passed first.
    private static func read(_ count: Int, from stream: any ByteStream, deadline: MonotonicInstant) throws -> [UInt8]? {
        var bytes: [UInt8] = []
        while bytes.count < count {
            guard case .data(let more) = try stream.receive(maximum: count - bytes.count, deadline: deadline) else { return nil }
            bytes += more
        }
        return bytes
    }
}
