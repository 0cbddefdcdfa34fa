#if canImport(Glibc)
import Glibc
#endif

/// A file replaced so that a reader sees the old content or the new, never a part
/// (node_exporter's textfile collector reads `*.prom` files at any moment:
/// node_exporter `collector/textfile.go`).
public enum TextFile {
    /// Replaces `path` atomically: a temporary file in the same directory (rename(2) is
    /// atomic only within one file system), written, fsync'd, renamed over `path`, then the
    /// directory fsync'd so the rename itself survives a crash (rename(2), fsync(2)).
    /// An error names `path` first, the temporary file after it.
    public static func replace(_ path: String, with bytes: [UInt8], mode: UInt32 = 0o644) throws(SystemCallError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // A leading dot: the collector reads only `*.prom`, and a crash leaves no file it would read.
        let temporary = (directory == "/" ? "/" : directory + "/") + ".\(base).\(System.processIdentifier()).tmp"
        // The file is closed at the end of this block, before the rename, or when it throws.
        do {
            let file: FileDescriptor
            switch System.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode) {
            case .success(let opened): file = FileDescriptor(owning: opened)
            case .failure(let errno): throw SystemCallError("open \(path) (as \(temporary))", errno)
            }
            let fd = file.rawValue
            var written = 0
            while written < bytes.count {
                let result = bytes.withUnsafeBytes { System.write(fd, UnsafeRawBufferPointer(rebasing: $0[written...])) }
                switch result {
                case .success(let count): written += count
                case .failure(let errno):
                    System.unlink(temporary)
                    throw SystemCallError("write \(path) (as \(temporary))", errno)
                }
            }
            if case .failure(let errno) = System.fsync(fd) {
                System.unlink(temporary)
                throw SystemCallError("fsync \(path) (as \(temporary))", errno)
            }
        }
        if case .failure(let errno) = System.rename(temporary, path) {
            System.unlink(temporary)
            throw SystemCallError("rename \(temporary) to \(path)", errno)
        }
        if case .success(let opened) = System.open(directory, O_RDONLY | O_DIRECTORY) {
            // The rename is done and the file whole; a directory that cannot be synced (some
            // file systems refuse fsync(2) on one) only leaves the rename's durability to the kernel.
            let directoryFile = FileDescriptor(owning: opened)
            _ = System.fsync(directoryFile.rawValue)
        }
    }
}
