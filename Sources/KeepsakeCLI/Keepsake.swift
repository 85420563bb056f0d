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

    /// ArgumentParser's `main()`, except that the argument right after a key-path verb
    /// is its key path even when it begins with `-`, as plutil takes it: real keys
    /// such as `-122` (an error-string table) would otherwise be read as options.
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let dashKeyPath = KeyPathArgument.setAside(in: &arguments)
        do {
            var command = try parseAsRoot(arguments)
            if let dashKeyPath, var verb = command as? any KeyPathVerb {
                verb.keyPath = dashKeyPath
                command = verb
            }
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}

/// A verb whose first argument is a key path: `extract`, `type`, `insert`, `replace`,
/// `remove`.
protocol KeyPathVerb: ParsableCommand {
    var keyPath: String { get set }
}

extension ExtractCommand: KeyPathVerb {}
extension TypeCommand: KeyPathVerb {}
extension InsertCommand: KeyPathVerb {}
extension ReplaceCommand: KeyPathVerb {}
extension RemoveCommand: KeyPathVerb {}

/// A key path that begins with `-`, kept from ArgumentParser, which would take it for
/// an option.
enum KeyPathArgument {
    /// What stands in the key path's place while the rest is parsed.
    static let placeholder = "key.path"

    /// Takes the key path out of `arguments` (`VERB KEYPATH …`) when it begins with `-`,
    /// putting the placeholder in its place; a request for help stays one.
    static func setAside(in arguments: inout [String]) -> String? {
        let verbs: Set = [
            ExtractCommand.configuration.commandName, TypeCommand.configuration.commandName,
            InsertCommand.configuration.commandName, ReplaceCommand.configuration.commandName,
            RemoveCommand.configuration.commandName,
        ]
        guard arguments.count > 1, verbs.contains(arguments[0]), arguments[1].hasPrefix("-"),
            !["-h", "--help", "-help"].contains(arguments[1])
        else { return nil }
        defer { arguments[1] = placeholder }
        return arguments[1]
    }
}
