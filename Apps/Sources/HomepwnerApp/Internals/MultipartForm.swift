import Foundation

/// The parts of a `multipart/form-data` body (RFC 7578), enough for file uploads.
struct MultipartForm {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var body: ArraySlice<UInt8>
    }

    private(set) var parts: [Part] = []
    /// An upload form has a handful of fields; more is not a form this app serves.
    static let maxParts = 16

    func part(named name: String) -> Part? { parts.first { $0.name == name } }

    /// The boundary named in a `Content-Type` header, or `nil` when it is not multipart.
    static func boundary(fromContentType contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            var value = String(piece.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return value.isEmpty || value.utf8.count > 200 ? nil : value
        }
        return nil
    }

    /// - Throws: ``HomepwnerError`` `.badRequest` when the body is not well-formed.
    init(bytes: [UInt8], boundary: String) throws {
        let delimiter = Array("--\(boundary)".utf8)
        guard var position = Self.find(delimiter, in: bytes, from: 0) else {
            throw HomepwnerError(.badRequest, "the multipart body has no boundary line")
        }
        let next = Array("\r\n--\(boundary)".utf8)
        while true {
            position += delimiter.count
            // "--" after a boundary ends the body.
            if bytes[position...].starts(with: [0x2D, 0x2D]) { return }
            guard bytes[position...].starts(with: [0x0D, 0x0A]) else {
                throw HomepwnerError(.badRequest, "malformed multipart boundary line")
            }
            position += 2
            guard let headerEnd = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes, from: position) else {
                throw HomepwnerError(.badRequest, "a multipart part has no end of headers")
            }
            let headers = String(decoding: bytes[position..<headerEnd], as: UTF8.self)
            let bodyStart = headerEnd + 4
            guard let bodyEnd = Self.find(next, in: bytes, from: bodyStart) else {
                throw HomepwnerError(.badRequest, "the multipart body ends without its closing boundary")
            }
            var part = Part(name: "", filename: nil, contentType: nil, body: bytes[bodyStart..<bodyEnd])
            for line in headers.components(separatedBy: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if field == "content-disposition" {
                    part.name = Self.parameter("name", in: value) ?? ""
                    part.filename = Self.parameter("filename", in: value)
                } else if field == "content-type" {
                    part.contentType = value
                }
            }
            guard !part.name.isEmpty else { throw HomepwnerError(.badRequest, "a multipart part has no name") }
            guard parts.count < Self.maxParts else {
                throw HomepwnerError(.badRequest, "the multipart body has more than \(Self.maxParts) parts")
            }
            parts.append(part)
            position = bodyEnd + 2
        }
    }

    private static func parameter(_ name: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let trimmed = piece.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix(name + "=") else { continue }
            var raw = String(trimmed.dropFirst(name.count + 1))
            if raw.hasPrefix("\""), raw.hasSuffix("\""), raw.count >= 2 { raw = String(raw.dropFirst().dropLast()) }
            return raw
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `start`, in time linear in
    /// the haystack (Knuth–Morris–Pratt): a body of near-misses of a 200-byte boundary
    /// would otherwise cost a comparison of the boundary at every byte.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start >= 0, haystack.count - start >= needle.count else { return nil }
        // fallback[i]: the length of the longest proper prefix of needle[...i] that is
        // also its suffix.
        var fallback = [Int](repeating: 0, count: needle.count)
        var matched = 0
        for index in 1..<needle.count {
            while matched > 0 && needle[index] != needle[matched] { matched = fallback[matched - 1] }
            if needle[index] == needle[matched] { matched += 1 }
            fallback[index] = matched
        }
        matched = 0
        for index in start..<haystack.count {
            while matched > 0 && haystack[index] != needle[matched] { matched = fallback[matched - 1] }
            if haystack[index] == needle[matched] { matched += 1 }
            if matched == needle.count { return index - needle.count + 1 }
        }
        return nil
    }
}
