import Foundation

extension AppContainer {
    /// The running app's own container, so that code ported from the books needs no
    /// made-up identifier. Corresponds to the container iOS gives the app, which
    /// `FileManager.default.urls(for:in:)` reaches there.
    ///
    /// The identifier comes from, in order: `KEEPSAKE_APP_ID`; `CFBundleIdentifier`
    /// in the `Info.plist` shipped with the executable (``ResourceBundle/main``); the
    /// executable's name, with characters an identifier cannot hold replaced by `-`.
    /// The container lives where ``init(identifier:containersDirectory:environment:)``
    /// puts it.
    ///
    /// The first use of a container that does not exist yet creates it and prints its
    /// identifier, where the identifier came from and its path on standard error.
    ///
    /// An identifier given by `KEEPSAKE_APP_ID` or the `Info.plist` that is not a valid
    /// identifier stops the program with a message naming it, at first use: running
    /// on with another app's container would hide the user's data.
    ///
    /// ```swift
    /// let itemArchiveURL = AppContainer.main.documentsDirectory.appendingPathComponent("items.archive")
    /// ```
    public static let main: AppContainer = {
        let environment = ProcessInfo.processInfo.environment
        let identity = mainIdentity(
            environment: environment, bundleIdentifier: ResourceBundle.main.bundleIdentifier,
            executableName: ResourceBundle.runningExecutable.lastPathComponent)
        let container: AppContainer
        do {
            container = try AppContainer(identifier: identity.identifier, environment: environment)
        } catch {
            fatalError("AppContainer.main: \(identity.source) gives \"\(identity.identifier)\": \(error)")
        }
        container.announceIfNew(namedAfter: identity.source)
        return container
    }()

    /// Creates the container when it does not exist yet and says so on standard error,
    /// with the identity it was named after: a renamed executable, or a missing
    /// `KEEPSAKE_APP_ID`, otherwise opens an empty container without a word, and the
    /// user's data seems gone.
    func announceIfNew(namedAfter source: String, report: (String) -> Void = { StandardStream.error.report($0) }) {
        guard !FileManager.default.fileExists(atPath: url.path) else { return }
        do {
            try createDirectories()
            report("keepsake: new app container \(identifier) (from \(source)) at \(url.path)")
        } catch {
            report("keepsake: cannot create the app container \(identifier) (from \(source)) at \(url.path): \(error)")
        }
    }

    /// The running app's identifier and where it came from, by the rules of ``main``.
    static func mainIdentity(environment: [String: String], bundleIdentifier: String?, executableName: String) -> (
        identifier: String, source: String
    ) {
        if let identifier = environment["KEEPSAKE_APP_ID"], !identifier.isEmpty {
            return (identifier, "KEEPSAKE_APP_ID")
        }
        if let bundleIdentifier, !bundleIdentifier.isEmpty {
            return (bundleIdentifier, "CFBundleIdentifier in \(ResourceBundle.main.bundlePath)/Info.plist")
        }
        return (identifier(fromExecutableName: executableName), "the executable's name")
    }

    /// `name` as an identifier: bytes other than ASCII letters, digits, `-` and `.`
    /// become `-`, and empty labels go; `app` if nothing is left.
    static func identifier(fromExecutableName name: String) -> String {
        let labels = name.utf8.split(separator: UInt8(ascii: ".")).map { label in
            String(decoding: label.map { isLabelByte($0) ? $0 : UInt8(ascii: "-") }, as: UTF8.self)
        }
        // A file name holds at most 255 bytes, as an identifier may.
        let identifier = labels.joined(separator: ".")
        return identifier.isEmpty ? "app" : identifier
    }
}
