import ArgumentParser

/// `keepsake cloud status|get|set|remove|sync|grant STORE …`: an app's ubiquitous key-value
/// store in PostgreSQL, shaped like `defaults`.
///
/// The database client is not a dependency of the library: this is the
/// `keepsake-cloud` executable of the repository's `Cloud` package (a
/// ``CompanionCommand``).
struct CloudCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloud",
        abstract: "Read and write an app's ubiquitous key-value store in PostgreSQL (runs keepsake-cloud).",
        discussion: "Run `keepsake cloud --help` with keepsake-cloud installed for its commands."
    )

    @Argument(parsing: .captureForPassthrough, help: "status|get|set|remove|sync|grant, then its arguments.")
    var arguments: [String] = []

    static let tool = CompanionCommand(name: "keepsake-cloud", package: "Cloud")

    func run() throws {
        try Self.tool.replaceProcess(command: "cloud", arguments: arguments)
    }
}
