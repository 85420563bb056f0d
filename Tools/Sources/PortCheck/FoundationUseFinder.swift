import SwiftSyntax

/// Walks one file's syntax tree for the Foundation APIs of ``PortChecker``. Only code
/// is visited: comments are trivia and string literals are segments, so the same names
/// there are never reported.
final class FoundationUseFinder: SyntaxVisitor {
    private let file: String
    private let converter: SourceLocationConverter
    /// Names bound to `FileManager.default` or `FileManager()` in this file
    /// (`let fm = FileManager.default`), whose `urls(for:in:)` is FileManager's too.
    private let fileManagerNames: Set<String>
    /// The archived class names a sample archive needs allowed
    /// (`keepsake unarchive --classes`), for the secure replacement of an insecure call.
    private let sampleClasses: [String]?
    /// `NSKeyedUnarchiver` references already reported as part of a deprecated call.
    private var explainedReferences: Set<SyntaxIdentifier> = []
    private(set) var findings: [PortFinding] = []

    init(file: String, tree: SourceFileSyntax, sampleClasses: [String]? = nil) {
        self.file = file
        self.sampleClasses = sampleClasses
        converter = SourceLocationConverter(fileName: file, tree: tree)
        let bindings = FileManagerBindings(viewMode: .sourceAccurate)
        bindings.walk(tree)
        fileManagerNames = bindings.names
        super.init(viewMode: .sourceAccurate)
    }

    /// Foundation types whose every use bypasses Keepsake, and what replaces them.
    static let replacedTypes: [String: String] = [
        "NSKeyedArchiver":
            "is Foundation's archiver, which cannot archive KeyedCoding types and writes without syncing; use KeyedArchiver",
        "NSKeyedUnarchiver": "is Foundation's unarchiver, which cannot decode KeyedCoding types; use KeyedUnarchiver",
        "NSUserDefaults": "is Foundation's, which does not save on Linux; use Defaults",
        "NSFileCoordinator": "coordinates nothing on Linux; use FileCoordinator",
        "NSFileAccessIntent": "belongs to NSFileCoordinator; use FileAccessIntent with FileCoordinator",
        "NSCoding":
            "is Foundation's coding protocol, which KeyedArchiver cannot archive; use KeyedCoding "
            + "(KeyedSecureCoding for the secure calls)",
        "NSSecureCoding":
            "is Foundation's secure-coding protocol, which KeyedArchiver cannot archive; use KeyedSecureCoding, "
            + "with the same supportsSecureCoding",
        "NSCoder": "is Foundation's coder; use KeyedEncoder in encode(with:) and KeyedDecoder in init(coder:)",
        "PropertyListSerialization":
            "is Foundation's, whose reader and writer are slower and trap on some input; "
            + "use PropertyListReader and PropertyListWriter",
        "NSCache": "is Foundation's, which never empties on a memory warning here; use MemoryCache",
        "UIApplication": "has no Linux counterpart; use Application",
        "UIApplicationDelegate": "has no Linux counterpart; use ApplicationDelegate",
        "UIApplicationLaunchOptionsKey": "has no Linux counterpart; use ApplicationLaunchOptionsKey",
        "UIImage":
            "has no Linux counterpart; use the image's bytes as Data, kept in a BlobStore "
            + "(imageKind(forKey:) tells JPEG from PNG)",
    ]

    /// Modules that do not exist off Apple's platforms, and what to import instead.
    static let replacedModules: [String: String] = [
        "UIKit": "has no Linux counterpart; use import Foundation and import Keepsake",
        "os": "has no Linux counterpart; use import Keepsake, whose os_log writes to standard error",
        "os.log": "has no Linux counterpart; use import Keepsake, whose os_log writes to standard error",
    ]

    override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind {
        let module = node.path.map(\.name.text).joined(separator: ".")
        if let advice = Self.replacedModules[module], !Self.isGuarded(node, byCanImport: module) {
            report(node, "import \(module)", advice)
        }
        return .skipChildren
    }

    /// Whether `node` sits in an `#if canImport(MODULE)` branch (or one for the module's
    /// top level, `os` for `os.log`): code written to build on Linux too.
    private static func isGuarded(_ node: some SyntaxProtocol, byCanImport module: String) -> Bool {
        let top = module.split(separator: ".").first.map(String.init) ?? module
        var ancestor = node.parent
        while let current = ancestor {
            if let clause = current.as(IfConfigClauseSyntax.self), let condition = clause.condition {
                let text = String(condition.trimmedDescription.filter { !$0.isWhitespace })
                if text.contains("canImport(\(module))") || text.contains("canImport(\(top))") { return true }
            }
            ancestor = current.parent
        }
        return false
    }

    /// Classes that start a coding hierarchy: a class inheriting from one of these, or
    /// adopting a coding protocol itself, answers `supportsSecureCoding` for itself.
    private static let codingRoots: Set<String> = [
        "NSObject", "KeyedCoding", "KeyedSecureCoding", "NSCoding", "NSSecureCoding",
    ]

