import PropertyList

/// The argument domain: `-key value` pairs of a command line.
enum ArgumentDomain {
    /// Pairs after the program name; a value is read as a plist literal (OpenStep or
    /// XML: `'(a, b)'`, `'{ k = v; }'`, `'<true/>'`) and kept as a string when it is
    /// not one, as Apple's argument domain does. Arguments that are not `-key` (or are
    /// `--options`) are skipped.
    static func parse(_ arguments: [String]) -> PropertyListDictionary {
        var values = PropertyListDictionary()
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.count > 1, argument.hasPrefix("-"), !argument.hasPrefix("--"), index + 1 < arguments.count
            else {
                index += 1
                continue
            }
            values[String(argument.dropFirst())] = literal(arguments[index + 1])
            index += 2
        }
        return values
    }

    static func literal(_ text: String) -> PropertyListValue {
        let trimmed = text.drop { $0 == " " }
        if let first = trimmed.first, first == "(" || first == "{" || first == "<" || first == "\"" {
            if let value = try? PropertyListReader().read(Array(text.utf8)) { return value }
        }
        return .string(text)
    }
}
