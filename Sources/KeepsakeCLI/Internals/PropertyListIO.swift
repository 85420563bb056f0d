import AppSandbox
import Foundation
import PropertyList

/// Reads a file argument, where `-` means standard input.
enum PropertyListInput {
    static func bytes(_ path: String) throws -> [UInt8] {
        if path == "-" {
            return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func read(_ path: String) throws -> PropertyListValue {
        try readWithFormat(path).value
    }

    static func readWithFormat(_ path: String) throws -> (value: PropertyListValue, format: PropertyListFormat) {
        try PropertyListReader().readWithFormat(try bytes(path))
    }
}

/// Writes a result, where `-` means standard output; files are replaced durably and
/// atomically, so an interrupted convert leaves the original intact.
enum PropertyListOutput {
    static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            // Written from the array itself: a large rendering is not copied first.
            try FileHandle.standardOutput.write(contentsOf: bytes)
        } else {
            try FileSystem.default.write(Data(bytes), to: URL(fileURLWithPath: path))
        }
    }
}
