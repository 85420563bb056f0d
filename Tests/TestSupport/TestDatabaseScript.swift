public import Foundation

/// `scripts/test-database.sh`, the throwaway PostgreSQL cluster's script, which
/// `scripts/test.sh` names in `KEEPSAKE_TEST_DATABASE_SCRIPT`.
public enum TestDatabaseScript {
    public static let path: String? = ProcessInfo.processInfo.environment["KEEPSAKE_TEST_DATABASE_SCRIPT"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Runs `statements` through `psql` as `role` (by default the cluster's owner, who
    /// owns every table), as anyone holding a URL of that role could. The output holds
    /// the rows, a line each, values separated by `|`; a refused statement ends the
    /// run with a status other than 0 and PostgreSQL's message on standard error.
    /// - Throws: when there is no script, or `psql` does not end within a minute.
    public static func sql(_ statements: String, as role: String? = nil) throws -> ChildProcess.Result {
        guard let path else {
            throw ChildProcess.LaunchFailure(
                path: "test-database.sh", reason: "KEEPSAKE_TEST_DATABASE_SCRIPT is not set")
        }
        return try ChildProcess.run(
            URL(fileURLWithPath: path), ["sql"] + (role.map { [$0] } ?? []), input: Data(statements.utf8),
            within: .seconds(60))
    }
}
