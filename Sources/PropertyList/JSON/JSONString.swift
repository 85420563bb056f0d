/// The one way Keepsake writes a JSON string, for every JSON it writes: the property-list
/// JSON writer and `keepsake unarchive`'s rendering, which therefore never disagree.
package enum JSONString {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `string` in quotes: `"` and `\` escaped, the control characters JSON
    /// names by letter as `\b`, `\t`, `\n`, `\f`, `\r`, the other ones below 0x20 as
    /// `\u00XX`. Everything else, `/`, DEL and non-ASCII included, is written as UTF-8,
    /// as RFC 8259 allows.
    package static func append(_ string: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case ..<0x20:
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
