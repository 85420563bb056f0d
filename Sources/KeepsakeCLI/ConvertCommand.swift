import ArgumentParser
import PropertyList

/// `keepsake convert FILE --format xml1|binary1|json|openstep [-o OUT]`
/// (Apple: `plutil -convert`). Without `-o` the file is replaced in place, atomically.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a property list to another format.",
        discussion: """
            JSON has no dates, data or UIDs: converting a plist that holds them fails \
            unless --json-dates, --json-data or --json-uids says how to render them.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case xml1, binary1, json, openstep

        var propertyListFormat: PropertyListFormat {
            switch self {
            case .xml1: .xml
            case .binary1: .binary
            case .json: .json
            case .openstep: .openStep
            }
        }
    }

    enum DateRendering: String, ExpressibleByArgument, CaseIterable {
        case reject, iso8601, seconds

        var jsonRendering: JSONWritingOptions.DateRendering {
            switch self {
            case .reject: .reject
            case .iso8601: .iso8601
            case .seconds: .secondsSince1970
            }
        }
    }

    enum DataRendering: String, ExpressibleByArgument, CaseIterable {
        case reject, base64
    }

    enum UIDRendering: String, ExpressibleByArgument, CaseIterable {
        case reject, dictionary
    }

    @Argument(help: "The file to convert, or - for standard input.")
    var file: String

    @Option(help: "The output format.")
    var format: Format

    @Option(
        name: [.short, .customLong("output")], help: "Where to write; - for standard output. Default: replace FILE.")
    var output: String?

    @Option(name: .customLong("json-dates"), help: "How JSON renders dates.")
    var jsonDates: DateRendering = .reject

    @Option(name: .customLong("json-data"), help: "How JSON renders data.")
    var jsonData: DataRendering = .reject

    @Option(name: .customLong("json-uids"), help: "How JSON renders keyed-archive UIDs.")
    var jsonUIDs: UIDRendering = .reject

    @Flag(name: .customLong("pretty"), help: "Indent JSON output.")
    var pretty = false

    func validate() throws {
        if file == "-" && output == nil {
            throw ValidationError("Reading standard input needs -o to say where the result goes.")
        }
    }

    func run() throws {
        let value = try PropertyListInput.read(file)
        let writer = PropertyListWriter(format: format.propertyListFormat, jsonOptions: jsonOptions)
        let bytes = try writer.write(value)
        try PropertyListOutput.write(bytes, to: output ?? file)
    }

    private var jsonOptions: JSONWritingOptions {
        JSONWritingOptions(
            data: jsonData == .base64 ? .base64 : .reject,
            date: jsonDates.jsonRendering,
            uid: jsonUIDs == .dictionary ? .dictionary : .reject,
            prettyPrinted: pretty
        )
    }
}
