import ArgumentParser
import Foundation
import PropertyList

/// `keepsake convert FILE --format xml1|binary1|json|openstep|swift|objc [-o OUT]`
/// (Apple: `plutil -convert`). Without `-o` a property list replaces the file in place,
/// atomically; source code goes beside it, in `NAME.swift` or `NAME.m`.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a property list to another format.",
        discussion: """
            JSON has no dates, data or UIDs: converting a plist that holds them fails \
            unless --json-dates, --json-data or --json-uids says how to render them. \
            swift and objc write the value as a constant named after the file; --header \
            also writes the Objective-C header.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case xml1, binary1, json, openstep, swift, objc

        /// The property-list format, or `nil` for the source-code languages.
        var propertyListFormat: PropertyListFormat? {
            switch self {
            case .xml1: .xml
            case .binary1: .binary
            case .json: .json
            case .openstep: .openStep
            case .swift, .objc: nil
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

    @Flag(name: .customLong("header"), help: "With objc, also write the header declaring the constant.")
    var header = false

    func validate() throws {
        if file == "-" && output == nil {
            throw ValidationError("Reading standard input needs -o to say where the result goes.")
        }
        if header && format != .objc { throw ValidationError("--header goes with --format objc.") }
        if header, let output, PropertyListOutput.isStandardOutput(output) {
            throw ValidationError("--header writes a file beside the output; name it with -o.")
        }
    }

    func run() throws {
        let value = try PropertyListInput.read(file)
        guard let propertyListFormat = format.propertyListFormat else {
            try writeSource(value)
            return
        }
        let writer = PropertyListWriter(format: propertyListFormat, jsonOptions: jsonOptions)
        try PropertyListOutput.write(try writer.write(value), to: output ?? file)
    }

    /// Source code never replaces its input: without `-o` it goes beside it.
    private func writeSource(_ value: PropertyListValue) throws {
        let language: LiteralSource.Language = format == .swift ? .swift : .objectiveC
        let source = LiteralSource(language: language, sourcePath: file)
        let destination = output ?? Self.replacingExtension(of: file, with: format == .swift ? "swift" : "m")
        guard output != nil || destination != URL(fileURLWithPath: file).path else {
            throw ValidationError("\(file) would be replaced by its own source code; name the output with -o.")
        }
        let stem =
            PropertyListOutput.isStandardOutput(destination)
            ? nil : URL(fileURLWithPath: destination).deletingPathExtension().lastPathComponent
        try PropertyListOutput.write(
            Array(try source.file(value, headerName: header ? stem : nil).utf8), to: destination)
        if header, !PropertyListOutput.isStandardOutput(destination) {
            let headerPath = Self.replacingExtension(of: destination, with: "h")
            try PropertyListOutput.write(Array(try source.objectiveCHeader(value).utf8), to: headerPath)
        }
    }

    private static func replacingExtension(of path: String, with newExtension: String) -> String {
        URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension(newExtension).path
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
