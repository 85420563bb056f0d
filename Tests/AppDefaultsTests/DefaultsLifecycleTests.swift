import AppDefaults
import AppLifecycle
@_spi(Testing) import AppRuntime
import AppSandbox
import Foundation
import PropertyList
import Testing

/// User defaults attached to an application save when it leaves the foreground, long
/// before their write delay runs out.
@MainActor struct DefaultsLifecycleTests {
    @Test func attachedDefaultsSaveOnBackgroundAndTermination() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.defaults-lifecycle")
        defer { try? container.destroy() }
        var configuration = Defaults.Configuration()
        configuration.writeDelay = .seconds(3600)
        configuration.watchesFiles = false
        configuration.externalChangeInterval = nil
        configuration.arguments = []
        let defaults = Defaults(container: container, configuration: configuration)
        let app = Application(scheduler: ManualScheduler(), notificationCenter: NotificationCenter())
        let token = defaults.attach(to: app)
        app.launch()

        func saved() throws -> PropertyListValue? {
            let file = container.preferencesDirectory.appendingPathComponent("\(container.identifier).plist")
            guard FileManager.default.fileExists(atPath: file.path) else { return nil }
            return try PropertyListReader().read(Data(contentsOf: file))
        }

        defaults.set("by name", forKey: "sortOrder")
        #expect(try saved()?["sortOrder"] == nil, "saved before the write delay without a lifecycle event")
        app.send(.hidden)
        #expect(try saved()?["sortOrder"] == "by name")

        app.send(.visible)
        defaults.set(3, forKey: "rows")
        app.send(.terminate)
        #expect(try saved()?["rows"] == 3)
        token.cancel()
    }
}
