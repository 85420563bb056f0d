import Foundation
import Locking
import TestSupport
import Testing

@testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

/// Locks that cannot be trusted, held too long, or waited for by a cancelled task.
@Suite("Coordination under attack", .timeLimit(.minutes(1)))
struct CoordinationAttackTests {
    /// A folder of each test's own (a suite instance is made per test), removed after it.
    let folder = TemporaryDirectory("keepsake-tests")

    /// Live calls whose `fstat` lies about descriptors opened on names `matching`:
    /// another owner, or extra permission bits. CI runs as root, so a foreign owner
    /// cannot be made with chown; it is injected here.
    final class ForgedStatus: Sendable {
        let forged = Locked<Set<Int32>>([])
        let matching: @Sendable (String) -> Bool
        let change: @Sendable (inout FileStatus) -> Void

        init(matching: @escaping @Sendable (String) -> Bool, change: @escaping @Sendable (inout FileStatus) -> Void) {
            self.matching = matching
            self.change = change
        }

        var systemCalls: SystemCalls {
            var calls = SystemCalls.live
            calls.openat = { directory, path, flags, mode throws(Errno) in
                let fd = try SystemCalls.live.openat(directory, path, flags, mode)
                if self.matching(path) { self.forged.withLock { _ = $0.insert(fd) } }
                return fd
            }
            calls.close = { fd throws(Errno) in
                self.forged.withLock { _ = $0.remove(fd) }
                try SystemCalls.live.close(fd)
            }
            calls.fstat = { fd throws(Errno) in
                var status = try SystemCalls.live.fstat(fd)
                if self.forged.withLock({ $0.contains(fd) }) { self.change(&status) }
                return status
            }
            return calls
        }
    }

    static let forgeries: [(String, @Sendable (inout FileStatus) -> Void)] = [
        ("another owner", { $0.owner = UInt32(geteuid()) &+ 1 }),
        ("group-writable", { $0.permissions |= 0o020 }),
        ("world-writable", { $0.permissions |= 0o002 }),
    ]

    @Test("A lock file owned by someone else or writable by others is refused", arguments: [0, 1, 2])
    func untrustedLockFile(forgery: Int) throws {
        let (name, change) = Self.forgeries[forgery]
        let calls = ForgedStatus(matching: { $0.hasSuffix(".lock") }, change: change).systemCalls
        let coordinator = FileCoordinator(lockDirectory: nil, system: calls)
        var ran = false
        let error = #expect(throws: SandboxError.self, "\(name)") {
            try coordinator.coordinate(writingItemAt: folder.file("item")) { _ in ran = true }
        }
        #expect(error?.code == .untrustedLock, "\(name)")
        #expect(error?.path?.hasSuffix(".keepsake-item.lock") == true, "the error must name the lock file")
        #expect(!ran, "the accessor must not run without the lock")
    }

    @Test("A lock folder owned by someone else or writable by others is refused", arguments: [0, 1, 2])
    func untrustedLockFolder(forgery: Int) throws {
        let locks = folder.file("locks")
        try FileManager.default.createDirectory(at: locks, withIntermediateDirectories: true)
        let (name, change) = Self.forgeries[forgery]
        let calls = ForgedStatus(matching: { $0 == locks.path }, change: change).systemCalls
        let coordinator = FileCoordinator(lockDirectory: locks, system: calls)
        let error = #expect(throws: SandboxError.self, "\(name)") {
            try coordinator.coordinate(writingItemAt: folder.file("item")) { _ in }
        }
        #expect(error?.code == .untrustedLock, "\(name)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: locks.path) == [], "nothing created in it")
    }

    @Test("A lock folder that is a symbolic link is refused, and nothing is created where it points")
    func linkedLockFolder() throws {
        let elsewhere = folder.file("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: folder.file("locks"), withDestinationURL: elsewhere)
        let coordinator = FileCoordinator(lockDirectory: folder.file("locks"))
        let error = #expect(throws: SandboxError.self) {
            try coordinator.coordinate(writingItemAt: folder.file("item")) { _ in }
        }
        #expect(error?.code == .untrustedLock)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == [])
    }

    @Test("A lock file that is a symbolic link is refused and its target left alone")
    func linkedLockFile() throws {
        let target = folder.file("victim")
        try Data("keep".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(at: folder.file(".keepsake-item.lock"), withDestinationURL: target)
        let error = #expect(throws: SandboxError.self) {
            try FileCoordinator().coordinate(writingItemAt: folder.file("item")) { _ in }
        }
        #expect(error?.code == .untrustedLock)
        #expect(try Data(contentsOf: target) == Data("keep".utf8))
    }

    @Test("A lock held by someone else ends in timedOut, naming the lock, within the timeout")
    func heldLockTimesOut() throws {
        let item = folder.file("item")
        let release = holdWritingCoordination(of: item)
        defer { release.signal() }
        let clock = ContinuousClock()
        let started = clock.now
        let error = #expect(throws: SandboxError.self) {
            try FileCoordinator(timeout: .milliseconds(300)).coordinate(readingItemAt: item) { _ in }
        }
        let waited = started.duration(to: clock.now)
        #expect(error?.code == .timedOut)
        #expect(error?.path == folder.url.resolvingSymlinksInPath().path + "/.keepsake-item.lock")
        #expect(waited >= .milliseconds(300), "gave up before the timeout: \(waited)")
        #expect(waited < .seconds(3), "waited far past the timeout: \(waited)")
    }

    @Test("The async entry point waits off the cooperative pool and stops when its task is cancelled")
    func cancelledWaitStops() async throws {
        let item = folder.file("item")
        let release = holdWritingCoordination(of: item)
        defer { release.signal() }
        // The waiter's lock attempts, each refused while the other thread holds the
        // lock: the first refusal says it is waiting.
        let (refusals, refused) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        var system = SystemCalls.live
        let flock = system.flock
        system.flock = { fd, operation throws(Errno) in
            do throws(Errno) {
                try flock(fd, operation)
            } catch {
                if error.rawValue == EWOULDBLOCK { refused.yield() }
                throw error
            }
        }
        let coordinator = FileCoordinator(lockDirectory: nil, timeout: .seconds(30), system: system)
        let waiter = Task { try await coordinator.coordinate(with: [.writingIntent(with: item)]) { 1 } }
        for await _ in refusals { break }
        let clock = ContinuousClock()
        let started = clock.now
        waiter.cancel()
        let error = await #expect(throws: SandboxError.self) { try await waiter.value }
        #expect(error?.code == .cancelled)
        #expect(started.duration(to: clock.now) < .seconds(5), "cancellation must end the wait promptly")
    }

    @Test("The async entry point runs the accessor once the lock is free")
    func asyncCoordination() async throws {
        let value = try await FileCoordinator().coordinate(with: [.writingIntent(with: folder.file("item"))]) { 42 }
        #expect(value == 42)
    }

    /// Holds a writing coordination of `item` on a thread of its own until the returned
    /// semaphore is signalled; returns once it holds it.
    private func holdWritingCoordination(of item: URL) -> DispatchSemaphore {
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? FileCoordinator().coordinate(writingItemAt: item) { _ in
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        return release
    }
}
