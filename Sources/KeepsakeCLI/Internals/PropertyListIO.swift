import AppSandbox
import ArgumentParser
import Foundation
import PropertyList

/// Reads a file argument, where `-` means standard input. Read as a stream, so pipes
/// (`<(…)`, `/dev/stdin`, a FIFO) work as files do; a read error is thrown.
enum PropertyListInput {
    static func bytes(_ path: String) throws -> [UInt8] {
        let handle = path == "-" ? FileHandle.standardInput : try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        return [UInt8](try handle.readToEnd() ?? Data())
    }

    /// The file at `path`, open, when it is a file that can be read at any offset and
    /// begins as a binary property list does; `nil` for standard input, anything else
    /// that cannot be opened so (a pipe from `<(…)`, /dev/stdin, a FIFO, a missing file:
    /// ``bytes(_:)`` reads it as a stream, or reports it), and the other formats.
    static func binaryFile(_ path: String) throws -> RandomAccessFile? {
        guard path != "-", let file = try? FileSystem.default.openForReading(URL(fileURLWithPath: path)) else {
            return nil
        }
        let magic = Array("bplist".utf8)
        guard file.count >= magic.count else { return nil }
        var start = [UInt8](repeating: 0, count: magic.count)
        try start.withUnsafeMutableBytes { try file.read(into: $0, at: 0) }
        return start == magic ? file : nil
    }

    static func read(_ path: String) throws -> PropertyListValue {
        try readWithFormat(path).value
    }

    /// The value and its format; what the read let pass as Foundation does (text after
    /// a `.strings` file's last pair) is reported on standard error, naming its line.
    static func readWithFormat(_ path: String) throws -> (value: PropertyListValue, format: PropertyListFormat) {
        let (value, format, warnings) = try PropertyListReader().readWithWarnings(try bytes(path))
        for warning in warnings {
            StandardStream.error.report("keepsake: warning: \(path == "-" ? "<stdin>" : path): \(warning)")
        }
        return (value, format)
    }
}

/// Writes a result, where `-` means standard output; files are replaced durably and
/// atomically, so an interrupted convert leaves the original intact. A path to standard
/// output or error (`/dev/stdout`, `/dev/fd/2`, `/proc/self/fd/1`) is that stream, even
/// when it is a regular file: replacing the file would cut the stream loose. A FIFO or
/// character device (`/dev/null`) is written into, as plutil does, never replaced
/// (replacing `/dev/null` as root would destroy the node); anything else that is not a
/// regular file, a block device included, is refused.
enum PropertyListOutput {
    static func write(_ bytes: [UInt8], to path: String) throws {
        if let stream = standardStream(path) {
            try stream.write(bytes)
        } else {
            try writeFile(bytes, to: path)
        }
    }

    /// Whether `path` is standard output: `-`, or a path to the same file.
    static func isStandardOutput(_ path: String) -> Bool {
        standardStream(path) == .output
    }

    /// The standard stream `path` names: `-` for output, else the stream whose file
    /// (device and inode, links followed) `path` is.
    private static func standardStream(_ path: String) -> StandardStream? {
        if path == "-" { return .output }
        var target = stat()
        guard stat(path, &target) == 0 else { return nil }
        return [StandardStream.output, .error].first { stream in
            var info = stat()
            return fstat(stream.rawValue, &info) == 0 && info.st_dev == target.st_dev && info.st_ino == target.st_ino
        }
    }

    private static func writeFile(_ bytes: [UInt8], to path: String) throws {
        let result = Result { () throws(SandboxError) in
            try FileSystem.default.write(Data(bytes), to: URL(fileURLWithPath: path))
        }
        switch result {
        case .success:
            return
        case .failure(let error) where error.code == .notRegularFile:
            try writeInPlace(bytes, to: path)
        case .failure(let error):
            throw error
        }
    }

    /// Writes into a FIFO or character device without truncating or replacing it. What
    /// is opened is checked, not the path, so a file swapped in meanwhile is refused.
    private static func writeInPlace(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CommandFailure("\(path) cannot be written: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, [S_IFIFO, S_IFCHR].contains(info.st_mode & S_IFMT) else {
            throw CommandFailure(
                "\(path) is neither a regular file, a FIFO nor a character device; write to standard output with -o -")
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandFailure("writing \(path): \(String(cString: strerror(errno)))")
            }
            written += count
        }
    }
}

/// The C library's `write(2)`, named apart from `PropertyListOutput.write`.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
