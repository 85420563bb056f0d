import AppRuntime
import Foundation
import Locking
import Testing

/// The serial I/O executor: one piece of work at a time, in the order asked, however
/// it was asked, and never on the cooperative pool.
struct SerialIOQueueTests {
    @Test("Queued, awaited and blocking work run one at a time in the order asked")
    func workRunsInOrder() async throws {
        let queue = SerialIOQueue(label: "test.serial-io")
        let log = Locked<[Int]>([])
        let running = Locked(0)
        @Sendable func step(_ number: Int) {
            #expect(
                running.withLock {
                    $0 += 1
                    return $0
                } == 1, "two pieces of work ran at once")
            Thread.sleep(forTimeInterval: 0.002)
            log.withLock { $0.append(number) }
            running.withLock { $0 -= 1 }
        }
        queue.enqueue { step(1) }
        queue.enqueue { step(2) }
        let inTask = try await queue.run { () throws -> Bool in
            step(3)
            return withUnsafeCurrentTask { $0 != nil }
        }
        #expect(!inTask, "awaited work must run on the queue's thread, not in a task")
        try await BlockingIO.run { queue.runBlocking { step(4) } }
        #expect(log.withLock { $0 } == [1, 2, 3, 4])
    }

    @Test("What the work throws reaches the caller, typed")
    func errorsReachTheCaller() async {
        struct Refused: Error, Equatable {}
        let queue = SerialIOQueue(label: "test.serial-io")
        await #expect(throws: Refused.self) { try await queue.run { () throws(Refused) in throw Refused() } }
        #expect(throws: Refused.self) { try queue.runBlocking { () throws(Refused) in throw Refused() } }
    }
}
