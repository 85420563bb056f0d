import ArgumentParser
import PropertyList

/// A kind of value `--expect` can demand, named as `plutil` names them.
enum ExpectedType: String, ExpressibleByArgument, CaseIterable {
    case bool, integer, float, string, date, data, dictionary, array

    /// Fails unless the value found is of this type.
    func check(_ kind: PropertyListValue.Kind, at keyPath: PropertyListKeyPath) throws {
        let found = PlutilText.typeName(kind)
        guard found == rawValue else {
            throw CommandFailure("Value at [\(keyPath)] expected to be \(rawValue) but is \(found)")
        }
    }
}

/// What `extract` and `type` print around the value: a type to insist on, and whether
/// text ends with a newline.
struct PrintedValueOptions: ParsableArguments {
    @Option(
        name: [.customLong("expect"), .customLong("expect", withSingleDash: true)],
        help: "Fail unless the value has this type.")
    var expect: ExpectedType?

    @Flag(name: .short, help: "No newline after text output.")
    var noNewline = false

    /// `text` as printed: with a newline unless `-n`.
    func line(_ text: String) -> [UInt8] {
        Array((noNewline ? text : text + "\n").utf8)
    }
}

/// `keepsake extract KEYPATH raw|json|xml1|binary1 FILE` (Apple: `plutil -extract`):
/// the value at a key path, alone, in a format. Reading a binary file reads only what
/// the key path leads to.
struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Print the value at a key path.",
        discussion: """
            A key path's components are separated by dots (\\. for a dot inside a key); \
            a number indexes an array. raw prints a string, number, boolean, date (RFC \
            3339) or data (base 64) as text, an array as its count and a dictionary as \
            its keys. Unlike plutil, the result goes to standard output unless -o names \
            a file (the input is never replaced by a part of itself), and json writes a \
            string, number or boolean as a JSON fragment where plutil refuses it. A binary \
            file is read only along the key path, so damage elsewhere in it goes unseen \
            here; keepsake lint checks a whole file.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case raw, json, xml1, binary1
    }

    @Argument(help: "The key path, as plutil takes it.")
    var keyPath: String

    @Argument(help: "The output format.")
    var format: Format

    @Argument(help: "The property list, or - for standard input.")
    var file: String

    @OptionGroup var printing: PrintedValueOptions

    @Option(name: [.short, .customLong("output")], help: "Where to write; - (the default) for standard output.")
    var output: String = "-"

    func run() throws {
        let path = PropertyListKeyPath(keyPath)
        let document = try OpenedPropertyList.open(file)
        if let expect = printing.expect {
            guard let kind = try document.kind(at: path) else { throw Self.notFound(path) }
            try expect.check(kind, at: path)
        }
        let bytes: [UInt8]
        if format == .raw {
            guard let text = try document.rawText(at: path) else { throw Self.notFound(path) }
            bytes = printing.line(text)
        } else {
            guard let value = try document.value(at: path) else { throw Self.notFound(path) }
            let writer: PropertyListWriter =
                switch format {
                case .json: PropertyListWriter(format: .json)
                case .xml1, .raw: .xml
                case .binary1: .binary
                }
            bytes = try writer.write(value)
        }
        try PropertyListOutput.write(bytes, to: output)
    }

    static func notFound(_ keyPath: PropertyListKeyPath) -> CommandFailure {
        CommandFailure("No value at that key path or invalid key path: \(keyPath)")
    }
}

/// `keepsake type KEYPATH FILE` (Apple: `plutil -type`): the type of the value at a key
/// path, as `--expect` names it.
struct TypeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "type",
        abstract:
            "Print the type of the value at a key path: bool, integer, float, string, date, data, dictionary or array."
    )

    @Argument(help: "The key path, as plutil takes it.")
    var keyPath: String

    @Argument(help: "The property list, or - for standard input.")
    var file: String

    @OptionGroup var printing: PrintedValueOptions

    func run() throws {
        let path = PropertyListKeyPath(keyPath)
        guard let kind = try OpenedPropertyList.open(file).kind(at: path) else { throw ExtractCommand.notFound(path) }
        try printing.expect?.check(kind, at: path)
        try PropertyListOutput.write(printing.line(PlutilText.typeName(kind)), to: "-")
    }
}
