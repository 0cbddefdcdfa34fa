#if canImport(Glibc)
import Glibc
#endif

/// A whole file read into memory: `--targets-from FILE`, or standard input for `-`.
public enum FileContents {
    /// The bytes of `path` (`-`: standard input), at most `limit` of them; the errno of the
    /// open(2) or read(2) that failed, or `.fileTooLarge` past `limit`.
    public static func read(_ path: String, limit: Int) -> Result<[UInt8], Errno> {
        if path == "-" { return readAll(FileDescriptor.Number.standardInput.rawValue, limit: limit) }
        switch System.open(path, O_RDONLY) {
        case .success(let opened):
            let file = FileDescriptor(owning: opened)
            return readAll(file.rawValue, limit: limit)
        case .failure(let errno): return .failure(errno)
        }
    }

    private static func readAll(_ fd: Int32, limit: Int) -> Result<[UInt8], Errno> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let result = chunk.withUnsafeMutableBytes { System.read(fd, into: $0) }
            switch result {
            case .failure(let errno): return .failure(errno)
            case .success(0): return .success(bytes)
            case .success(let count):
                guard bytes.count + count <= limit else { return .failure(.fileTooLarge) }
                bytes += chunk[0..<count]
            }
        }
    }

    /// The names of the entries of the directory `path` but `.` and `..`; the errno of the
    /// opendir(3) or readdir(3) that failed.
    public static func directoryEntries(_ path: String) -> Result<[String], Errno> {
        System.directoryEntries(path)
    }
}
