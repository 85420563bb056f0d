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

    static func read(_ path: String) throws -> PropertyListValue {
        try readWithFormat(path).value
    }

    static func readWithFormat(_ path: String) throws -> (value: PropertyListValue, format: PropertyListFormat) {
        try PropertyListReader().readWithFormat(try bytes(path))
    }
}

/// Writes a result, where `-` and `/dev/stdout` mean standard output; files are replaced
/// durably and atomically, so an interrupted convert leaves the original intact. A FIFO
/// or device (`/dev/null`, `/dev/stderr`) is written into, as plutil does, never
/// replaced: replacing `/dev/null` as root would destroy the node.
enum PropertyListOutput {
    static func write(_ bytes: [UInt8], to path: String) throws {
        if isStandardOutput(path) {
            try StandardStream.output.write(bytes)
        } else {
            try writeFile(bytes, to: path)
        }
    }

    /// Whether `path` names standard output. `/dev/stdout` is a link to whatever
    /// standard output is, a regular file included, which a replace would cut loose.
    static func isStandardOutput(_ path: String) -> Bool {
        path == "-" || path == "/dev/stdout"
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

    /// Writes into a file that is not a regular one (a device, a FIFO) without
    /// truncating or replacing it; a directory or socket cannot be opened and says so.
    private static func writeInPlace(_ bytes: [UInt8], to path: String) throws {
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CommandFailure(
                "\(path) is not a regular file and cannot be written; write to standard output with -o -")
        }
        defer { try? handle.close() }
        try handle.write(contentsOf: bytes)
    }
}
