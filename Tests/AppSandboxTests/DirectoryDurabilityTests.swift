import Foundation
import Locking
import TestSupport
import Testing

@testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

/// A new directory's entry is synced into its parent before anything is saved in it.
@Suite("Directory durability")
struct DirectoryDurabilityTests {
    /// A folder of each test's own (a suite instance is made per test), removed after it.
    let folder = TemporaryDirectory("keepsake-tests")

    /// The live calls, recording every `mkdirat` and `fsync` in order, by descriptor.
    final class CallLog: Sendable {
        enum Event: Equatable {
            case mkdir(parent: Int32, name: String)
            case fsync(Int32)
        }
        let events = Locked<[Event]>([])
        let failDirectorySync = Locked(false)

        var systemCalls: SystemCalls {
            var calls = SystemCalls.live
            calls.mkdirat = { parent, name, mode throws(Errno) in
                try SystemCalls.live.mkdirat(parent, name, mode)
                self.events.withLock { $0.append(.mkdir(parent: parent, name: name)) }
            }
            calls.fsync = { fd throws(Errno) in
                if self.failDirectorySync.withLock({ $0 }), (try? SystemCalls.live.fstat(fd))?.kind == .directory {
                    throw Errno(EIO)
                }
                try SystemCalls.live.fsync(fd)
                self.events.withLock { $0.append(.fsync(fd)) }
            }
            return calls
        }

        /// The names created whose parent was not synced right after.
        var unsyncedDirectories: [String] {
            let all = events.withLock { $0 }
            return all.enumerated().compactMap { index, event in
                guard case .mkdir(let parent, let name) = event else { return nil }
                return index + 1 < all.count && all[index + 1] == .fsync(parent) ? nil : name
            }
        }

        var createdNames: [String] {
            events.withLock { $0 }.compactMap { if case .mkdir(_, let name) = $0 { name } else { nil } }
        }
    }

    @Test(
        "Every directory a container makes (container, Library, Preferences, nested folders) is synced into its parent")
    func containerDirectoriesAreSynced() throws {
        let log = CallLog()
        let container = AppContainer(
            identifier: "com.example.Durable", url: folder.file("a/b/container"), system: log.systemCalls)
        try container.directory(.preferences).write(Data("first".utf8), to: "com.example.Durable.plist")
        try container.directory(.documents).createDirectory("images/thumbnails")
        try container.directory(.documents).write(Data("photo".utf8), to: "images/thumbnails/1.jpg")
        #expect(
            Set(log.createdNames).isSuperset(of: [
                "a", "b", "container", "Library", "Preferences", "Documents", "images", "thumbnails",
            ]),
            "the test must see the directories being made: \(log.createdNames)")
        #expect(log.unsyncedDirectories == [], "a new directory's parent must be fsynced right after mkdir")
    }

    @Test("FileSystem.createDirectory syncs the parent of every directory it makes")
    func fileSystemDirectoriesAreSynced() throws {
        let log = CallLog()
        try FileSystem(system: log.systemCalls).createDirectory(
            at: folder.file("x/y/z"), withIntermediateDirectories: true)
        #expect(log.createdNames == ["x", "y", "z"])
        #expect(log.unsyncedDirectories == [])
    }

    @Test("A failed parent fsync after mkdir is an I/O error, not success")
    func failedParentSyncIsReported() throws {
        let log = CallLog()
        log.failDirectorySync.withLock { $0 = true }
        let error = #expect(throws: SandboxError.self) {
            try FileSystem(system: log.systemCalls).createDirectory(at: folder.file("new"))
        }
        #expect(error?.code == .ioError)
    }
}
