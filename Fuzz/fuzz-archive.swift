// libFuzzer entry point for the keyed unarchiver; built by scripts/fuzz.sh together
// with the PropertyList and KeyedArchive sources as one module.
//
// Each input is opened as an archive and decoded three ways: every top-level object
// as generic objects, the root as a property-list tree, and the root as typed model
// objects. Whatever decodes generically is archived again and must decode again.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    ArchiveFuzzCheck.check(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}

enum ArchiveFuzzCheck {
    struct Record: KeyedCoding {
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
