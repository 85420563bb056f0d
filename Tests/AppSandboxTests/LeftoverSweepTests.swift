import Foundation
import TestSupport
import Testing

@testable import AppSandbox

/// Temporary files of killed saves are removed when their folder is next written.
@Suite("Leftover sweep")
struct LeftoverSweepTests {
    @Test("Writing into a folder removes this layer's old .tmp and .old files, and nothing else")
    func staleLeftoversRemovedOnWrite() throws {
        let folder = TemporaryDirectory("keepsake-tests")
        defer { folder.remove() }
        let container = AppContainer(identifier: "com.example.Sweep", url: folder.file("c"), system: .live)
        let preferences = container.directory(.preferences)
        try preferences.create()
        let path = container.preferencesDirectory.path
        let twoHoursAgo = Date().addingTimeInterval(-2 * 60 * 60)
        func plant(_ name: String, modified: Date) throws {
            let url = URL(fileURLWithPath: path + "/" + name)
            try Data("x".utf8).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
        }
        try plant(".keepsake-0123456789abcdef.tmp", modified: twoHoursAgo)  // killed save: removed
        try plant(".keepsake-fedcba9876543210.old", modified: twoHoursAgo)  // killed save: removed
        try plant(".keepsake-1111111111111111.tmp", modified: Date())  // a save under way: kept
        try plant(".keepsake-backup-exclusions", modified: twoHoursAgo)  // not a leftover: kept
        try plant("mine.tmp", modified: twoHoursAgo)  // the app's own file: kept
        try plant(".keepsake-com.example.Sweep.plist.lock", modified: twoHoursAgo)  // a lock: kept

        try preferences.write(Data("saved".utf8), to: "com.example.Sweep.plist")

        let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        #expect(
            names == [
                ".keepsake-1111111111111111.tmp", ".keepsake-backup-exclusions",
                ".keepsake-com.example.Sweep.plist.lock",
                "com.example.Sweep.plist", "mine.tmp",
            ])
    }
}
