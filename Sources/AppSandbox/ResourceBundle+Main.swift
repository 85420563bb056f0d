public import Foundation
import PropertyList

extension ResourceBundle {
    /// The running program's own resources. Corresponds to `Bundle.main`.
    ///
    /// The folder `<executable>.resources` beside the executable when there is one
    /// (the layout Foundation on Linux uses for a program's resources), otherwise the
    /// executable's own folder. Its `Info.plist`, if any, gives ``infoDictionary`` and
    /// ``bundleIdentifier``, from which ``AppContainer/main`` takes the app's identity.
    ///
    /// ```swift
    /// let sample = ResourceBundle.main.url(forResource: "sample-items", withExtension: "plist")
    /// print(ResourceBundle.main.bundleIdentifier ?? "no Info.plist")
    /// ```
    public static let main = ResourceBundle(url: resourceFolder(forExecutable: runningExecutable))

    /// The running program's executable file.
    static var runningExecutable: URL {
        Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "/")
    }

    /// `<executable>.resources` beside `executable` if that folder exists, else the
    /// executable's folder.
    static func resourceFolder(forExecutable executable: URL) -> URL {
        let folder = executable.deletingLastPathComponent()
        let resources = folder.appendingPathComponent(executable.lastPathComponent + ".resources", isDirectory: true)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: resources.path, isDirectory: &isDirectory)
        return exists && isDirectory.boolValue ? resources : folder
    }

    /// The resource folder. Corresponds to `Bundle.bundleURL`.
    public var bundleURL: URL { url }

    /// The resource folder's path. Corresponds to `Bundle.bundlePath`.
    public var bundlePath: String { url.path }

    /// The folder's `Info.plist` (binary, XML, OpenStep or JSON), or nil when there is
    /// none or it is not a dictionary. Corresponds to `Bundle.infoDictionary`.
    public var infoDictionary: [String: Any]? {
        guard let data = data(forResource: "Info", withExtension: "plist"),
            let (value, _) = try? PropertyListReader().propertyList(from: data)
        else { return nil }
        return value as? [String: Any]
    }

    /// `CFBundleIdentifier` from ``infoDictionary``. Corresponds to
    /// `Bundle.bundleIdentifier`.
    public var bundleIdentifier: String? { infoDictionary?["CFBundleIdentifier"] as? String }

    /// The path of resource `name.ext`, or nil when there is none. Corresponds to
    /// `Bundle.path(forResource:ofType:)`.
    public func path(forResource name: String?, ofType ext: String?) -> String? {
        url(forResource: name, withExtension: ext)?.path
    }
}
