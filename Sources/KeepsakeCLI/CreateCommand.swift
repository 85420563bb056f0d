import ArgumentParser
import PropertyList

/// `keepsake create FORMAT FILE` (Apple: `plutil -create`): a property list holding an
/// empty dictionary, written durably; `-` writes it to standard output.
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Write a property list holding an empty dictionary."
    )

    @Argument(help: "The format: xml1, binary1, json, openstep, swift or objc.")
    var format: ConvertCommand.Format

    @Argument(help: "The file to write, or - for standard output.")
    var file: String

    func run() throws {
        let empty = PropertyListValue.dictionary([:])
        let bytes: [UInt8]
        if let propertyListFormat = format.propertyListFormat {
            bytes = try PropertyListWriter(format: propertyListFormat).write(empty)
        } else {
            let source = LiteralSource(language: format == .swift ? .swift : .objectiveC, sourcePath: file)
            bytes = Array(try source.file(empty).utf8)
        }
        try PropertyListOutput.write(bytes, to: file)
    }
}
