import AppSandbox
import Foundation
import Locking
import PropertyList
import Testing

@testable import AppDefaults

#if canImport(Glibc)
import Glibc
#endif

/// Each process's journal of a domain: a save is durable there first, and the journals
/// a stopped machine leaves write back what its plist may have lost.
@Suite("Preferences journal", .serialized)
struct PreferencesJournalTests {
    static let domain = "com.example.Homepwner"
    static let slot0 = ".keepsake-com.example.Homepwner.plist.0.journal"

    let fixture: TestContainers
    let preferences: SandboxDirectory

    init() throws {
        fixture = try TestContainers()
        preferences = try fixture.container().directory(.preferences)
    }

    static func plist(_ values: PropertyListDictionary) throws -> Data {
        Data(try PropertyListWriter.binary.write(.dictionary(values)))
    }

    /// A slot left by a process gone, holding `saves` stamped as given.
    func leaveSlot(_ slot: Int, _ saves: [(PreferencesStamp, PropertyListDictionary)]) throws {
        try preferences.create()
        let (journal, _) = try Journal.open(".keepsake-\(Self.domain).plist.\(slot).journal", in: preferences) { .none }
        for (stamp, values) in saves {
            var record = Data([1])
            record.append(stamp.encoded())
            record.append(try Self.plist(values))
            try journal.waitUntilDurableBlocking(journal.append(record))
        }
        journal.close()
    }

    func slots() throws -> [String] {
        try preferences.internalNames().filter { $0.hasSuffix(".journal") }
    }

    static func earlierBoot(_ nanoseconds: UInt64) -> PreferencesStamp {
        PreferencesStamp(boot: "an-earlier-boot", sinceBoot: nanoseconds, wallClock: 1_000_000 + Double(nanoseconds))
    }

