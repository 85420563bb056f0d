import Foundation
import TestSupport
import Testing

@testable import AppSandbox

@Suite("Container and directories")
struct ContainerTests {
    /// A folder of each test's own (a suite instance is made per test), removed after it.
    let folder = TemporaryDirectory("keepsake-tests")

    @Test("The default location follows KEEPSAKE_CONTAINERS, then XDG_DATA_HOME, then HOME")
    func defaultLocation() throws {
        let id = "com.example.Homepwner"
        let explicit = try AppContainer(
            identifier: id, environment: ["KEEPSAKE_CONTAINERS": "/srv/containers", "XDG_DATA_HOME": "/x"])
        #expect(explicit.url.path == "/srv/containers/com.example.Homepwner")
        let xdg = try AppContainer(identifier: id, environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"])
        #expect(xdg.url.path == "/data/keepsake/containers/com.example.Homepwner")
        let home = try AppContainer(
            identifier: id, environment: ["XDG_DATA_HOME": "relative/ignored", "HOME": "/home/u"])
        #expect(home.url.path == "/home/u/.local/share/keepsake/containers/com.example.Homepwner")
        let parameter = try AppContainer(
            identifier: id, containersDirectory: URL(fileURLWithPath: "/opt/c"),
            environment: ["KEEPSAKE_CONTAINERS": "/srv"]
        )
        #expect(parameter.url.path == "/opt/c/com.example.Homepwner")
    }

    @Test(
        "Directories sit where iOS puts them",
        arguments: [
            (AppContainer.Directory.documents, "Documents"),
            (.library, "Library"),
            (.caches, "Library/Caches"),
            (.preferences, "Library/Preferences"),
            (.applicationSupport, "Library/Application Support"),
            (.temporary, "tmp"),
        ])
    func layout(kind: AppContainer.Directory, relative: String) throws {
        let container = try AppContainer(identifier: "com.example.App", environment: ["KEEPSAKE_CONTAINERS": "/c"])
        #expect(container.url(for: kind).path == "/c/com.example.App/" + relative)
    }

    @Test("urls(for:in:) answers like FileManager and creates the directory")
    func searchPathLookup() throws {
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        try FileManager.default.removeItem(at: container.documentsDirectory)
        let urls = container.urls(for: .documentDirectory, in: .userDomainMask)
        #expect(urls == [container.documentsDirectory])
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: container.documentsDirectory.path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(container.urls(for: .cachesDirectory, in: .userDomainMask) == [container.cachesDirectory])
        #expect(
            container.urls(for: .applicationSupportDirectory, in: .userDomainMask) == [
                container.applicationSupportDirectory
            ])
        #expect(container.urls(for: .desktopDirectory, in: .userDomainMask).isEmpty)
    }