    /// A subclass that writes its own `init(coder:)` but inherits `supportsSecureCoding`:
    /// Foundation refuses to decode it securely ("… overrides -initWithCoder: and does
    /// not override +supportsSecureCoding"). Swift does not show at run time which
    /// initializers a class overrides, so the unarchiver cannot; the source shows it.
    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        let inherited = node.inheritanceClause?.inheritedTypes.map(\.type.trimmedDescription) ?? []
        guard let superclass = inherited.first, !inherited.contains(where: Self.codingRoots.contains) else {
            return .visitChildren
        }
        let members = node.memberBlock.members.map(\.decl)
        let decodes = members.contains {
            $0.as(InitializerDeclSyntax.self)?.signature.parameterClause.parameters.first?.firstName.text == "coder"
        }
        let answers = members.contains {
            $0.as(VariableDeclSyntax.self)?.bindings.contains {
                $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "supportsSecureCoding"
            } ?? false
        }
        if decodes, !answers {
            report(
                node.name, "init(coder:) of \(node.name.text), a subclass of \(superclass),",
                "overrides its superclass's without overriding supportsSecureCoding, which Foundation refuses to "
                    + "decode securely; once it reads each value by type, use "
                    + "override class var supportsSecureCoding: Bool { true }")
        }
        return .visitChildren
    }

    /// UIViewController's memory warning, which nothing calls off iOS.
    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        if node.name.text == "didReceiveMemoryWarning", node.signature.parameterClause.parameters.isEmpty,
            node.modifiers.contains(where: { $0.name.text == "override" })
        {
            report(
                node.name, "didReceiveMemoryWarning()",
                "is UIViewController's, which nothing calls here; "
                    + "use applicationDidReceiveMemoryWarning(_:) on the ApplicationDelegate, or a MemoryCache")
        }
        return .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        if !explainedReferences.contains(node.id) { reportReplacedType(node.baseName.text, at: node) }
        return .visitChildren
    }

    override func visit(_ node: IdentifierTypeSyntax) -> SyntaxVisitorContinueKind {
        reportReplacedType(node.name.text, at: node)
        return .visitChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        let member = node.declName.baseName.text
        let base = node.base?.trimmedDescription
        switch (base, member) {
        case ("UserDefaults", "standard"):
            report(
                node, "UserDefaults.standard", "is Foundation's, which does not save on Linux; use Defaults.standard")
        case ("Bundle", "main"):
            report(
                node, "Bundle.main",
                "is the executable's folder, not the app's resources; use ResourceBundle.main")
        case (_, "isExcludedFromBackup"):
            report(
                node, "isExcludedFromBackup",
                "is not kept on Linux; use setExcludedFromBackup(_:for:) on the container's SandboxDirectory")
        default:
            break
        }
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let labels = node.arguments.map { $0.label?.text ?? "_" }
        if let callee = node.calledExpression.as(DeclReferenceExprSyntax.self), callee.baseName.text == "UserDefaults",
            labels == ["suiteName"]
        {
            report(
                node, "UserDefaults(suiteName:)",
                "is Foundation's, which does not save on Linux; use Defaults(suiteName:container:)")
        }
        guard let callee = node.calledExpression.as(MemberAccessExprSyntax.self) else { return .visitChildren }
        let method = callee.declName.baseName.text
        if let base = callee.base?.as(DeclReferenceExprSyntax.self), base.baseName.text == "NSKeyedUnarchiver",
            let replacement = SecureUnarchiving.replacement(
                for: node, method: method, labels: labels, sampleClasses: sampleClasses)
        {
            explainedReferences.insert(base.id)
            report(
                node, "NSKeyedUnarchiver.\(method)(\(labels.map { $0 + ":" }.joined()))",
                "is deprecated since iOS 12 and decodes without secure coding, making any class the data names; "
                    + "use \(replacement)")
            return .visitChildren
        }
        switch (method, labels) {
        case ("urls", ["for", "in"]) where isFileManager(callee.base):
            report(
                node, "FileManager.urls(for:in:)",
                "answers the home folder's directories, outside any container; use AppContainer.main.urls(for:in:)")
        case ("url", ["for", "in", "appropriateFor", "create"]) where isFileManager(callee.base):
            report(
                node, "FileManager.url(for:in:appropriateFor:create:)",
                "answers the home folder's directories, outside any container; "
                    + "use AppContainer.main.url(for:in:appropriateFor:create:)")
        case ("write", ["to"]), ("write", ["to", "options"]):
            report(
                node, "Data.write(to:options:)",
                "neither syncs the file nor checks that it stays in the container; "
                    + "use FileSystem.default.write(_:to:) or a container directory's write(_:to:)")
        case ("write", ["to", "atomically", "encoding"]):
            report(
                node, "String.write(to:atomically:encoding:)",
                "neither syncs the file nor checks that it stays in the container; "
                    + "use FileSystem.default.write(_:to:) or a container directory's write(_:to:)")
        default:
            break
        }
        return .visitChildren
    }

    private func isFileManager(_ expression: ExprSyntax?) -> Bool {
        guard let expression else { return false }
        let text = expression.trimmedDescription
        return FileManagerBindings.isFileManager(text) || fileManagerNames.contains(text)
    }

    private func reportReplacedType(_ name: String, at node: some SyntaxProtocol) {
        if let advice = Self.replacedTypes[name] { report(node, name, advice) }
    }

    private func report(_ node: some SyntaxProtocol, _ api: String, _ advice: String) {
        let location = node.startLocation(converter: converter)
        findings.append(PortFinding(file: file, line: location.line, column: location.column, api: api, advice: advice))
    }
}

/// The names a file binds to a `FileManager` (`let fm = FileManager.default`).
private final class FileManagerBindings: SyntaxVisitor {
    private(set) var names: Set<String> = []

    static func isFileManager(_ text: String) -> Bool {
        text == "FileManager.default" || text == "FileManager()" || text == "FileManager.defaultManager()"
    }

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
            let value = node.initializer?.value, Self.isFileManager(value.trimmedDescription)
        {
            names.insert(name)
        }
        return .visitChildren
    }
}
