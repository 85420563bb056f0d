import ArgumentParser
import PropertyList

/// `keepsake lint FILE...`: one line per file; exit 0 when all are valid, 1 otherwise
/// (Apple: `plutil -lint`).
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check that files are valid property lists."
    )

    @Argument(help: "The files to check; - for standard input.")
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one file.") }
    }

    func run() throws {
        var allValid = true
        for file in files {
            do {
                let (_, format) = try PropertyListInput.readWithFormat(file)
                print("\(file): OK (\(format.rawValue))")
            } catch {
                allValid = false
                print("\(file): \(error)")
            }
        }
        if !allValid { throw ExitCode.failure }
    }
}
