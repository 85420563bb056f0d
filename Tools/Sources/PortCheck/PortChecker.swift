import Foundation
import SwiftParser
import SwiftSyntax

/// Finds, in Swift sources, the Foundation APIs that compile on Linux but bypass
/// Keepsake: code ported from the books keeps calling them, and they fail or lose data
/// there without a word (Foundation's archiver cannot archive `KeyedCoding` types,
/// `UserDefaults` does not save, `FileManager`'s directories are the home folder's).
///
/// It reads the syntax tree, so the same names in comments and string literals are not
/// reported. Reported: `NSKeyedArchiver`, `NSKeyedUnarchiver`, `UserDefaults.standard`,
/// `UserDefaults(suiteName:)`, `NSUserDefaults`, `FileManager`'s `urls(for:in:)` and
/// `url(for:in:appropriateFor:create:)`, `write(to:options:)` and
/// `write(to:atomically:encoding:)`, `isExcludedFromBackup`, `NSFileCoordinator`,
/// `NSFileAccessIntent` and `Bundle.main`; a deprecated unarchiving call
/// (`unarchiveObject(withFile:)`) is reported with the secure call that replaces it.
///
/// ```swift
/// for finding in try PortChecker.check(paths: ["Sources"]) { print(finding) }
/// ```
public enum PortChecker {
    /// The findings in one file's `source`, in source order. `sampleClasses`, the
    /// archived class names a sample archive needs (`keepsake unarchive --classes`),
    /// goes into the secure replacement of each deprecated unarchiving call.
    public static func check(source: String, file: String, sampleClasses: [String]? = nil) -> [PortFinding] {
        let tree = Parser.parse(source: source)
        let finder = FoundationUseFinder(file: file, tree: tree, sampleClasses: sampleClasses)
        finder.walk(tree)
        return finder.findings
    }

    /// The findings in every `.swift` file of `paths` (files, or folders searched
    /// recursively, in name order).
    /// - Throws: `CocoaError` when a path cannot be read.
    public static func check(paths: [String], sampleClasses: [String]? = nil) throws -> [PortFinding] {
        try swiftFiles(in: paths).flatMap { path in
            check(source: try String(contentsOfFile: path, encoding: .utf8), file: path, sampleClasses: sampleClasses)
        }
    }

    static func swiftFiles(in paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let below = try FileManager.default.subpathsOfDirectory(atPath: path)
                .filter { $0.hasSuffix(".swift") }
                .sorted()
            files += below.map { (path as NSString).appendingPathComponent($0) }
        }
        return files
    }
}
