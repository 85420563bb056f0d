import ArgumentParser

/// `keepsake`: inspect and convert property lists (shaped like macOS `plutil`).
/// Usage errors exit with 64 (EX_USAGE), as ArgumentParser's validation failures do.
@main
struct Keepsake: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keepsake",
        abstract:
            "Read, check and convert property lists and keyed archives; manage user defaults; inspect and back up app containers.",
        subcommands: [
            PrintCommand.self, LintCommand.self, ConvertCommand.self, ExtractCommand.self, TypeCommand.self,
            InsertCommand.self, ReplaceCommand.self, RemoveCommand.self, CreateCommand.self,
            ArchiveCommand.self, UnarchiveCommand.self,
            DefaultsCommand.self, SandboxCommand.self, PortCheckCommand.self, CloudCommand.self,
        ]
    )
}
