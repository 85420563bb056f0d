import Foundation
import Locking
import Testing

@Suite("Locked: the one guard for shared state")
struct LockedTests {
    struct Refused: Error, Equatable {}

    @Test("Threads that add under the lock lose no update")
    func threadsLoseNoUpdate() {
        let total = Locked(0)
        let threads = 4
        let additions = 5_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<additions {
                // Read, yield, write: without mutual exclusion, other threads' additions
                // made in between are overwritten.
                total.withLock { value in
                    let read = value
                    sched_yield()
                    value = read + 1
                }
            }
        }
        #expect(total.withLock { $0 } == threads * additions)
    }

    @Test("A body that throws leaves its changes and releases the lock; the error keeps its type")
    func throwingBodyReleasesTheLock() throws {
        let values = Locked([Int]())
        #expect(throws: Refused()) {
            try values.withLock { (values) throws(Refused) in
                values.append(1)
                throw Refused()
            }
        }
        // Taken on a thread of its own, so that a lock still held fails the test after
        // a while instead of hanging it.
        let taken = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            values.withLock { $0.append(2) }
            taken.signal()
        }
        try #require(taken.wait(timeout: .now() + 10) == .success, "the lock was still held")
        #expect(values.withLock { $0 } == [1, 2])
    }

    @Test("Copies share one value and one lock")
    func copiesShareTheValue() {
        let original = Locked("a")
        let copy = original
        copy.withLock { $0 += "b" }
        #expect(original.withLock { $0 } == "ab")
    }

    @Test("The value is released with the last copy")
    func valueIsReleased() {
        final class Tracked: Sendable {
            let released: Locked<Bool>
            init(_ released: Locked<Bool>) { self.released = released }
            deinit { released.withLock { $0 = true } }
        }
        let released = Locked(false)
        do {
            let guarded = Locked(Tracked(released))
            guarded.withLock { _ in }
        }
        #expect(released.withLock { $0 })
    }
}
