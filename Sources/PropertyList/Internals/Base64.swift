/// Base64 as plists use it: XML `<data>` may wrap and indent its text, so decoding
/// skips white space; anything else outside the alphabet is an error.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0–63 for alphabet bytes, `skip` for white space, `invalid` for anything else.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        for byte in [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C] { table[byte] = skip }
        return table
    }()
    private static let invalid: UInt8 = 0xFF
    private static let skip: UInt8 = 0xFE

    /// Encodes `bytes`, inserting `lineBreak` after every `lineLength` characters when given.
    static func encode(
        _ bytes: some Collection<UInt8>, lineLength: Int? = nil, lineBreak: [UInt8] = [0x0A], into output: inout [UInt8]
    ) {
        var column = 0
        func emit(_ byte: UInt8) {
            if let lineLength, column == lineLength {
                output.append(contentsOf: lineBreak)
                column = 0
            }
            output.append(byte)
            column += 1
        }
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = b1 == nil ? nil : iterator.next()
            emit(alphabet[Int(b0 >> 2)])
            emit(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            emit(b1.map { alphabet[Int(($0 & 0x0F) << 2 | (b2 ?? 0) >> 6)] } ?? UInt8(ascii: "="))
            emit(b2.map { alphabet[Int($0 & 0x3F)] } ?? UInt8(ascii: "="))
        }
    }

    /// Decodes base64 text, ignoring white space and tolerating missing padding.
    /// - Returns: `nil` for a byte outside the alphabet, data after padding, or a
    ///   dangling single character.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0
        var pending = 0
        var padding = 0
        for byte in text {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            let value = decodeTable[Int(byte)]
            if value == skip { continue }
            guard value != invalid, padding == 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            pending += 1
            if pending == 4 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                pending = 0
            }
        }
        switch pending {
        case 0: break
        case 2: output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default: return nil
        }
        return output
    }
}
