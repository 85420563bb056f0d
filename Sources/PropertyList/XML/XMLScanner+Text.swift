/// Character data: plain runs, references, CDATA sections, and the close tag that ends them.
extension XMLScanner {
    /// Reads the character data of `element` (opened by the tag at `tagStart`) and its
    /// close tag. References, CDATA sections, comments and processing instructions are
    /// resolved; the common case of plain text is returned as a span of the input.
    mutating func readContent(of element: XMLElementName, tagStart: Int) throws(PropertyListError) -> Text {
        let start = position
        var cursor = position
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { break }
            cursor &+= 1
        }
        let text: Text
        if cursor + 1 < bytes.count, bytes[cursor] == UInt8(ascii: "<"), bytes[cursor + 1] == UInt8(ascii: "/") {
            position = cursor
            text = .span(start..<cursor)
        } else {
            position = cursor
            var decoded = Array(bytes[start..<cursor])
            try readMixedContent(of: element, tagStart: tagStart, into: &decoded)
            text = .decoded(decoded)
        }
        try readCloseTag(of: element, tagStart: tagStart)
        return text
    }

    /// The slow path of ``readContent(of:tagStart:)``, from the first `&` or `<` that does
    /// not close the element; stops at the close tag's `<`.
    private mutating func readMixedContent(
        of element: XMLElementName, tagStart: Int, into output: inout [UInt8]
    ) throws(PropertyListError) {
        while true {
            let runStart = position
            while position < bytes.count, bytes[position] != UInt8(ascii: "<"), bytes[position] != UInt8(ascii: "&") {
                position += 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
            guard position < bytes.count else { throw endOfInput("<\(element.name)>", startedAt: tagStart) }
            if bytes[position] == UInt8(ascii: "&") {
                try readReference(into: &output)
            } else if matches("</", at: position) {
                return
            } else if matches("<![CDATA[", at: position) {
                let start = position
                guard let end = find("]]>", from: position + 9) else {
                    throw endOfInput("a CDATA section", startedAt: start)
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(start + 9)..<end]))
                position = end + 3
            } else if try !skipCommentOrInstruction() {
                throw error(.invalidObject, "an element inside <\(element.name)>", at: position)
            }
        }
    }

    /// Decodes `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;`, `&#N;` and `&#xH;` into UTF-8.
    private mutating func readReference(into output: inout [UInt8]) throws(PropertyListError) {
        let start = position
        var cursor = position + 1
        while cursor < bytes.count, cursor - start <= 12, bytes[cursor] != UInt8(ascii: ";") { cursor += 1 }
        guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ";") else {
            throw error(cursor >= bytes.count ? .truncated : .syntaxError, "'&' not followed by a reference", at: start)
        }
        let name = UnsafeBufferPointer(rebasing: bytes[(start + 1)..<cursor])
        position = cursor + 1
        if let first = name.first, first == UInt8(ascii: "#") {
            let scalar = try characterReference(UnsafeBufferPointer(rebasing: name.dropFirst()), at: start)
            UTF8.encode(scalar) { output.append($0) }
            return
        }
        switch String(decoding: name, as: UTF8.self) {
        case "lt": output.append(UInt8(ascii: "<"))
        case "gt": output.append(UInt8(ascii: ">"))
        case "amp": output.append(UInt8(ascii: "&"))
        case "apos": output.append(UInt8(ascii: "'"))
        case "quot": output.append(UInt8(ascii: "\""))
        default:
            let text = String(decoding: name, as: UTF8.self)
            throw error(.syntaxError, "reference to the undeclared entity &\(text);", at: start)
        }
    }

    /// The scalar named by the digits of `&#...;` (after the `#`).
    private func characterReference(_ digits: UnsafeBufferPointer<UInt8>, at start: Int) throws(PropertyListError)
        -> Unicode.Scalar
    {
        var text = digits[...]
        var radix: UInt32 = 10
        if let first = text.first, first == UInt8(ascii: "x") {
            radix = 16
            text = text.dropFirst()
        }
        var value: UInt32 = 0
        for byte in text {
            guard let digit = XMLScalar.digitValue(byte, radix: radix) else {
                throw error(.syntaxError, "malformed character reference", at: start)
            }
            // Stopping past 0x10FFFF keeps the value far below 2^32.
            value = value * radix + digit
            guard value <= 0x10FFFF else { break }
        }
        guard !text.isEmpty else { throw error(.syntaxError, "empty character reference", at: start) }
        guard value != 0, let scalar = Unicode.Scalar(value) else {
            throw error(.invalidString, "character reference to an invalid code point", at: start)
        }
        return scalar
    }
}
