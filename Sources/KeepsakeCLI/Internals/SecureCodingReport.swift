import Foundation
import KeyedArchive

/// The text of `keepsake unarchive --classes` and `--simulate`.
enum SecureCodingReport {
    /// Each key path with its class, then the call with the fewest classes.
    /// - Throws: ``KeyedArchiveError`` when the bytes are not a readable keyed archive.
    static func classes(_ archive: [UInt8]) throws -> String {
        let usage = try ArchiveClassUsage(archive: archive)
        let width = min(48, usage.uses.map(\.path.count).max() ?? 0)
        var text = ""
        for use in usage.uses {
            let padding = String(repeating: " ", count: max(1, width + 2 - use.path.count))
            text +=
                use.path + padding + use.className + (use.isInline ? " (inline: passes unlisted, with a warning)" : "")
                + "\n"
        }
        let listed = "[" + usage.requiredClasses.map { swiftName($0) + ".self" }.joined(separator: ", ") + "]"
        if usage.topLevelKeys.contains("root") {
            text += "\nKeyedUnarchiver.unarchivedObject(ofClasses: \(listed), from: data)\n"
        } else {
            // A nib or an archive written key by key: one decoder, each key read with the list.
            text += "\nlet decoder = try KeyedDecoder(forReadingFrom: data)\n"
            for key in usage.topLevelKeys {
                text += "decoder.decodeObject(of: \(listed), forKey: \"\(key)\")\n"
            }
        }
        text += "Archived names, for --simulate: \(usage.requiredClasses.joined(separator: ","))\n"
        if !usage.inlineClasses.isEmpty {
            text +=
                "In strict mode (refusesWhatAppleWillDisallow), list also: "
                + usage.inlineClasses.map { $0 + ".self" }.joined(separator: ", ") + "\n"
        }
        return text
    }

    /// The decoded root's class and the warnings, or the error; and whether it decoded.
    static func simulation(_ archive: [UInt8], allowing classNames: [String]) -> (text: String, decoded: Bool) {
        do {
            let (objects, warnings) = try ArchiveClassUsage.simulate(archive, allowing: classNames)
            var text = ""
            for (key, object) in objects { text += "decoded: \(key) is \(object.map(className) ?? "nil")\n" }
            for warning in warnings { text += "warning: \(warning)\n" }
            return (text, true)
        } catch {
            return ("error \(error.foundationErrorCode): \(error)\n", false)
        }
    }

    /// The Swift spelling of an archived class: `Homepwner.Item` → `Item`, which the
    /// unarchiver matches to the archived name; Foundation's classes as they are.
    private static func swiftName(_ archivedName: String) -> String {
        archivedName.split(separator: ".").last.map(String.init) ?? archivedName
    }

    private static func className(of root: Any) -> String {
        switch root {
        case let object as ArchivedObject: object.className
        case is [Any]: "NSArray"
        case is Set<AnyHashable>: "NSSet"
        case is [AnyHashable: Any], is [String: Any]: "NSDictionary"
        case is String: "NSString"
        case is Date: "NSDate"
        case is Data: "NSData"
        case is UUID: "NSUUID"
        case is URL: "NSURL"
        case is Int, is Double, is Bool, is UInt64, is Float: "NSNumber"
        default: "\(type(of: root))"
        }
    }
}
