// The fuzz target for the keyed unarchiver; built by scripts/fuzz.sh together
// with the PropertyList and KeyedArchive sources as one module.
//
// Each input is opened as an archive and decoded four ways: every top-level object
// as generic objects, the root as a property-list tree, the root as typed model
// objects, and the root securely under a class set (and strictness) drawn from the
// input's last two bytes. Whatever decodes generically is archived again and must
// decode again; whatever decodes under a set must decode under any larger set.

import Foundation

func checkFuzzInput(_ bytes: [UInt8]) {
    ArchiveFuzzCheck.check(bytes)
}

enum ArchiveFuzzCheck {
    struct Record: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        var name: String?
        var count: Int
        var children: [Record]
        var stamp: Date?

        func encode(with coder: KeyedEncoder) {}

        init(coder: KeyedDecoder) throws {
            name = coder.decodeObject(forKey: "name") as? String
            count = coder.decodeInteger(forKey: "count")
            children = try coder.decodeIfPresent([Record].self, forKey: "children") ?? []
            stamp = try coder.decodeIfPresent(Date.self, forKey: "stamp")
        }
    }

    /// The classes a secure decode may be given, NSObject last (it allows everything).
    static let candidates: [Any.Type] = [
        NSArray.self, NSDictionary.self, NSSet.self, NSDate.self, NSString.self, NSNumber.self, NSData.self,
        NSURL.self, NSUUID.self, Record.self, NSObject.self,
    ]

    static func secureRoot(_ bytes: [UInt8], allowing classes: [Any.Type], strict: Bool) throws -> Any? {
        let decoder = try KeyedDecoder(bytes: bytes, limits: FuzzCheck.limits)
        decoder.refusesWhatAppleWillDisallow = strict
        decoder.setClass(Record.self, forClassName: "Record")
        decoder.allowClasses(classes)
        return try decoder.decodeTopLevelObject(forKey: "root")
    }

    static func checkSecureDecoding(_ bytes: [UInt8]) {
        guard bytes.count >= 2 else { return }
        let mask = Int(bytes[bytes.count - 1]) | Int(bytes[bytes.count - 2] & 0x07) << 8
        let chosen = candidates.indices.filter { mask & (1 << $0) != 0 }.map { candidates[$0] }
        let strict = bytes[bytes.count - 2] & 0x80 != 0
        guard (try? secureRoot(bytes, allowing: chosen, strict: strict)) != nil else { return }
        // Allowing more classes never refuses what fewer allowed (strict mode aside,
        // where listing NSObject is itself refused).
        do {
            _ = try secureRoot(bytes, allowing: candidates.dropLast(), strict: false)
        } catch {
            fatalError("decoded under \(chosen) but not under every class but NSObject: \(error)")
        }
    }

    static func check(_ bytes: [UInt8]) {
        guard let decoder = try? KeyedDecoder(bytes: bytes, limits: FuzzCheck.limits) else { return }
        decoder.allowsGenericObjects = true
        var topLevel: [(key: String, value: Any?)] = []
        for key in decoder.allKeys {
            guard let value = try? decoder.decodeTopLevelObject(forKey: key) else { break }
            topLevel.append((key, value))
        }
        if let typed = try? KeyedDecoder(bytes: bytes, limits: FuzzCheck.limits) {
            typed.setClass(Record.self, forClassName: "Record")
            _ = try? typed.decode(PropertyListValue.self, forKey: "root")
            _ = try? typed.decode([Record].self, forKey: "root")
            _ = try? typed.decode(Record.self, forKey: "root")
        }
        checkSecureDecoding(bytes)
        guard topLevel.count == decoder.allKeys.count else { return }
        let encoder = KeyedEncoder(maxDepth: FuzzCheck.limits.maxDepth)
        for (key, value) in topLevel { encoder.encode(value, forKey: key) }
        guard let again = try? encoder.encodedBytes else { return }
        do {
            let reread = try KeyedDecoder(
                bytes: again, limits: PropertyListLimits(maxDepth: FuzzCheck.limits.maxDepth + 8))
            reread.allowsGenericObjects = true
            for key in reread.allKeys { _ = try reread.decodeTopLevelObject(forKey: key) }
        } catch {
            fatalError("an archive we wrote from decoded objects does not decode: \(error)")
        }
    }
}
