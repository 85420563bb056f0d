import Foundation
import KeyedArchive

/// Hand-made archives: `$objects` written out entry by entry, so each hostile case says
/// exactly what it contains. Written through the property-list layer's binary writer.
enum ArchiveBuilder {
    static func uid(_ value: Int) -> PropertyListValue { .uid(PropertyListUID(UInt64(value))) }

    static func classEntry(_ name: String, _ chain: [String]? = nil) -> PropertyListValue {
        ["$classname": .string(name), "$classes": .array((chain ?? [name, "NSObject"]).map { .string($0) })]
    }

    static func archive(
        _ objects: [PropertyListValue], top: PropertyListDictionary = ["root": .uid(PropertyListUID(1))]
    ) -> [UInt8] {
        let archive: PropertyListValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": .dictionary(top), "$objects": .array(objects),
        ]
        // The writer only fails on values a binary plist cannot hold; these are all plain.
        return (try? PropertyListWriter.binary.write(archive)) ?? []
    }
}
