import Foundation

/// The sanitizer the tests were built with, as the CI stage that builds them says in
/// `KEEPSAKE_SANITIZER` (`address`, `thread`); nil for a plain build. Tests that measure
/// time or memory bounds skip under one, whose instrumentation costs several times both.
public enum Sanitizer {
    public static let active: String? = ProcessInfo.processInfo.environment["KEEPSAKE_SANITIZER"].flatMap {
        $0.isEmpty ? nil : $0
    }
}
