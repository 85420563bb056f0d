import Foundation
import TestSupport

@testable import PropertyList

/// Python's `plistlib` as a reference reader. Values travel as tagged JSON
/// (`["s", "text"]`, `["i", "42"]`, `["t", microseconds since 2001]`…) so that every
/// plist type survives the trip and can be compared with ours exactly.
enum PythonPeer {
    static let isAvailable = Python.canImport("plistlib")

    static var skipMessage: String { "skipped: python3 with plistlib is not installed" }

    private static let canonicalizer = #"""
        import datetime, json, plistlib, struct, sys
        EPOCH = datetime.datetime(2001, 1, 1)
        def canon(v):
            if isinstance(v, bool): return ["b", v]
            if isinstance(v, int): return ["i", str(v)]
            if isinstance(v, float): return ["r", "nan" if v != v else struct.pack(">d", v).hex()]
            if isinstance(v, str): return ["s", v]
            if isinstance(v, (bytes, bytearray)): return ["d", bytes(v).hex()]
            if isinstance(v, datetime.datetime): return ["t", (v - EPOCH) // datetime.timedelta(microseconds=1)]
            if isinstance(v, plistlib.UID): return ["u", v.data]
            if isinstance(v, list): return ["a", [canon(x) for x in v]]
            if isinstance(v, dict):
                if not all(isinstance(k, str) for k in v): raise TypeError("non-string key")
                u = v.get("CF$UID")
                if len(v) == 1 and isinstance(u, int) and not isinstance(u, bool): return ["u", u]
                return ["D", {k: canon(x) for k, x in v.items()}]
            raise TypeError(type(v).__name__)
        out = {}
        for path in sys.argv[1:]:
            try:
                with open(path, "rb") as f:
                    out[path] = {"ok": True, "value": canon(plistlib.load(f))}
            except Exception as e:
                out[path] = {"ok": False, "error": repr(e)}
        json.dump(out, sys.stdout)
        """#

    /// What `plistlib` reads from each file: a tagged value, or `nil` where it fails.
    static func read(_ paths: [String]) throws -> [String: Any?] {
        let data = try Python.run(canonicalizer, paths)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]] ?? [:]
        return json.mapValues { $0["ok"] as? Bool == true ? $0["value"] : nil }
    }

    /// Where `ours` differs from `plistlib`'s tagged value; `nil` when they agree.
    /// Dates agree within a microsecond, `plistlib`'s resolution.
    ///
    /// With `xmlLineEndings`, our strings are compared after the end-of-line folding an
    /// XML parser does (`\r\n` and `\r` to `\n`): `plistlib` folds, CoreFoundation
    /// keeps the raw `\r` that Apple's own nibs contain, and we follow CoreFoundation.
    static func mismatch(_ ours: PropertyListValue, _ theirs: Any?, path: String = "$", xmlLineEndings: Bool = false)
        -> String?
    {
        guard let pair = theirs as? [Any], pair.count == 2, let tag = pair[0] as? String else {
            return "\(path): unreadable peer value"
        }
        let payload = pair[1]
        switch (tag, ours) {
        case ("s", .string(var s)):
            if xmlLineEndings { s = s.replacing("\r\n", with: "\n").replacing("\r", with: "\n") }
            return s == payload as? String ? nil : "\(path): \(s.debugDescription) vs \(payload)"
        case ("b", .bool(let b)): return b == payload as? Bool ? nil : "\(path): \(b) vs \(payload)"
        case ("i", .integer(let i)): return "\(i)" == payload as? String ? nil : "\(path): \(i) vs \(payload)"
        case ("i", .unsignedInteger(let u)): return "\(u)" == payload as? String ? nil : "\(path): \(u) vs \(payload)"
        case ("r", _) where ours.doubleValue != nil:
            let d = ours.doubleValue!
            let hex = d.isNaN ? "nan" : String(d.bitPattern, radix: 16).leftPadded(to: 16)
            return hex == payload as? String ? nil : "\(path): \(d) (\(hex)) vs \(payload)"
        case ("d", .data(let data)):
            let hex = data.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
            return hex == payload as? String ? nil : "\(path): data differs"
        case ("t", .date(let date)):
            guard let micros = (payload as? NSNumber)?.doubleValue else { return "\(path): bad peer date" }
            return abs(date.timeIntervalSinceReferenceDate * 1e6 - micros) <= 1
                ? nil : "\(path): \(date) vs \(micros)µs"
        case ("u", .uid(let uid)):
            return (payload as? NSNumber)?.uint64Value == uid.value ? nil : "\(path): \(uid) vs \(payload)"
        case ("a", .array(let elements)):
            guard let theirs = payload as? [Any], theirs.count == elements.count else {
                return "\(path): array length differs"
            }
            for (index, element) in elements.enumerated() {
                if let difference = mismatch(
                    element, theirs[index], path: "\(path)[\(index)]", xmlLineEndings: xmlLineEndings)
                {
                    return difference
                }
            }
            return nil
        case ("D", .dictionary(let dictionary)):
            guard let theirs = payload as? [String: Any], theirs.count == dictionary.count else {
                return "\(path): dictionary size differs"
            }
            for (key, value) in dictionary {
                if let difference = mismatch(value, theirs[key], path: "\(path).\(key)", xmlLineEndings: xmlLineEndings)
                {
                    return difference
                }
            }
            return nil
        default:
            return "\(path): ours is \(ours.kindName), plistlib's is \(tag)"
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
