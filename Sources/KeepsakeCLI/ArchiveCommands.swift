import ArgumentParser
import Foundation
import KeyedArchive
import PropertyList

/// `keepsake unarchive FILE [--format text|json|xml1|binary1] [-o OUT]`: the object
/// graph of a keyed archive, objects of classes this tool does not know shown with
/// their class and fields (a nib, an `xcuserstate` file, a model archive from an app).
/// `--classes` prints what secure decoding must be allowed instead, and `--simulate
/// CLASSES` what it gives with those classes allowed.
struct UnarchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unarchive",
        abstract: "Print the objects of a keyed archive (NSKeyedArchiver format).",
        discussion: """
            Each key of $top is printed with its object graph. Every object, and every array, \
            set or dictionary reached more than once, is written once; where it is met again \
            (shared, or a back reference in a cycle) a reference to it is written instead.

            text: <Class #n> { field => value } for an object, numbered in order of appearance, \
            and <Class #n> (see above) when met again; a shared collection is written #n [, \
            #n set [ or #n { and met again as #n (see above). Past 32 levels, lines are indented \
            as at level 32 and begin with their depth in parentheses.

            json: $top as one object. An object is {"$id": UID, "$class": name, "$classes": \
            [class chain], field: value...}; a value met again is {"$ref": UID}. Arrays are \
            JSON arrays and dictionaries with string keys JSON objects; when shared they carry \
            an identity: {"$id": UID, "$array": [...]}, {"$id": UID, key: value...}. Other \
            dictionaries are {"$entries": [[key, value]...]}, sets {"$set": [...]}. A key that \
            begins with $ gets another $ in front. Data is {"$data": base64}, a date {"$date": \
            ISO 8601} (seconds since 2001 outside the years 0-9999), a UUID {"$uuid": text}, \
            a URL {"$url": text}, a real that is not finite {"$real": "nan"|"inf"|"-inf"}, \
            $null null.

            xml1, binary1: the JSON shape as a property list, with native data, dates and \
            reals, and $null as {"$null": true}. A graph nested deeper than property-list \
            readers accept (256 levels) is refused; write it as text or JSON.

            Every value reached, references included, counts towards the reader's limits, and \
            so does the size of the output: an archive that would pass them fails with \
            limitExceeded (exit status 1) instead of being written.

            --classes: what secure decoding (unarchivedObject(ofClasses:from:)) meets, instead \
            of the objects: each key path with the class reached there (array and set elements \
            as [], a dictionary's keys as .keys[]), inline strings, numbers and data marked as \
            such, then the one call that decodes the archive with the fewest classes listed. \
            The list assumes models that read their fields with decodeObject(forKey:), which \
            inherit the set; a model that asks for a type itself needs less.

            --simulate CLASSES: what that call gives with CLASSES (comma-separated archived \
            names: NSArray,Homepwner.Item) allowed, checked by name without the model types: \
            "decoded" and the class of the root, with Foundation's warnings, or the error \
            Foundation would report and its code (4864, 4865), with exit status 1.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, xml1, binary1

        var rendering: ArchiveRenderer.Format {
            switch self {
            case .text: .text
            case .json: .json
            case .xml1: .propertyList(.xml)
            case .binary1: .propertyList(.binary)
            }
        }
    }

    @Argument(help: "The archive to print, or - for standard input.")
    var file: String

    @Option(help: "The output format.")
    var format: Format = .text

    @Option(name: [.short, .customLong("output")], help: "Where to write; - for standard output.")
    var output = "-"

    @Flag(help: "Print the classes secure decoding must allow, and the call that decodes the archive.")
    var classes = false

    @Option(
        help: ArgumentHelp("Print what secure decoding gives with these classes allowed.", valueName: "classes"),
        transform: { $0.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) } })
    var simulate: [String]?

    func validate() throws {
        if classes, simulate != nil { throw ValidationError("--classes and --simulate cannot be used together") }
    }

    func run() throws {
        if classes {
            let archive = try PropertyListInput.bytes(file)
            return try PropertyListOutput.write(Array(SecureCodingReport.classes(archive).utf8), to: output)
        }
        if let simulate {
            let (text, decoded) = SecureCodingReport.simulation(try PropertyListInput.bytes(file), allowing: simulate)
            try PropertyListOutput.write(Array(text.utf8), to: output)
            guard decoded else { throw ExitCode.failure }
            return
        }
        // A binary file is read whole in one go, into the memory the decoder reads.
        let decoder =
            if let binary = try PropertyListInput.binaryFile(file) {
                try KeyedDecoder(binaryArchive: binary)
            } else {
                try KeyedDecoder(bytes: PropertyListInput.bytes(file))
            }
        guard !PropertyListOutput.isStandardOutput(output) else {
            // Standard output is written as the rendering proceeds, so a large one is
            // never held whole.
            try ArchiveRenderer.render(decoder, as: format.rendering) { try PropertyListOutput.write($0, to: "-") }
            return
        }
        var rendered: [UInt8] = []
        try ArchiveRenderer.render(decoder, as: format.rendering) { rendered.append(contentsOf: $0) }
        try PropertyListOutput.write(rendered, to: output)
    }
}

/// `keepsake archive FILE [-o OUT] [--format binary1|xml1]`: a property list stored as
/// a keyed archive of Foundation collections, as `NSKeyedArchiver` writes an
/// `NSDictionary` or `NSArray`.
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Write a property list as a keyed archive (NSKeyedArchiver format)."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case binary1, xml1
    }

    @Argument(help: "The property list to archive, or - for standard input.")
    var file: String

    @Option(help: "The archive's format.")
    var format: Format = .binary1

    @Option(name: [.short, .customLong("output")], help: "Where to write; - for standard output.")
    var output: String

    func run() throws {
        let value = try PropertyListInput.read(file)
        let data = try KeyedArchiver.archivedData(withRootObject: value, format: format == .xml1 ? .xml : .binary)
        try PropertyListOutput.write([UInt8](data), to: output)
    }
}
