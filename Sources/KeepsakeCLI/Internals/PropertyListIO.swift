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

/// Writes a result, where `-` means standard output; files are replaced durably and
/// atomically, so an interrupted convert leaves the original intact. A FIFO, device or
/// socket is refused, never replaced (`-o /dev/null` as root would destroy the node).
enum PropertyListOutput {
    static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            try StandardStream.output.write(bytes)
        } else {
            try writeFile(bytes, to: path)
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
            throw ValidationError("\(path) is not a regular file; write to standard output with -o -")
        case .failure(let error):
            throw error
        }
    }
}
