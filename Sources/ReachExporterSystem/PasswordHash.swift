#if canImport(Glibc)
import Glibc
#endif
import CCrypt

/// Passwords checked against crypt(5) hashes (`$2b$`, `$2y$`: bcrypt) with libxcrypt's
/// crypt_r(3), the way Prometheus's exporter-toolkit checks `basic_auth_users`.
public enum PasswordHash {
    /// Whether `password` hashes to `hash` with the method, cost and salt `hash` names. The
    /// hashes are compared in constant time: how long the answer takes says nothing of how
    /// much of it matched.
    public static func verify(_ password: String, against hash: String) -> Bool {
        // A NUL would end the password early in C: such a password matches nothing.
        guard !password.utf8.contains(0), !hash.utf8.contains(0) else { return false }
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { data.deallocate() }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        guard let result = crypt_r(password, hash, data) else { return false }
        let computed = Array(String(cString: result).utf8)
        let expected = Array(hash.utf8)
        // libxcrypt answers a setting it cannot use with "*0" or "*1", never a hash.
        guard computed.first != UInt8(ascii: "*"), computed.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= computed[index] ^ expected[index] }
        return difference == 0
    }
}
