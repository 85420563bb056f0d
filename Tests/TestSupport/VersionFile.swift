public import Foundation

/// What the crash tests' writer (SandboxTestHelper) saves, over and over: a header line
/// `keepsake-version N LENGTH CHECKSUM`, then LENGTH bytes whose FNV-1a hash is
/// CHECKSUM. Lengths vary from 1 byte to ~200 KB, so a kill lands in every step of the
/// write, and the tests tell a complete version from a torn one.
public enum VersionFile {
    public static func payload(_ version: Int) -> [UInt8] {
        let length = (version &* 7919) % 200_000 + 1
        return (0..<length).map { UInt8(truncatingIfNeeded: version &* 31 &+ $0 &* 7) }
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    public static func encode(_ version: Int) -> Data {
        let body = payload(version)
        return Data("keepsake-version \(version) \(body.count) \(checksum(body))\n".utf8) + body
    }

    /// The version in `data`, or nil when it is not exactly one complete version.
    public static func decode(_ data: Data) -> Int? {
        guard let newline = data.firstIndex(of: 0x0A) else { return nil }
        let fields = String(decoding: data[..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 4, fields[0] == "keepsake-version", let version = Int(fields[1]),
            let length = Int(fields[2]), let sum = UInt64(fields[3])
        else { return nil }
        let body = [UInt8](data[(newline + 1)...])
        guard body.count == length, checksum(body) == sum, body == payload(version) else { return nil }
        return version
    }
}
