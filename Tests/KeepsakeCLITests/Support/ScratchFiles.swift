import Foundation
import PropertyList
import TestSupport

/// A suite whose tests write the files they hand the command into a folder of their
/// own (Swift Testing makes a suite instance per test).
protocol ScratchFiles {
    var scratch: TemporaryDirectory { get }
}

extension ScratchFiles {
    var directory: URL { scratch.url }

    /// `bytes` written to `name` in the folder; its path.
    func file(_ bytes: [UInt8], _ name: String = "in.archive") throws -> String {
        let url = scratch.file(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// `value` written to `name` in the folder as a `format` property list; its path.
    func file(_ name: String, _ value: PropertyListValue, format: PropertyListFormat = .binary) throws -> String {
        try file(try PropertyListWriter(format: format).write(value), name)
    }
}
