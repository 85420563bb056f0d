public import Foundation

/// The package's executables (commands, apps and test helpers), which SwiftPM builds
/// into the same products folder as the test bundle.
public enum BuiltProducts {
    /// The built executable called `name`, or nil when it was not built.
    public static func executable(named name: String) -> URL? {
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL)
        folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for folder in folders {
            // The bundle may sit a level or two below the products folder.
            var url = folder
            for _ in 0..<3 {
                let candidate = url.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                url.deleteLastPathComponent()
            }
        }
        return nil
    }
}
