extension PropertyListValue {
    /// Bytes of string or data payload, for the byte budget.
    var payloadByteCount: Int {
        switch self {
        case .string(let string): string.utf8.count
        case .data(let data): data.count
        default: 0
        }
    }

    /// A short account of a value for error messages.
    var archiveDescription: String {
        switch self {
        case .string(let string): "the string \"\(string.count > 40 ? String(string.prefix(40)) + "…" : string)\""
        case .integer(let integer): "the integer \(integer)"
        case .unsignedInteger(let integer): "the integer \(integer)"
        case .real(let real): "the real \(real)"
        case .float(let float): "the real \(float)"
        case .bool(let bool): "the boolean \(bool)"
        case .date(let date): "the date \(date)"
        case .data(let data): "\(data.count) bytes of data"
        case .array(let elements): "an inline array of \(elements.count)"
        case .dictionary(let dictionary): "an inline dictionary of \(dictionary.count)"
        case .uid(let uid): "a reference to UID \(uid.value)"
        }
    }
}

extension PropertyListValue {
    /// A reference to `$null`.
    var isNullReference: Bool {
        if case .uid(let uid) = self { uid.value == 0 } else { false }
    }

    /// A number or boolean stored inline, which Foundation does not read as an object.
    var isInlineNumber: Bool {
        switch self {
        case .integer, .unsignedInteger, .real, .float, .bool: true
        default: false
        }
    }
}
