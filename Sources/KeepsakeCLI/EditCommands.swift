import ArgumentParser
import Foundation
import PropertyList

/// `keepsake insert KEYPATH -TYPE VALUE [-append] FILE` (Apple: `plutil -insert`).
struct InsertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Insert a value at a key path.",
        discussion: """
            The last component names a new key, or the array index to insert before (the \
            count appends). With -append, the value goes at the end of the array the key \
            path names. \(EditValue.typesHelp)
            """
    )

    @Argument(help: "The key path, as plutil takes it.")
    var keyPath: String

    @OptionGroup var value: EditValue

    @Flag(name: .customLong("append", withSingleDash: true), help: "Append to the array at the key path.")
    var append = false

    @OptionGroup var destination: EditDestination

    func run() throws {
        let newValue = try value.parsed()
        try destination.edit { (tree) throws(PropertyListError) in
            try tree.insert(newValue, at: PropertyListKeyPath(keyPath), appending: append)
        }
    }
}

/// `keepsake replace KEYPATH -TYPE VALUE FILE` (Apple: `plutil -replace`).
struct ReplaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replace",
        abstract: "Set the value at a key path, over any value there.",
        discussion: "An array element at the index is replaced; the count appends. \(EditValue.typesHelp)"
    )

    @Argument(help: "The key path, as plutil takes it.")
    var keyPath: String

    @OptionGroup var value: EditValue

    @OptionGroup var destination: EditDestination

    func run() throws {
        let newValue = try value.parsed()
        try destination.edit { (tree) throws(PropertyListError) in
            try tree.replace(newValue, at: PropertyListKeyPath(keyPath))
        }
    }
}

/// `keepsake remove KEYPATH FILE` (Apple: `plutil -remove`).
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove the value at a key path."
    )

    @Argument(help: "The key path, as plutil takes it.")
    var keyPath: String

    @OptionGroup var destination: EditDestination

    func run() throws {
        try destination.edit { (tree) throws(PropertyListError) in try tree.remove(at: PropertyListKeyPath(keyPath)) }
    }
}

/// The value an edit puts in, given as `plutil` takes it: one type option and its text.
struct EditValue: ParsableArguments {
    static let typesHelp = """
        The value is one of -bool YES|NO|true|false, -integer N, -float X, -string TEXT, \
        -date 2024-01-31T12:00:00Z, -data BASE64, -xml PLIST, -json JSON, -dictionary \
        (empty) or -array (empty).
        """

    @Option(name: .customLong("bool", withSingleDash: true), parsing: .unconditional, help: .hidden)
    var bool: String?
    @Option(name: .customLong("integer", withSingleDash: true), parsing: .unconditional, help: .hidden)
    var integer: String?
    @Option(name: .customLong("float", withSingleDash: true), parsing: .unconditional, help: .hidden)
    var float: String?
    @Option(name: .customLong("string", withSingleDash: true), parsing: .unconditional, help: .hidden)
    var string: String?
    @Option(name: .customLong("date", withSingleDash: true), parsing: .unconditional, help: .hidden)
    var date: String?
    @Option(name: .customLong("data", withSingleDash: true), parsing: .unconditional, help: .hidden)
    var data: String?
    @Option(name: .customLong("xml", withSingleDash: true), parsing: .unconditional, help: .hidden)
    var xml: String?
    @Option(name: .customLong("json", withSingleDash: true), parsing: .unconditional, help: .hidden)
    var json: String?
    @Flag(name: .customLong("dictionary", withSingleDash: true), help: .hidden)
    var dictionary = false
    @Flag(name: .customLong("array", withSingleDash: true), help: .hidden)
    var array = false

    func validate() throws {
        let given =
            [bool, integer, float, string, date, data, xml, json].compactMap { $0 }.count
            + (dictionary ? 1 : 0) + (array ? 1 : 0)
        guard given == 1 else { throw ValidationError("Give exactly one value: \(Self.typesHelp)") }
    }

    /// The value, read strictly: text that is not a valid value of its type is refused,
    /// where `plutil` would store 0 or NO.
    func parsed() throws -> PropertyListValue {
        if let bool {
            switch bool.lowercased() {
            case "yes", "true": return .bool(true)
            case "no", "false": return .bool(false)
            default: throw ValidationError("-bool takes YES, NO, true or false, not \(bool)")
            }
        }
        if let integer {
            if let signed = Int64(integer) { return .integer(signed) }
            if let unsigned = UInt64(integer) { return .unsignedInteger(unsigned) }
            throw ValidationError("-integer takes a 64-bit integer, not \(integer)")
        }
        if let float {
            guard let number = Double(float) else { throw ValidationError("-float takes a number, not \(float)") }
            return .real(number)
        }
        if let string { return .string(string) }
        if let date {
            // Dates are read as an XML plist's <date> is, so both take the same text.
            let document = "<plist><date>\(date)</date></plist>"
            guard case .date(let parsed)? = try? PropertyListReader().read(Array(document.utf8), as: .xml) else {
                throw ValidationError(
                    "-date takes a date as XML property lists write it (2024-01-31T12:00:00Z), not \(date)")
            }
            return .date(parsed)
        }
        if let data {
            guard let bytes = Data(base64Encoded: data, options: .ignoreUnknownCharacters) else {
                throw ValidationError("-data takes base 64")
            }
            return .data(bytes)
        }
        if let xml { return try PropertyListReader().read(Array(xml.utf8)) }
        if let json { return try PropertyListReader().read(Array(json.utf8), as: .json) }
        return dictionary ? .dictionary([:]) : .array([])
    }
}

/// The file an edit reads and where the result goes: back into the file, durably and
/// atomically and in its own format, unless `-o` or `--format` say otherwise.
struct EditDestination: ParsableArguments {
    @Argument(help: "The property list to edit, or - for standard input.")
    var file: String

    @Option(
        name: [.short, .customLong("output")], help: "Where to write; - for standard output. Default: replace FILE.")
    var output: String?

    @Option(help: "The output format. Default: the input's.")
    var format: ConvertCommand.Format?

    func validate() throws {
        if let format, format.propertyListFormat == nil {
            throw ValidationError("An edit writes a property list: xml1, binary1, json or openstep.")
        }
    }

    func edit(_ change: (inout PropertyListValue) throws(PropertyListError) -> Void) throws {
        var (tree, inputFormat) = try PropertyListInput.readWithFormat(file)
        try change(&tree)
        let writer = PropertyListWriter(format: format?.propertyListFormat ?? inputFormat)
        try PropertyListOutput.write(try writer.write(tree), to: output ?? file)
    }
}
