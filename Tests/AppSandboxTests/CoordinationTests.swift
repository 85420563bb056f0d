import Foundation
import Locking
import TestSupport
import Testing

@testable import AppSandbox

@Suite("File coordination")
struct CoordinationTests {
    /// A folder of each test's own (a suite instance is made per test), removed after it.
    let folder = TemporaryDirectory("keepsake-tests")

    /// Reads the counter as the helper writes it: `count=N` and N % 997 filler bytes.
    static func count(in url: URL) throws -> Int? {
        let text = try String(contentsOf: url, encoding: .utf8)
        guard text.hasPrefix("count="), let newline = text.firstIndex(of: "\n"),
            let count = Int(text[text.index(text.startIndex, offsetBy: 6)..<newline])
        else { return nil }
        return text[text.index(after: newline)...].utf8.count == count % 997 ? count : nil
    }

    @Test(
        "Two processes incrementing one counter through the coordinator lose no update and tear nothing",
        .enabled(if: Helper.url != nil, "SandboxTestHelper is not built next to the tests"),
        .timeLimit(.minutes(2))
    )
    func twoProcesses() throws {
        let counter = folder.file("counter.txt")
        let rounds = 60
        let arguments = ["increment", counter.path, String(rounds), folder.file("locks").path]
        let results = Locked<[(Int32, String)]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let result = (try? Helper.run(arguments)) ?? (-1, "could not start")
            results.withLock { $0.append(result) }
        }
        for (status, output) in results.withLock({ $0 }) {
            #expect(status == 0, "helper failed: \(output)")
        }
        #expect(try Self.count(in: counter) == 2 * rounds, "every increment of both processes must survive")
    }

    @Test("Threads of one process exclude each other", .timeLimit(.minutes(1)))
    func threads() throws {
        let coordinator = FileCoordinator(lockDirectory: folder.file("locks"))
        let counter = folder.file("counter")
        // The read-modify-write is deliberately slow-ish (read, then write a new
        // file), so without exclusion the threads would interleave and lose updates.
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<10 {
                do {
                    try coordinator.coordinate(writingItemAt: counter) { url in
                        let current = (try? FileSystem.default.string(contentsOf: url)).flatMap { Int($0) } ?? 0
                        try FileSystem.default.write(String(current + 1), to: url)
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(try FileSystem.default.string(contentsOf: counter) == "40")
    }

    @Test("Readers share a lock", .timeLimit(.minutes(1)))
    func readersShare() throws {
        let coordinator = FileCoordinator(lockDirectory: folder.file("locks"))
        let item = folder.file("shared")
        // A reader that holds its lock while a second reader takes one proves they
        // share: were reading exclusive, the nested read would never return.
        let nested = try coordinator.coordinate(readingItemAt: item) { _ in
            try DispatchQueue.global().sync {
                try coordinator.coordinate(readingItemAt: item) { _ in "inner read" }
            }
        }
        #expect(nested == "inner read")
    }

    @Test("Several intents in opposite orders do not deadlock", .timeLimit(.minutes(1)))
    func multipleIntents() throws {
        let coordinator = FileCoordinator(lockDirectory: folder.file("locks"))
        let first = folder.file("first")
        let second = folder.file("second")
        let inside = Locked(0)
        let overlaps = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let intents: [FileAccessIntent] =
                index == 0
                ? [.writingIntent(with: first), .writingIntent(with: second)]
                : [.writingIntent(with: second), .readingIntent(with: first), .writingIntent(with: first)]
            for _ in 0..<2000 {
                try? coordinator.coordinate(with: intents) {
                    let others = inside.withLock { value in
                        defer { value += 1 }
                        return value
                    }
                    // Stay inside a while so that, without exclusion, the threads would meet.
                    for _ in 0..<200 where inside.withLock({ $0 }) != 1 { overlaps.withLock { $0 += 1 } }
                    if others != 0 { overlaps.withLock { $0 += 1 } }
                    inside.withLock { $0 -= 1 }
                }
            }
        }
        #expect(overlaps.withLock { $0 } == 0, "two writers held the same items at once")
    }

    @Test("A path through a linked folder shares the lock of the real path")
    func canonicalLockNames() throws {
        try FileManager.default.createDirectory(at: folder.file("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: folder.file("alias"), withDestinationURL: folder.file("real"))
        let coordinator = FileCoordinator(lockDirectory: folder.file("locks"))
        #expect(
            coordinator.lockName(for: folder.file("alias/item")) == coordinator.lockName(for: folder.file("real/item")))
        #expect(
            coordinator.lockName(for: folder.file("real/item")) != coordinator.lockName(for: folder.file("real/other")))
    }

    @Test("Apple's error-pointer shapes: the accessor runs when the lock is free, the error is set when it is not")
    func errorPointerShapes() throws {
        let item = folder.file("person.txt")
        var error: NSError?
        var wrote = false
        FileCoordinator().coordinate(writingItemAt: item, options: [.forReplacing], error: &error) { url in
            wrote = (try? FileSystem.default.write("Matt", to: url)) != nil
        }
        #expect(wrote && error == nil)
        var read: String?
        FileCoordinator().coordinate(readingItemAt: item, options: [], error: &error) { url in
            read = try? FileSystem.default.string(contentsOf: url)
        }
        #expect(read == "Matt" && error == nil)

        // A writer holds the item: a coordinator that gives up quickly reports why.
        try FileCoordinator().coordinate(writingItemAt: item) { _ in
            try DispatchQueue.global().sync {
                var called = false
                FileCoordinator(timeout: .milliseconds(50)).coordinate(
                    readingItemAt: item, options: [], writingItemAt: folder.file("copy.txt"), options: [],
                    error: &error
                ) { _, _ in called = true }
                #expect(!called, "the accessor ran without the lock")
                let underlying = try #require(error?.userInfo[NSUnderlyingErrorKey] as? SandboxError)
                #expect(underlying.code == .timedOut)
                #expect(error?.localizedDescription.contains("timedOut") == true, "\(String(describing: error))")
            }
        }
    }

    @Test(
        "coordinate(with:queue:byAccessor:) runs the accessor on the queue holding the locks", .timeLimit(.minutes(1)))
    func queueShape() async throws {
        let intent = FileAccessIntent.writingIntent(with: folder.file("moi.txt"), options: [])
        let queue = OperationQueue()
        let outcome: String = await withCheckedContinuation { continuation in
            FileCoordinator().coordinate(with: [intent], queue: queue) { error in
                // Held here: another coordinator that waits briefly must give up.
                let blocked =
                    (try? FileCoordinator(timeout: .milliseconds(50)).coordinate(writingItemAt: intent.url) {
                        _ in
                    }) == nil
                continuation.resume(
                    returning: "error=\(error == nil ? "nil" : "set") queue=\(OperationQueue.current === queue) "
                        + "blocked=\(blocked)")
            }
        }
        #expect(outcome == "error=nil queue=true blocked=true")
        // Released once the accessor returned.
        try FileCoordinator(timeout: .seconds(5)).coordinate(writingItemAt: intent.url) { _ in }
    }
}
