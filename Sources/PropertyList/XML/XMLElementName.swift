/// The elements of Apple's property-list DTD, recognised from a tag's name bytes.
///
/// Each raw value packs the name as ``code(length:bytes:)`` does: its bytes, first byte
/// lowest, with the length in the top byte. A tag is then recognised with one integer
/// built while its name is scanned and one switch, no string made.
enum XMLElementName: UInt64 {
    case plist = 0x0500_0074_7369_6C70
    case array = 0x0500_0079_6172_7261
    case dict = 0x0400_0000_7463_6964
    case key = 0x0300_0000_0079_656B
    case string = 0x0600_676E_6972_7473
    case integer = 0x0772_6567_6574_6E69
    case real = 0x0400_0000_6C61_6572
    case date = 0x0400_0000_6574_6164
    case data = 0x0400_0000_6174_6164
    case `true` = 0x0400_0000_6575_7274
    case `false` = 0x0500_0065_736C_6166
    case unknown = 0

    /// Longer names cannot be packed, and no element has one.
    static let maximumLength = 7

    /// The packed form of a name of `length` bytes whose first (up to seven) bytes,
    /// first byte lowest, are `bytes`.
    static func code(length: Int, bytes: UInt64) -> UInt64 {
        length <= maximumLength ? UInt64(length) << 56 | bytes : 0
    }

    init(length: Int, bytes: UInt64) {
        self = XMLElementName(rawValue: Self.code(length: length, bytes: bytes)) ?? .unknown
    }

    /// The name as written in a tag.
    var name: String {
        switch self {
        case .plist: "plist"
        case .array: "array"
        case .dict: "dict"
        case .key: "key"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .date: "date"
        case .data: "data"
        case .true: "true"
        case .false: "false"
        case .unknown: "?"
        }
    }
}
