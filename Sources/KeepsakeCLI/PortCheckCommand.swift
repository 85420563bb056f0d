import ArgumentParser

/// `keepsake port-check PATH…`: reports the Foundation calls in Swift sources that
/// compile on Linux but bypass Keepsake, as `file:line:column: warning: …`; exit 1 when
/// there is any.
///
/// The checker reads syntax trees with swift-syntax, which the library does not depend
/// on: it is the `keepsake-port-check` executable of the repository's `Tools` package
/// (a ``CompanionCommand``).
struct PortCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port-check",
        abstract: "Report Foundation calls that compile on Linux but bypass Keepsake (runs keepsake-port-check)."
    )

    @Argument(help: "Swift files, or folders searched for them.")
    var paths: [String]

    static let tool = CompanionCommand(name: "keepsake-port-check", package: "Tools")

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("Name at least one file or folder.") }
    }

    func run() throws {
        try Self.tool.replaceProcess(command: "port-check", arguments: paths)
    }
}
