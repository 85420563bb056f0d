#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PropertyListValue: CustomStringConvertible {
    /// A readable, indented rendering in the style of `plutil -p`:
    /// `"name" => "Spork"`, arrays numbered, data as length and bytes, dates in UTC.
    ///
    /// Rendering recurses once per level of nesting, so a container inside as many
    /// others as the default ``PropertyListLimits/maxDepth`` (256) is shown as `…`
    /// rather than exhausting the stack.
    public var description: String {
        var output = ""
        render(into: &output, indent: 0)
        return output
    }

    /// Renders `self`, which sits inside `indent` containers.
    private func render(into output: inout String, indent: Int) {
        let padding = String(repeating: "  ", count: indent + 1)
        let tooDeep = indent >= PropertyListLimits.default.maxDepth
        switch self {
        case .string(let string):
            output += "\"" + string.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        case .integer(let integer): output += String(integer)
        case .unsignedInteger(let integer): output += String(integer)
        case .real(let real): output += String(real)
        case .float(let float): output += String(float)
        case .bool(let bool): output += bool ? "true" : "false"
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            var text: [UInt8] = []
            guard (try? ISO8601Date.format(seconds, into: &text)) != nil else {
                output += "date(\(seconds) seconds since 2001)"
                return
            }
            output += String(decoding: text.dropLast(), as: UTF8.self).replacing("T", with: " ") + " +0000"
        case .data(let data):
            let shown = data.count <= 32 ? Array(data) : Array(data.prefix(24))
            let hex = shown.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            output += "{length = \(data.count), bytes = 0x\(hex)\(data.count > 32 ? " ... " : "")}"
        case .uid(let uid):
            output += "<UID \(uid.value)>"
        case .array where tooDeep, .dictionary where tooDeep:
            output += "…"
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[\n\(padding.dropLast(2))]"
                return
            }
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += padding + "\(index) => "
                element.render(into: &output, indent: indent + 1)
                output += "\n"
            }
            output += padding.dropLast(2) + "]"
        case .dictionary(let dictionary):
            guard !dictionary.isEmpty else {
                output += "{\n\(padding.dropLast(2))}"
                return
            }
            output += "{\n"
            for (key, value) in dictionary {
                output += padding
                PropertyListValue.string(key).render(into: &output, indent: indent + 1)
                output += " => "
                value.render(into: &output, indent: indent + 1)
                output += "\n"
            }
            output += padding.dropLast(2) + "}"
        }
    }
}
