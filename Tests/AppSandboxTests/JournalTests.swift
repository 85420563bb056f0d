import Foundation
import Locking
import Testing

@_spi(Journal) @testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

/// A container whose system calls can fail once, by name, and that counts `fsync`s.
final class JournalBench: Sendable {
    enum Call: Hashable, Sendable { case write, fsync, ftruncate, rename }
    private final class Switches: Sendable {
        let armed = Locked<[Call: Int32]>([:])
        let fsyncs = Locked(0)
        let fsyncDelay = Locked(Duration.zero)
    }
    let container: AppContainer
    private let switches = Switches()

    init() throws {
        let base = try AppContainer.temporary(identifier: "org.keepsake.journal-tests")
        let live = SystemCalls.live
        var calls = live
        let switches = switches
        @Sendable func fire(_ call: Call) throws(Errno) {
            if let code = switches.armed.withLock({ $0.removeValue(forKey: call) }) { throw Errno(code) }
        }
        calls.write = { fd, buffer throws(Errno) in
            try fire(.write)
            return try live.write(fd, buffer)
        }
        calls.fsync = { fd throws(Errno) in
            try fire(.fsync)
            switches.fsyncs.withLock { $0 += 1 }
            let delay = switches.fsyncDelay.withLock { $0 }
            if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18) }
            try live.fsync(fd)
        }
        calls.ftruncate = { fd, length throws(Errno) in
            try fire(.ftruncate)
            try live.ftruncate(fd, length)
        }
        calls.renameat = { a, from, b, to throws(Errno) in
            try fire(.rename)
            try live.renameat(a, from, b, to)
        }
        container = AppContainer(identifier: base.identifier, url: base.url, system: calls)
    }

    /// Makes the next `call` fail with `errno`.
    func fail(_ call: Call, with errno: Int32) { switches.armed.withLock { $0[call] = errno } }
    var fsyncCount: Int { switches.fsyncs.withLock { $0 } }
    /// Makes every `fsync` take at least `delay` (under a second), as a disk's does.
    func slowFsyncs(by delay: Duration) { switches.fsyncDelay.withLock { $0 = delay } }
    var documents: SandboxDirectory { container.directory(.documents) }

    /// Opens the journal, waiting a little for one just released: its queue may still
    /// be finishing the block that resumed the test.
    func open(following digest: CheckpointDigest = .none, lockTimeout: Duration = .seconds(5)) throws -> (
        Journal, JournalRecovery
    ) {
        try Journal.open("j", in: documents, lockTimeout: lockTimeout) { digest }
    }

    func bytes() throws -> [UInt8] { [UInt8](try documents.contents(of: "j")) }

    /// What a reopen would replay, read while the journal is still open.
    func replayable(following digest: CheckpointDigest = .none) throws -> [String] {
        let scan = JournalFormat.scan(try bytes())
        #expect(scan.checkpoint == digest, "the journal names another checkpoint")
        return scan.records.map { String(decoding: $0.payload, as: UTF8.self) }
    }
    func destroy() { try? container.destroy() }
}

private func payload(_ text: String) -> Data { Data(text.utf8) }
private func texts(_ records: [Data]) -> [String] { records.map { String(decoding: $0, as: UTF8.self) } }

