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
    /// may be its key path even when it begins with `-`, as plutil takes it: real keys
    /// such as `-122` (an error-string table) would otherwise be read as options. A
    /// command line that parses as it is (options first, or `--` before the key path)
    /// is taken as it is.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command: any ParsableCommand
            do {
                command = try parseAsRoot(arguments)
            } catch {
                guard let (keyPath, rest) = KeyPathArgument.setAside(in: arguments),
                    var verb = (try? parseAsRoot(rest)) as? any KeyPathVerb
                else { throw error }
                verb.keyPath = keyPath
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

    /// The key path of `arguments` (`VERB KEYPATH …`) when it begins with `-`, and the
    /// arguments with the placeholder in its place; nil for other command lines and for
    /// a request for help.
    static func setAside(in arguments: [String]) -> (keyPath: String, rest: [String])? {
        let verbs: Set = [
            ExtractCommand.configuration.commandName, TypeCommand.configuration.commandName,
            InsertCommand.configuration.commandName, ReplaceCommand.configuration.commandName,
            RemoveCommand.configuration.commandName,
        ]
        guard arguments.count > 1, verbs.contains(arguments[0]), arguments[1].hasPrefix("-"),
            !["-h", "--help", "-help", "--"].contains(arguments[1])
        else { return nil }
        var rest = arguments
        rest[1] = placeholder
        return (arguments[1], rest)
    }
}
