import Foundation
import PropertyList

/// How `plutil` spells values and types on the command line.
enum PlutilText {
    /// A value as `plutil -extract … raw` prints it: scalars as text (reals with six
    /// decimals, dates in RFC 3339 UTC, data in base 64), an array as its count, a
    /// dictionary as its keys, one per line, in ``keyOrder(_:_:)``.
    /// - Throws: `ValidationError` for a UID, which has no raw form.
    static func raw(_ value: PropertyListValue) throws -> String {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .unsignedInteger(let number): return String(number)
        case .real(let number): return String(format: "%f", number)
        case .float(let number): return String(format: "%f", Double(number))
        case .bool(let flag): return flag ? "true" : "false"
        case .date(let date): return date.formatted(.iso8601)
        case .data(let data): return data.base64EncodedString()
        case .array(let elements): return String(elements.count)
        case .dictionary(let dictionary): return keyList(dictionary.keys)
        case .uid(let uid):
            throw PropertyListError(.unsupportedValue, "UID \(uid.value) has no raw form; extract it as xml1")
        }
    }

    /// Dictionary keys as the raw format lists them.
    static func keyList(_ keys: [String]) -> String {
        Set(keys).sorted(by: keyOrder).joined(separator: "\n")
    }

    /// `plutil`'s names of the kinds of value, as `-type` prints them and `-expect` takes them.
    static func typeName(_ kind: PropertyListValue.Kind) -> String {
        switch kind {
        case .boolean: "bool"
        case .real: "float"
        case .uid: "uid"
        case .string, .integer, .date, .data, .array, .dictionary: kind.rawValue
        }
    }

    /// The order `plutil` gives keys: letters without regard to case, runs of digits by
    /// their numeric value (`item2` before `item10`), and the exact characters when
    /// two keys differ in nothing else.
    static func keyOrder(_ left: String, _ right: String) -> Bool {
        let leftFolded = Array(left.lowercased().unicodeScalars)
        let rightFolded = Array(right.lowercased().unicodeScalars)
        var (i, j) = (0, 0)
        while i < leftFolded.count, j < rightFolded.count {
            if isDigit(leftFolded[i]), isDigit(rightFolded[j]) {
                let leftRun = digitRun(leftFolded, from: &i)
                let rightRun = digitRun(rightFolded, from: &j)
                if leftRun != rightRun {
                    return leftRun.count != rightRun.count
                        ? leftRun.count < rightRun.count : leftRun.lexicographicallyPrecedes(rightRun)
                }
                continue
            }
            if leftFolded[i] != rightFolded[j] { return leftFolded[i].value < rightFolded[j].value }
            i += 1
            j += 1
        }
        if leftFolded.count - i != rightFolded.count - j { return leftFolded.count - i < rightFolded.count - j }
        return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars)
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x30 && scalar.value <= 0x39
    }

    /// The digits from `position` on, without leading zeros; moves `position` past them.
    private static func digitRun(_ scalars: [Unicode.Scalar], from position: inout Int) -> [UInt32] {
        var run: [UInt32] = []
        while position < scalars.count, isDigit(scalars[position]) {
            if !(run.isEmpty && scalars[position] == "0") { run.append(scalars[position].value) }
            position += 1
        }
        return run
    }
}
