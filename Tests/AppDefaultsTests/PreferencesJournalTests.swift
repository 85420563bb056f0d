@_spi(Journal) import AppSandbox
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
        fixture = TestContainers()
        preferences = try fixture.container().directory(.preferences)
    }

    static func plist(_ values: PropertyListDictionary) throws -> Data {
        Data(try PropertyListWriter.binary.write(.dictionary(values)))
    }

    /// A slot left by a process gone, holding `saves` stamped as given (in the record
    /// format of their stamps: numbered or not), then withdrawals of `withdrawn`.
    func leaveSlot(
        _ slot: Int, _ saves: [(PreferencesStamp, PropertyListDictionary)], withdrawn: [PreferencesStamp] = []
    ) throws {
        try preferences.create()
        let (journal, _) = try Journal.open(".keepsake-\(Self.domain).plist.\(slot).journal", in: preferences) { .none }
        var records: [Data] = []
        for (stamp, values) in saves {
            var record = Data([stamp.bootNumber == nil ? 1 : 2])
            record.append(stamp.encoded())
            record.append(try Self.plist(values))
            records.append(record)
        }
        for stamp in withdrawn { records.append(Data([3]) + stamp.encoded()) }
        for record in records { try journal.waitUntilDurableBlocking(journal.append(record)) }
        journal.close()
    }

    /// A stamp of an earlier boot numbered `number`, whose wall clock read `wallClock`.
    static func stamp(boot: String, number: UInt64, wallClock: Double) -> PreferencesStamp {
        PreferencesStamp(boot: boot, sinceBoot: 500, wallClock: wallClock, bootNumber: number)
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
        #expect(record.first == 2, "a save whose stamp carries the boot's number")
        let (stamp, plist) = try #require(PreferencesStamp.decode(record.dropFirst(), numbered: true))
        #expect(stamp.boot == PreferencesStamp.currentBoot)
        #expect(stamp.bootNumber == 1, "the domain's first boot")
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
        try leaveSlot(0, [(PreferencesStamp.now(bootNumber: 1), ["v": 1])])
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

    @Test(
        "Boots are ordered by their number, not the wall clock: a save made while the clock was a day slow is written back"
    )
    func aSlowClockInOneBootLosesNoSave() throws {
        try preferences.create()
        try preferences.write(try Self.plist(["v": 5]), to: "\(Self.domain).plist")
        // Boot 1 folded at day 2; boot 2, its clock a day behind, saved v = 7 and the
        // machine stopped before the plist reached the disk.
        let day: Double = 86_400
        try preferences.write(
            Self.stamp(boot: "boot-1", number: 1, wallClock: 2 * day).encoded(),
            to: ".keepsake-\(Self.domain).plist.folded")
        try preferences.write(
            Self.stamp(boot: "boot-2", number: 2, wallClock: 0).encoded(), to: ".keepsake-\(Self.domain).plist.boots")
        try leaveSlot(1, [(Self.stamp(boot: "boot-2", number: 2, wallClock: 1 * day), ["v": 7])])
        let defaults = try fixture.defaults()
        #expect(defaults.integer(forKey: "v") == 7, "the acknowledged save of boot 2 is back")
        #expect(try fixture.file(Self.domain) == ["v": 7])
        // This boot is the third, whatever its clock says.
        let boots = try preferences.contents(of: ".keepsake-\(Self.domain).plist.boots")
        #expect(PreferencesStamp.decodeWhole(boots)?.bootNumber == 3)
    }

    @Test("A plist folded in a later boot whose clock ran behind is not replaced by an earlier boot's save")
    func aFoldOfALaterBootWinsWhateverItsClock() throws {
        try preferences.create()
        try preferences.write(try Self.plist(["v": 9]), to: "\(Self.domain).plist")
        try preferences.write(
            Self.stamp(boot: "boot-3", number: 3, wallClock: 10).encoded(),
            to: ".keepsake-\(Self.domain).plist.folded")
        try preferences.write(
            Self.stamp(boot: "boot-3", number: 3, wallClock: 0).encoded(), to: ".keepsake-\(Self.domain).plist.boots")
        try leaveSlot(1, [(Self.stamp(boot: "boot-2", number: 2, wallClock: 1_000_000), ["v": 4])])
        let defaults = try fixture.defaults()
        #expect(defaults.integer(forKey: "v") == 9)
    }

    @Test("A withdrawn save (its plist was never written) is not written back")
    func withdrawnSaveIsNotReplayed() throws {
        try preferences.create()
        try preferences.write(try Self.plist(["v": 1]), to: "\(Self.domain).plist")
        let good = Self.stamp(boot: "boot-1", number: 1, wallClock: 100)
        let failed = Self.stamp(boot: "boot-1", number: 1, wallClock: 200)
        try leaveSlot(2, [(good, ["v": 2]), (failed, ["v": 3])], withdrawn: [failed])
        let defaults = try fixture.defaults()
        #expect(defaults.integer(forKey: "v") == 2, "the last save that wrote its plist")
    }

    @Test("A save whose plist could not be written is withdrawn in the journal: no replay can bring it back")
    func failedSaveIsWithdrawn() throws {
        let failNextRename = Locked(false)
        var calls = SystemCalls.live
        calls.renameat = { a, from, b, to throws(Errno) in
            let armed = failNextRename.withLock { armed in
                defer { armed = false }
                return armed
            }
            if armed { throw Errno(EIO) }
            try SystemCalls.live.renameat(a, from, b, to)
        }
        var configuration = fixture.configuration()
        configuration.fileSystem = FileSystem(system: calls)
        let defaults = try fixture.make(configuration)
        defaults.set(1, forKey: "v")
        try defaults.flush()
        defaults.set(2, forKey: "v")
        failNextRename.withLock { $0 = true }
        #expect(throws: DefaultsError.self) { try defaults.flush() }
        #expect(try fixture.file(Self.domain) == ["v": 1], "the plist was not replaced")
        let records = try #require(try Journal.records(Self.slot0, in: preferences, following: .none))
        #expect(records.count == 3, "two saves and the withdrawal of the second")
        let saves = PreferencesJournal.saves(in: records, of: Self.slot0)
        #expect(try saves.map { try PropertyListReader().read($0.1) } == [["v": 1]])
        try defaults.flush()
        #expect(try fixture.file(Self.domain) == ["v": 2], "the change is saved by the next save")
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
