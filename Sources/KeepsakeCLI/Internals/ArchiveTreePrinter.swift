import Foundation
import KeyedArchive
import PropertyList

/// Renders an unarchived object graph in the `plutil -p` style of
/// ``PropertyListValue/description``. Objects of unknown classes show their class and
/// fields; an object met again (shared, or a back reference in a cycle) is shown as a
/// reference to its first appearance, so every graph prints in finite space.
struct ArchiveTreePrinter {
    private var output = ""
    private var numbers: [ObjectIdentifier: Int] = [:]

    static func render(_ topLevel: [(key: String, value: Any?)]) -> String {
        var printer = ArchiveTreePrinter()
        for (key, value) in topLevel {
            printer.output += PropertyListValue.string(key).description + " => "
            printer.render(value, indent: 0)
            printer.output += "\n"
        }
        return printer.output
    }

    private mutating func render(_ value: Any?, indent: Int) {
        let padding = String(repeating: "  ", count: indent + 1)
        let closing = String(padding.dropLast(2))
        switch value {
        case nil:
            output += "nil"
        case let object as ArchivedObject:
            if let number = numbers[ObjectIdentifier(object)] {
                output += "<\(object.className) #\(number)> (see above)"
                return
            }
            let number = numbers.count + 1
            numbers[ObjectIdentifier(object)] = number
            output += "<\(object.className) #\(number)> {\n"
            for (key, field) in object.fields {
                output += padding + PropertyListValue.string(key).description + " => "
                render(field, indent: indent + 1)
                output += "\n"
            }
            output += closing + "}"
        case let element as ArchivedElement:
            render(element.value, indent: indent)
        case let array as [Any]:
            output += "[\n"
            for (position, element) in array.enumerated() {
                output += padding + "\(position) => "
                render(element, indent: indent + 1)
                output += "\n"
            }
            output += closing + "]"
        case let set as Set<AnyHashable>:
            output += "set [\n"
            for member in set.sorted(by: { Self.sortKey($0.base) < Self.sortKey($1.base) }) {
                output += padding
                render(member.base, indent: indent + 1)
                output += "\n"
            }
            output += closing + "]"
        case let dictionary as [String: Any]:
            renderEntries(dictionary.map { (AnyHashable($0.key), $0.value) }, indent: indent)
        case let dictionary as [AnyHashable: Any]:
            renderEntries(dictionary.map { ($0.key, $0.value) }, indent: indent)
        default:
            output += Self.scalar(value!)
        }
    }

    private mutating func renderEntries(_ entries: [(AnyHashable, Any)], indent: Int) {
        let padding = String(repeating: "  ", count: indent + 1)
        output += "{\n"
        for (key, element) in entries.sorted(by: { Self.sortKey($0.0.base) < Self.sortKey($1.0.base) }) {
            output += padding
            render(key.base, indent: indent + 1)
            output += " => "
            render(element, indent: indent + 1)
            output += "\n"
        }
        output += padding.dropLast(2) + "}"
    }

    /// Strings, numbers, dates and data as the property-list printer shows them.
    private static func scalar(_ value: Any) -> String {
        switch value {
        case let string as String: PropertyListValue.string(string).description
        case let bool as Bool: String(bool)
        case let integer as Int: String(integer)
        case let integer as Int64: String(integer)
        case let integer as UInt64: String(integer)
        case let real as Double: String(real)
        case let real as Float: String(real)
        case let date as Date: PropertyListValue.date(date).description
        case let data as Data: PropertyListValue.data(data).description
        case let uuid as UUID: "UUID(\(uuid.uuidString))"
        case let url as URL: "URL(\(url.absoluteString))"
        default: String(describing: value)
        }
    }

    /// Sets and dictionaries have no order of their own; sorting makes output stable.
    private static func sortKey(_ value: Any) -> String {
        value as? String ?? String(describing: value)
    }
}
