import ArgumentParser
import PropertyList

/// `keepsake print FILE`: the value in a readable form (Apple: `plutil -p`).
struct PrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print a property list in a readable form, whatever its format."
    )

    @Argument(help: "The file to print, or - for standard input.")
    var file: String

    func run() throws {
        let value = try PropertyListInput.read(file)
        print(value.description)
    }
}
