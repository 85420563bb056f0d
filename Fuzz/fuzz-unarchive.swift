// The fuzz target for `keepsake unarchive`'s renderer; built by scripts/fuzz.sh
// together with the PropertyList and KeyedArchive sources as one module.
//
// Each input is rendered as text and as JSON. Rendering may fail with a typed error,
// never crash, hang or run away (the fuzzer watches for that); text streamed in small
// chunks must equal text rendered whole, and JSON must be JSON.

func checkFuzzInput(_ bytes: [UInt8]) {
    UnarchiveFuzzCheck.check(bytes)
}

enum UnarchiveFuzzCheck {
    static func check(_ bytes: [UInt8]) {
        let limits = FuzzCheck.limits
        guard let text = try? ArchiveRenderer.render(bytes, as: .text, limits: limits) else { return }
        var streamed: [UInt8] = []
        do {
            try ArchiveRenderer.render(bytes, as: .text, limits: limits, chunkSize: 7) { streamed += $0 }
        } catch {
            fatalError("text rendered whole but not in chunks: \(error)")
        }
        if streamed != text { fatalError("text rendered in chunks differs from text rendered whole") }
        let json: [UInt8]
        do {
            json = try ArchiveRenderer.render(bytes, as: .json, limits: limits)
        } catch {
            fatalError("an archive rendered as text but not as JSON: \(error)")
        }
        // Not the property-list reader: JSON's null has no property-list equivalent.
        if !JSONSyntax.isValid(json) {
            fatalError("the JSON rendering is not JSON:\n\(String(decoding: json.prefix(2000), as: UTF8.self))")
        }
        _ = try? ArchiveRenderer.render(bytes, as: .propertyList(.binary), limits: limits)
    }
}

/// JSON's grammar, checked with an explicit stack (renderings may nest deeply).
enum JSONSyntax {
    private enum Expect { case value, valueOrEnd, key, keyOrEnd, afterValue }

    static func isValid(_ bytes: [UInt8]) -> Bool {
        var index = 0
        var open: [UInt8] = []
        var expect = Expect.value
        while true {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
            guard index < bytes.count else { return open.isEmpty && expect == .afterValue }
            let byte = bytes[index]
            switch expect {
            case .value, .valueOrEnd:
                if expect == .valueOrEnd, byte == UInt8(ascii: "]") {
                    open.removeLast()
                    index += 1
                    expect = .afterValue
                    continue
                }
                switch byte {
                case UInt8(ascii: "{"):
                    open.append(byte)
                    index += 1
                    expect = .keyOrEnd
                case UInt8(ascii: "["):
                    open.append(byte)
                    index += 1
                    expect = .valueOrEnd
                case UInt8(ascii: "\""):
                    guard string(bytes, &index) else { return false }
                    expect = .afterValue
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    guard
                        let literal = ["true", "false", "null"].first(where: {
                            bytes[index...].starts(with: Array($0.utf8))
                        })
                    else { return false }
                    index += literal.utf8.count
                    expect = .afterValue
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let start = index
                    while index < bytes.count, "0123456789+-.eE".utf8.contains(bytes[index]) { index += 1 }
                    guard Double(String(decoding: bytes[start..<index], as: UTF8.self)) != nil else { return false }
                    expect = .afterValue
                default:
                    return false
                }
            case .key, .keyOrEnd:
                if expect == .keyOrEnd, byte == UInt8(ascii: "}") {
                    open.removeLast()
                    index += 1
                    expect = .afterValue
                    continue
                }
                guard byte == UInt8(ascii: "\""), string(bytes, &index) else { return false }
                while index < bytes.count, bytes[index] == 0x20 { index += 1 }
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                index += 1
                expect = .value
            case .afterValue:
                guard let innermost = open.last else { return false }
                index += 1
                if byte == UInt8(ascii: ",") {
                    expect = innermost == UInt8(ascii: "{") ? .key : .value
                } else if byte == (innermost == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    open.removeLast()
                } else {
                    return false
                }
            }
        }
    }

    /// A string starting at `index`; moves past it.
    private static func string(_ bytes: [UInt8], _ index: inout Int) -> Bool {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return true
            case UInt8(ascii: "\\"): index += 2
            case ..<0x20: return false
            default: index += 1
            }
        }
        return false
    }
}
