import SwiftSyntax

/// The secure call that replaces a deprecated, insecure unarchiving call: the class the
/// result is cast to when the code casts it (`as? [Item]` reads an array of `Item`s), or
/// the classes a sample archive needs, or a pointer to `keepsake unarchive --classes`.
enum SecureUnarchiving {
    /// The replacement for `NSKeyedUnarchiver.METHOD(LABELS…)`, or `nil` for a call that
    /// is not one of the deprecated ones.
    static func replacement(
        for call: FunctionCallExprSyntax, method: String, labels: [String], sampleClasses: [String]?
    ) -> String? {
        let data: String
        switch (method, labels) {
        case ("unarchiveObject", ["withFile"]):
            data = "FileSystem.default.contents(of: URL(fileURLWithPath: \(argument(call))))"
        case ("unarchiveObject", ["with"]), ("unarchiveTopLevelObjectWithData", ["_"]):
            data = argument(call)
        default:
            return nil
        }
        if let sampleClasses {
            let listed = sampleClasses.map { swiftName($0) + ".self" }.joined(separator: ", ")
            return "`try KeyedUnarchiver.unarchivedObject(ofClasses: [\(listed)], from: \(data))` "
                + "(the classes the sample archive needs)"
        }
        switch castType(of: call) {
        case let type? where type.hasPrefix("[") && type.hasSuffix("]") && !type.contains(":"):
            return
                "`try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: \(type.dropFirst().dropLast()).self, from: \(data))`"
        case let type?:
            return "`try KeyedUnarchiver.unarchivedObject(ofClass: \(type).self, from: \(data))`"
        case nil:
            return "`try KeyedUnarchiver.unarchivedObject(ofClasses: [...], from: \(data))` with the classes "
                + "`keepsake unarchive --classes FILE` prints for a sample archive (or run port-check with --archive FILE)"
        }
    }

    private static func argument(_ call: FunctionCallExprSyntax) -> String {
        call.arguments.first?.expression.trimmedDescription ?? "data"
    }

    /// The type in `CALL as? TYPE` or `CALL as! TYPE`: unfolded, as the parser leaves
    /// it, a sequence of the call, `as`, and the type.
    private static func castType(of call: FunctionCallExprSyntax) -> String? {
        guard let list = call.parent?.as(ExprListSyntax.self) else { return nil }
        let elements = Array(list)
        guard let index = elements.firstIndex(where: { $0.id == call.id }), index + 2 < elements.count,
            elements[index + 1].is(UnresolvedAsExprSyntax.self),
            let type = elements[index + 2].as(TypeExprSyntax.self)
        else { return nil }
        return type.type.trimmedDescription
    }

    /// `Homepwner.Item` → `Item`: the unarchiver matches the archived name to a listed type.
    private static func swiftName(_ archivedName: String) -> String {
        archivedName.split(separator: ".").last.map(String.init) ?? archivedName
    }
}