    @Test(
        "A flush is durable in the process's journal before the plist is replaced: the record holds the plist's bytes")
    func flushRecordsThePlist() throws {
        let defaults = try fixture.defaults()
        defaults.set("Bike", forKey: "lastItem")
        try defaults.flush()
        let records = try #require(try Journal.records(Self.slot0, in: preferences, following: .none))
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.first == 1)
        let (stamp, plist) = try #require(PreferencesStamp.decode(record.dropFirst()))
        #expect(stamp.boot == PreferencesStamp.currentBoot)
        #expect(plist == (try preferences.contents(of: "\(Self.domain).plist")))
    }

    @Test("The plist a stopped machine lost is written back from the latest record of the earlier boot, across slots")
    func earlierBootIsReplayed() throws {
        try preferences.create()
        try preferences.write(try Self.plist(["v": 1]), to: "\(Self.domain).plist")
        try leaveSlot(3, [(Self.earlierBoot(100), ["v": 2]), (Self.earlierBoot(300), ["v": 3])])
        try leaveSlot(7, [(Self.earlierBoot(200), ["v": 4])])
        let defaults = try fixture.defaults()
        #expect(defaults.integer(forKey: "v") == 3)
        #expect(try fixture.file(Self.domain) == ["v": 3])
        #expect(try slots().isEmpty, "replayed slots are removed")
    }

    @Test("Records of this boot are never replayed: the plist holds them already, or later saves")
    func thisBootIsNotReplayed() throws {
        try preferences.create()
        try preferences.write(try Self.plist(["v": 9]), to: "\(Self.domain).plist")
        try leaveSlot(0, [(PreferencesStamp.now(), ["v": 1])])
        let defaults = try fixture.defaults()
        #expect(defaults.integer(forKey: "v") == 9)
        #expect(try slots().isEmpty)
    }

    @Test("A plist made durable after the last record (its folded stamp) is not replaced by an older record")
    func foldedStampWins() throws {
        try preferences.create()
        try preferences.write(try Self.plist(["v": 5]), to: "\(Self.domain).plist")
        try preferences.write(Self.earlierBoot(300).encoded(), to: ".keepsake-\(Self.domain).plist.folded")
        try leaveSlot(2, [(Self.earlierBoot(100), ["v": 2])])
        let defaults = try fixture.defaults()
        #expect(defaults.integer(forKey: "v") == 5)
        #expect(try slots().isEmpty)
    }

    @Test("A replay kept from the first read (the lock held elsewhere) runs before the first save, which builds on it")
    func firstSaveBuildsOnTheReplay() throws {
        try preferences.create()
        try preferences.write(try Self.plist(["v": 0]), to: "\(Self.domain).plist")
        try leaveSlot(3, [(Self.earlierBoot(100), ["v": 1])])
        let lock = open(
            preferences.url.appendingPathComponent(".keepsake-\(Self.domain).plist.lock").path, O_RDONLY | O_CREAT,
            0o600)
        #expect(flock(lock, LOCK_EX) == 0)
        var configuration = fixture.configuration()
        configuration.lockTimeout = .milliseconds(50)
        let defaults = try fixture.make(configuration)
        #expect(defaults.integer(forKey: "v") == 0, "read as it is while the replay waits")
        #expect(fixture.log.all.contains { $0.code == .timedOut })
        close(lock)
        defaults.set(2, forKey: "w")
        try defaults.flush()
        #expect(try fixture.file(Self.domain) == ["v": 1, "w": 2], "the save merged onto the replayed plist")
    }

    @Test("A slot another live Defaults holds is never replayed or removed")
    func heldSlotsAreLeftAlone() throws {
        let first = try fixture.defaults()
        first.set(1, forKey: "v")
        try first.flush()
        let second = try fixture.defaults()
        #expect(second.integer(forKey: "v") == 1)
        second.set(2, forKey: "w")
        try second.flush()
        let held = try slots()
        #expect(held.count == 2, "each Defaults keeps a slot of its own: \(held)")
        #expect(try Journal.records(Self.slot0, in: preferences, following: .none)?.count == 1)
    }

    @Test("Entering the background folds the journal into the plist; releasing the Defaults removes its slot")
    func foldAndRelease() throws {
        do {
            let defaults = try fixture.defaults()
            defaults.set("a", forKey: "k")
            try defaults.flush()
            #expect(try Journal.records(Self.slot0, in: preferences, following: .none)?.count == 1)
            defaults.applicationDidEnterBackground()
            #expect(try Journal.records(Self.slot0, in: preferences, following: .none) == [], "folded")
            #expect(preferences.fileExists(".keepsake-\(Self.domain).plist.folded"))
            defaults.set("b", forKey: "k")
            try defaults.flush()
        }
        #expect(try slots().isEmpty, "a released Defaults folds and removes its slot")
        #expect(try fixture.file(Self.domain) == ["k": "b"])
    }

    @Test("A fold whose durable rewrite of the plist fails keeps the journal's record, and a later fold empties it")
    func failedFoldKeepsTheRecord() throws {
        let failing = Locked(false)
        var calls = SystemCalls.live
        calls.fsync = { fd throws(Errno) in
            if failing.withLock({ $0 }) { throw Errno(EIO) }
            try SystemCalls.live.fsync(fd)
        }
        var configuration = fixture.configuration()
        configuration.fileSystem = FileSystem(system: calls)
        let defaults = try fixture.make(configuration)
        defaults.set(1, forKey: "v")
        try defaults.flush()
        failing.withLock { $0 = true }
        let error = #expect(throws: DefaultsError.self) { try defaults.checkpoint() }
        #expect(error?.code == .fileSystem)
        failing.withLock { $0 = false }
        #expect(
            try Journal.records(Self.slot0, in: preferences, following: .none)?.count == 1,
            "the record stays until the plist is durable")
        try defaults.checkpoint()
        #expect(try Journal.records(Self.slot0, in: preferences, following: .none) == [])
        #expect(try fixture.file(Self.domain) == ["v": 1])
    }

    @Test("A journal past 256 KiB is folded by the save that passed it, a flush's or an update's")
    func largeJournalIsFolded() throws {
        let defaults = try fixture.defaults()
        let large = String(repeating: "x", count: 100_000)
        for round in 0..<3 {
            defaults.set("\(round)" + large, forKey: "big")
            try defaults.flush()
        }
        #expect(try Journal.records(Self.slot0, in: preferences, following: .none) == [], "folded by the third flush")
        for round in 0..<3 { try defaults.update("big") { _ in .string("\(round)" + large) } }
        #expect(try Journal.records(Self.slot0, in: preferences, following: .none) == [], "folded by the third update")
        #expect(try fixture.file(Self.domain) == ["big": .string("2" + large)])
    }

    @Test("Concurrent flushes of changes made before them share one save, and so one fsync")
    func concurrentFlushesShareAnFsync() throws {
        let fsyncs = Locked(0)
        var calls = SystemCalls.live
        calls.fsync = { fd throws(Errno) in
            fsyncs.withLock { $0 += 1 }
            try SystemCalls.live.fsync(fd)
        }
        var configuration = fixture.configuration()
        configuration.fileSystem = FileSystem(system: calls)
        let defaults = try fixture.make(configuration)
        defaults.set(0, forKey: "warm-up")
        try defaults.flush()  // opens the journal
        for index in 0..<8 { defaults.set(index, forKey: "k\(index)") }
        let before = fsyncs.withLock { $0 }
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if (try? defaults.flush()) == nil { failures.withLock { $0 += 1 } }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(fsyncs.withLock { $0 } - before == 1, "one save, one journal fsync, no fsync of the plist")
        #expect(try fixture.file(Self.domain)?.dictionaryValue?.count == 9)
    }
}
