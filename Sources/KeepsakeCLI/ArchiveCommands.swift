import ArgumentParser
import Foundation
import KeyedArchive
import PropertyList

/// `keepsake unarchive FILE`: the object graph of a keyed archive, objects of classes
/// this tool does not know shown with their class and fields (a nib, an `xcuserstate`
/// file, a model archive from an app).
struct UnarchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unarchive",
        abstract: "Print the objects of a keyed archive (NSKeyedArchiver format).",
        discussion: "Each key of $top is printed with its object graph; an object met again is shown as a reference."
    )

    @Argument(help: "The archive to print, or - for standard input.")
    var file: String

    func run() throws {
        let data = Data(try PropertyListInput.bytes(file))
        print(ArchiveTreePrinter.render(try KeyedUnarchiver.unarchivedTopLevelObjects(from: data)), terminator: "")
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
