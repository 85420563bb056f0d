import Foundation

/// The fields of an `application/x-www-form-urlencoded` body or query string.
struct URLEncodedForm {
    private(set) var fields: [String: String] = [:]

    subscript(name: String) -> String? { fields[name] }

    /// - Throws: ``HomepwnerError`` `.badRequest` for bad percent-escapes or UTF-8.
    init(parsing text: some StringProtocol) throws {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decode(parts[0])
            let value = parts.count > 1 ? try Self.decode(parts[1]) : ""
            if fields[name] == nil { fields[name] = value }
        }
    }

    init(bytes: [UInt8]) throws {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw HomepwnerError(.badRequest, "the form is not valid UTF-8")
        }
        try self.init(parsing: text)
    }

    private static func decode(_ component: some StringProtocol) throws -> String {
        let plus = component.replacingOccurrences(of: "+", with: " ")
        guard let decoded = plus.removingPercentEncoding else {
            throw HomepwnerError(.badRequest, "malformed percent-escape in the form")
        }
        return decoded
    }
}