    @Test(
        "url(for:in:appropriateFor:create:) answers like FileManager: creates on request, refuses what a container lacks"
    )
    func searchPathURL() throws {
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        try FileManager.default.removeItem(at: container.applicationSupportDirectory)
        let lazy = try container.url(
            for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: false)
        #expect(lazy == container.url(for: .applicationSupport))
        #expect(!FileManager.default.fileExists(atPath: lazy.path), "create: false must not create")
        let made = try container.url(
            for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        #expect(made == lazy && FileManager.default.fileExists(atPath: made.path))
        #expect(
            try container.url(for: .documentDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
                == container.documentsDirectory)

        let error = #expect(throws: SandboxError.self) {
            try container.url(for: .desktopDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        }
        #expect(error?.code == .unsupported)

        let target = container.documentsDirectory.appendingPathComponent("items.archive")
        let first = try container.url(
            for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor: target, create: true)
        let second = try container.url(
            for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor: target, create: true)
        #expect(first != second, "each replacement folder is new")
        for folder in [first, second] {
            #expect(folder.deletingLastPathComponent().standardizedFileURL.path == container.temporaryDirectory.path)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test("A temporary container is private, complete and removable")
    func temporaryContainer() throws {
        let first = try AppContainer.temporary()
        let second = try AppContainer.temporary()
        #expect(first.url != second.url)
        #expect(first.url.path.hasPrefix(FileManager.default.temporaryDirectory.standardizedFileURL.path))
        for kind in AppContainer.Directory.allCases {
            #expect(FileManager.default.fileExists(atPath: first.url(for: kind).path))
        }
        try first.destroy()
        try second.destroy()
        #expect(!FileManager.default.fileExists(atPath: first.url.path))
        try first.destroy()  // already gone: not an error
    }

    @Test("Directories are created on first use")
    func createdOnDemand() throws {
        let container = try AppContainer(
            identifier: "com.example.Lazy", containersDirectory: folder.file("deep/containers"))
        #expect(!FileManager.default.fileExists(atPath: container.url.path))
        try container.directory(.applicationSupport).write(Data("x".utf8), to: "state")
        #expect(
            try Data(contentsOf: container.applicationSupportDirectory.appendingPathComponent("state"))
                == Data("x".utf8))
    }

    /// The books write with `try? data.write(to:)` into the folder they are given: in a
    /// container no one has used, the folder must already be there, or nothing is stored
    /// and nothing said.
    @Test(
        "Each directory accessor of a new container gives a folder a plain write lands in",
        arguments: [
            (\AppContainer.documentsDirectory, "Documents"),
            (\.libraryDirectory, "Library"),
            (\.cachesDirectory, "Library/Caches"),
            (\.preferencesDirectory, "Library/Preferences"),
            (\.applicationSupportDirectory, "Library/Application Support"),
            (\.temporaryDirectory, "tmp"),
        ] as [(KeyPath<AppContainer, URL> & Sendable, String)])
    func accessorsCreateTheirDirectory(accessor: KeyPath<AppContainer, URL> & Sendable, relative: String) throws {
        let container = try AppContainer(identifier: "com.example.New", containersDirectory: folder.file("containers"))
        #expect(!FileManager.default.fileExists(atPath: container.url.path))
        let directory = container[keyPath: accessor]
        #expect(directory.path == container.url.path + "/" + relative)
        try Data("saved".utf8).write(to: directory.appendingPathComponent("item"))
        #expect(try Data(contentsOf: container.url.appendingPathComponent(relative + "/item")) == Data("saved".utf8))
    }

    @Test("A new main container is created and announced with its path and where its name came from")
    func newContainerIsAnnounced() throws {
        let container = try AppContainer(identifier: "renamed-tool", containersDirectory: folder.file("containers"))
        var announced: [String] = []
        container.announceIfNew(namedAfter: "the executable's name") { announced.append($0) }
        #expect(
            announced == [
                "keepsake: new app container renamed-tool (from the executable's name) at \(container.url.path)"
            ])
        for kind in AppContainer.Directory.allCases {
            #expect(FileManager.default.fileExists(atPath: container.url(for: kind).path))
        }
        container.announceIfNew(namedAfter: "the executable's name") { announced.append($0) }
        #expect(announced.count == 1, "an existing container is opened without a word")
    }

    @Test(
        "Identifiers are labels of letters, digits and hyphens between dots",
        arguments: [
            "", "com..example", ".com.example", "com.example.", "com/example.app", "../x.y", "com.ex ample",
            "com.exämple.app", "com.example.app\u{0}", String(repeating: "a.", count: 130) + "b",
        ])
    func invalidIdentifiers(identifier: String) {
        let error = #expect(throws: SandboxError.self) {
            try AppContainer(identifier: identifier, environment: ["KEEPSAKE_CONTAINERS": "/c"])
        }
        #expect(error?.code == .invalidName)
    }

    @Test(
        "Valid identifiers",
        arguments: [
            "com.example.Homepwner", "org.keepsake.food-tracker", "io.a.b.c.d", "com.example2.App3", "homepwner",
        ])
    func validIdentifiers(identifier: String) throws {
        #expect(
            try AppContainer(identifier: identifier, environment: ["KEEPSAKE_CONTAINERS": "/c"]).identifier
                == identifier)
    }
}
