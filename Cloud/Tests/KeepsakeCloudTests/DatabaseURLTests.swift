import Testing

@testable import KeepsakeCloud

/// A database URL's password never reaches a log line or an error message.
@Suite struct DatabaseURLTests {
    @Test(
        "The password of a URL, parsed or not, is shown as ***; the rest is kept",
        arguments: [
            ("postgres://app:secret@db.example:5432/store", "postgres://app:***@db.example:5432/store"),
            ("postgres://app:p@ss:w0rd@db/x?sslmode=require", "postgres://app:***@db/x?sslmode=require"),
            ("postgres://app@db/x", "postgres://app@db/x"),
            ("postgres://db/x?password=q", "postgres://db/x?password=q"),
            ("not a url at all", "not a url at all"),
            ("postgres://u:hunter2@", "postgres://u:***@"),
        ])
    func passwordsAreRedacted(url: String, shown: String) {
        #expect(CloudDatabase.redacted(url) == shown)
    }

    @Test("A URL refused as malformed is reported without its password")
    func refusedURLHidesThePassword() {
        let error = #expect(throws: CloudDatabaseError.self) { try CloudDatabase(url: "mysql://app:hunter2@db/x") }
        #expect(error?.code == .invalidURL)
        #expect(error.map { !"\($0)".contains("hunter2") } == true, "\(String(describing: error))")
        #expect(error?.url == "mysql://app:***@db/x")
    }
}