@Suite struct JournalTests {
    @Test("Records acknowledged as durable are replayed after the journal is reopened")
    func acknowledgedRecordsAreReplayed() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        do {
            let (journal, recovery) = try bench.open()
            #expect(recovery == JournalRecovery(), "a new journal has nothing to replay")
            for text in ["one", "two", "three"] {
                try await journal.waitUntilDurable(try journal.append(payload(text)))
            }
        }
        let (_, recovery) = try bench.open()
        #expect(texts(recovery.records) == ["one", "two", "three"])
        #expect(recovery.tornBytes == 0 && recovery.keptAside.isEmpty)
    }

    @Test("Concurrent appends share fsyncs: group commit")
    func concurrentAppendsShareFsyncs() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        let (journal, _) = try bench.open()
        let before = bench.fsyncCount
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { try await journal.waitUntilDurable(try journal.append(payload("r\(index)"))) }
            }
            try await group.waitForAll()
        }
        let fsyncs = bench.fsyncCount - before
        #expect(fsyncs >= 1 && fsyncs < 200, "200 concurrent appends took \(fsyncs) fsyncs; they must share them")
        #expect(Set(try bench.replayable()) == Set((0..<200).map { "r\($0)" }))
    }

    @Test("Threads that wait blocking share fsyncs too: four writers, 50 records each, a 1 ms fsync")
    func blockingWritersShareFsyncs() throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        let (journal, _) = try bench.open()
        bench.slowFsyncs(by: .milliseconds(1))
        let before = bench.fsyncCount
        let failures = Locked(0)
        let finished = DispatchGroup()
        for writer in 0..<4 {
            finished.enter()
            Thread {
                defer { finished.leave() }
                for index in 0..<50 {
                    do {
                        try journal.waitUntilDurableBlocking(try journal.append(payload("w\(writer)-\(index)")))
                    } catch {
                        failures.withLock { $0 += 1 }
                    }
                }
            }.start()
        }
        finished.wait()
        let fsyncs = bench.fsyncCount - before
        #expect(failures.withLock { $0 } == 0)
        // Each writer waits for its record before it appends the next, so at most four
        // records can share an fsync: 50 is the floor, 200 is none shared.
        #expect(fsyncs <= 100, "200 records from four waiting threads took \(fsyncs) fsyncs")
        #expect(try bench.replayable().count == 200)
    }

    @Test("A synchronous wait returns with the record durable")
    func blockingWait() throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        let (journal, _) = try bench.open()
        let before = bench.fsyncCount
        try journal.waitUntilDurableBlocking(try journal.append(payload("sync")))
        #expect(bench.fsyncCount == before + 1)
        #expect(try bench.replayable() == ["sync"])
    }

    @Test("A torn last record is dropped, reported, and cut off the file")
    func tornTailIsDropped() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        do {
            let (journal, _) = try bench.open()
            try await journal.waitUntilDurable(try journal.append(payload("whole")))
            try await journal.waitUntilDurable(try journal.append(payload("torn record")))
        }
        let whole = try bench.bytes()
        // A crash in the middle of the second record's write: its last 5 bytes never landed.
        try bench.documents.write(Data(whole.dropLast(5)), to: "j")
        let (journal, recovery) = try bench.open()
        #expect(texts(recovery.records) == ["whole"])
        #expect(recovery.tornBytes == JournalFormat.recordHeaderSize + 11 - 5)
        #expect(recovery.keptAside.isEmpty, "a torn tail is not corruption")
        try await journal.waitUntilDurable(try journal.append(payload("after")))
        #expect(try bench.replayable() == ["whole", "after"], "appends go on after the cut")
    }

    @Test("A damaged record in the middle is kept aside, and the records after it are replayed")
    func corruptMiddleRecordIsKeptAside() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        do {
            let (journal, _) = try bench.open()
            for text in ["first", "second", "third"] {
                try await journal.waitUntilDurable(try journal.append(payload(text)))
            }
        }
        var bytes = try bench.bytes()
        let second = JournalFormat.headerSize + JournalFormat.recordHeaderSize + 5
        bytes[second + JournalFormat.recordHeaderSize + 2] ^= 0x40  // "second" becomes "sesond"
        try bench.documents.write(Data(bytes), to: "j")

        let (_, recovery) = try bench.open()
        #expect(texts(recovery.records) == ["first", "third"])
        #expect(recovery.keptAside.count == 1)
        let aside = try #require(recovery.keptAside.first)
        let kept = [UInt8](try bench.documents.contents(of: aside))
        #expect(kept == Array(bytes[second..<second + JournalFormat.recordHeaderSize + 6]), "the damaged bytes, whole")
        let again = try bench.open().1
        #expect(texts(again.records) == ["first", "third"] && again.keptAside.isEmpty, "kept aside once, not again")
    }

    @Test("A damaged byte anywhere in the header costs nothing: the other copy names the checkpoint")
    func oneDamagedHeaderByteLosesNoRecord() async throws {
        let digest = CheckpointDigest(of: Data("the checkpoint".utf8))
        for position in 0..<JournalFormat.headerSize {
            let bench = try JournalBench()
            defer { bench.destroy() }
            do {
                let (journal, _) = try bench.open(following: digest)
                for text in ["a", "b", "c"] { try await journal.waitUntilDurable(try journal.append(payload(text))) }
            }
            var bytes = try bench.bytes()
            bytes[position] ^= 0x10
            try bench.documents.write(Data(bytes), to: "j")
            let (journal, recovery) = try bench.open(following: digest)
            #expect(texts(recovery.records) == ["a", "b", "c"], "byte \(position) of the header")
            #expect(recovery.keptAside.isEmpty)
            // The header is whole again, so a second damaged byte costs nothing either.
            #expect(
                try bench.bytes().prefix(JournalFormat.headerSize).elementsEqual(
                    JournalFormat.header(following: digest)))
            try await journal.waitUntilDurable(try journal.append(payload("d")))
            #expect(try bench.replayable(following: digest) == ["a", "b", "c", "d"])
        }
    }

    @Test("A header damaged in both copies, with records after it, refuses to open and changes nothing")
    func headerDamagedBeyondRepairRefusesToOpen() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        do {
            let (journal, _) = try bench.open()
            try await journal.waitUntilDurable(try journal.append(payload("acknowledged")))
        }
        var bytes = try bench.bytes()
        bytes[9] ^= 1  // the first copy
        bytes[25] ^= 1  // the second copy
        try bench.documents.write(Data(bytes), to: "j")
        let error = #expect(throws: SandboxError.self) { try bench.open() }
        #expect(error?.code == .damagedJournal)
        #expect(error?.message.contains("1 records") == true && error?.message.contains("mv '") == true)
        #expect(try bench.bytes() == bytes, "the file is left as it is")
    }

    @Test("A damaged header with no record after it is kept aside, and an empty journal starts")
    func damagedHeaderWithoutRecordsIsKeptAside() throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        _ = try bench.open()
        var bytes = try bench.bytes()
        bytes[9] ^= 1
        bytes[25] ^= 1
        try bench.documents.write(Data(bytes), to: "j")
        let (_, recovery) = try bench.open()
        #expect(recovery.records.isEmpty)
        let aside = try #require(recovery.keptAside.first)
        #expect([UInt8](try bench.documents.contents(of: aside)) == bytes)
    }

    @Test("A journal in the 0.2.0 format is replayed and rewritten in the format with two header copies")
    func journalOfTheFirstFormatIsReadAndRewritten() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        let digest = CheckpointDigest(of: Data("the checkpoint".utf8))
        // The 0.2.0 header: "KSJOURN1", length, checksum, CRC-32C of those 20 bytes.
        var header = Array("KSJOURN1".utf8)
        withUnsafeBytes(of: digest.length.littleEndian) { header += $0 }
        withUnsafeBytes(of: digest.checksum.littleEndian) { header += $0 }
        let crc = header.withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: crc.littleEndian) { header += $0 }
        var bytes = header
        JournalFormat.appendRecord(sequence: 1, payload: payload("old"), to: &bytes)
        try bench.documents.write(Data(bytes), to: "j")
        let (journal, recovery) = try bench.open(following: digest)
        #expect(texts(recovery.records) == ["old"])
        #expect(
            try bench.bytes().prefix(JournalFormat.headerSize).elementsEqual(JournalFormat.header(following: digest)))
        try await journal.waitUntilDurable(try journal.append(payload("new")))
        #expect(try bench.replayable(following: digest) == ["old", "new"])
        // A damaged byte in an old header cannot be repaired: no checkpoint, one record (which opening refuses).
        bytes[12] ^= 1
        try bench.documents.write(Data(bytes), to: "old")
        #expect(JournalFormat.scan(bytes).checkpoint == nil && JournalFormat.scan(bytes).records.count == 1)
    }

    @Test("A checkpoint starts a fresh journal naming it; records after it go there")
    func checkpointRestartsTheJournal() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        let state = Data("state after a and b".utf8)
        let (journal, _) = try bench.open()
        _ = try journal.append(payload("a"))
        _ = try journal.append(payload("b"))
        let checkpoint = journal.checkpoint { () throws(SandboxError) in
            try bench.documents.write(state, to: "checkpoint")
            return CheckpointDigest(of: state)
        }
        let after = try journal.append(payload("c"))
        try await journal.waitUntilDurable(checkpoint)
        try await journal.waitUntilDurable(after)
        #expect(journal.checkpointDigest == CheckpointDigest(of: state))
        #expect(
            try bench.replayable(following: CheckpointDigest(of: state)) == ["c"], "only what came after the checkpoint"
        )
    }

    @Test("A crash between writing a checkpoint and restarting the journal: the old records are not replayed twice")
    func supersededJournalIsNotReplayed() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        let state = Data("folded".utf8)
        do {
            let (journal, _) = try bench.open()
            try await journal.waitUntilDurable(try journal.append(payload("a")))
            let checkpoint = journal.checkpoint { () throws(SandboxError) in
                try bench.documents.write(state, to: "checkpoint")
                // The journal's own durable replace comes next; its rename fails, as
                // a crash at that instant would leave things.
                bench.fail(.rename, with: EIO)
                return CheckpointDigest(of: state)
            }
            try await journal.waitUntilDurable(checkpoint)
        }
        let (_, recovery) = try bench.open(following: CheckpointDigest(of: state))
        #expect(recovery.records.isEmpty)
        #expect(recovery.supersededRecords == 1)
    }

    @Test(
        "A failed step fails its records and every later one until the file is cut back; a reopen finds exactly what was acknowledged",
        arguments: [(JournalBench.Call.write, ENOSPC), (.write, EIO), (.fsync, EIO), (.fsync, ENOSPC)])
    func failedStepLeavesExactlyTheAcknowledged(call: JournalBench.Call, errno: Int32) async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        let (journal, _) = try bench.open()
        try await journal.waitUntilDurable(try journal.append(payload("kept")))
        bench.fail(call, with: errno)
        let failed = try journal.append(payload("lost"))
        let error = await #expect(throws: SandboxError.self) { try await journal.waitUntilDurable(failed) }
        #expect(error?.errno == errno)
        let later = try journal.append(payload("after the failure"))
        await #expect(throws: SandboxError.self, "nothing is written after a record that may be missing") {
            try await journal.waitUntilDurable(later)
        }
        try await journal.waitUntilDurable(journal.discardUndurable())
        try await journal.waitUntilDurable(try journal.append(payload("recovered")))
        #expect(try bench.replayable() == ["kept", "recovered"])
    }

    @Test("A failed truncate is made up for by writing the durable part anew: the unacknowledged record is gone")
    func failedTruncateRewrites() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        let (journal, _) = try bench.open()
        try await journal.waitUntilDurable(try journal.append(payload("kept")))
        bench.fail(.fsync, with: EIO)
        await #expect(throws: SandboxError.self) {
            try await journal.waitUntilDurable(try journal.append(payload("x")))
        }
        bench.fail(.ftruncate, with: EIO)
        try await journal.waitUntilDurable(journal.discardUndurable())
        #expect(try bench.replayable() == ["kept"], "a record never acknowledged would come back")
        try await journal.waitUntilDurable(try journal.append(payload("after")))
        #expect(try bench.replayable() == ["kept", "after"])
    }

    @Test("A cut-back that fails both ways leaves the journal failing; a checkpoint heals it")
    func failedTruncateThenCheckpoint() async throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        let (journal, _) = try bench.open()
        bench.fail(.fsync, with: EIO)
        await #expect(throws: SandboxError.self) {
            try await journal.waitUntilDurable(try journal.append(payload("x")))
        }
        bench.fail(.ftruncate, with: EIO)
        bench.fail(.write, with: EIO)  // the durable part's new copy
        await #expect(throws: SandboxError.self) { try await journal.waitUntilDurable(journal.discardUndurable()) }
        await #expect(throws: SandboxError.self) {
            try await journal.waitUntilDurable(try journal.append(payload("y")))
        }
        let state = Data("whole state".utf8)
        try await journal.waitUntilDurable(
            journal.checkpoint { () throws(SandboxError) in
                try bench.documents.write(state, to: "checkpoint")
                return CheckpointDigest(of: state)
            })
        try await journal.waitUntilDurable(try journal.append(payload("z")))
        #expect(try bench.replayable(following: CheckpointDigest(of: state)) == ["z"])
    }

    @Test("A second journal on the same file is refused while the first is open, and allowed after")
    func oneJournalPerFile() throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        do {
            let (journal, _) = try bench.open()
            let error = #expect(throws: SandboxError.self) { try bench.open(lockTimeout: .zero) }
            #expect(error?.code == .timedOut)
            _ = journal
        }
        _ = try bench.open()
    }

    @Test("A journal of magics and lengths reaching its end is read in bounded time, the rest kept aside")
    func adversarialJournalIsCheap() throws {
        let bench = try JournalBench()
        defer { bench.destroy() }
        do { _ = try bench.open() }
        // 4 MiB of record headers, each with the length that reaches the end of the
        // file: checking every one would read 400 GiB.
        var bytes = try bench.bytes()
        let start = bytes.count
        let count = (4 << 20) / JournalFormat.recordHeaderSize
        let end = start + count * JournalFormat.recordHeaderSize
        for index in 0..<count {
            let payloadStart = start + (index + 1) * JournalFormat.recordHeaderSize
            bytes += JournalFormat.recordMagic
            withUnsafeBytes(of: UInt32(end - payloadStart).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt64(2).littleEndian) { bytes += $0 }
            bytes += [0, 0, 0, 0]
        }
        try bench.documents.write(Data(bytes), to: "j")
        let clock = ContinuousClock.now
        let (_, recovery) = try bench.open()
        let took = ContinuousClock.now - clock
        #expect(took < .seconds(10), "opening took \(took)")
        #expect(recovery.records.isEmpty)
        #expect(recovery.keptAside.count == 1, "the damaged rest is kept, not dropped")
        #expect(recovery.tornBytes == 0)
    }

    @Test("CRC-32C matches the standard check value")
    func crcCheckValue() {
        // "123456789" → 0xE3069283, the check value of CRC-32C (RFC 3720, B.4).
        let value = Array("123456789".utf8).withUnsafeBytes { CRC32C.checksum($0) }
        #expect(value == 0xE306_9283)
        var long = [UInt8](repeating: 0, count: 1000)
        for index in long.indices { long[index] = UInt8(truncatingIfNeeded: index &* 31) }
        var split = CRC32C()
        long.withUnsafeBytes {
            split.update(UnsafeRawBufferPointer(rebasing: $0[0..<333]))
            split.update(UnsafeRawBufferPointer(rebasing: $0[333...]))
        }
        #expect(split.value == long.withUnsafeBytes { CRC32C.checksum($0) }, "chunked and whole agree")
    }
}
