import Foundation
import Locking
import Testing

@_spi(Testing) @testable import AppRuntime

/// The one scheduler protocol: real time on the timer thread, and time moved by hand.
struct SchedulerTests {
    @Test func systemSchedulerRunsWorkOffTheCooperativePool() async {
        let seen = Locked<(onTimerThread: Bool, inTask: Bool)>((false, true))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            SystemScheduler().schedule(after: .milliseconds(1)) {
                let inTask = withUnsafeCurrentTask { $0 != nil }
                seen.withLock { $0 = (TimerThread.shared.isCurrent, inTask) }
                continuation.resume()
            }
        }
        #expect(seen.withLock { $0.inTask } == false, "work must not run in a task on the cooperative pool")
        #expect(seen.withLock { $0.onTimerThread }, "work must run on the timer thread")
    }

    @Test func systemSchedulerRunsEarliestDeadlineFirst() async {
        let order = Locked<[Int]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            SystemScheduler().schedule(after: .milliseconds(60)) {
                order.withLock { $0.append(2) }
                continuation.resume()
            }
            SystemScheduler().schedule(after: .milliseconds(5)) { order.withLock { $0.append(1) } }
        }
        #expect(order.withLock { $0 } == [1, 2], "later work scheduled first must not hold up earlier work")
    }

    @Test func manualSchedulerRunsDueWorkInOrderWhenAdvanced() {
        let scheduler = ManualScheduler()
        let order = Locked<[String]>([])
        scheduler.schedule(after: .seconds(2)) { order.withLock { $0.append("b") } }
        scheduler.schedule(after: .seconds(1)) {
            order.withLock { $0.append("a") }
            scheduler.schedule(after: .milliseconds(500)) { order.withLock { $0.append("a+") } }
        }
        scheduler.advance(by: .milliseconds(999))
        #expect(order.withLock { $0 }.isEmpty, "nothing is due before its time")
        #expect(scheduler.pendingCount == 2)
        scheduler.advance(by: .milliseconds(1001))
        #expect(order.withLock { $0 } == ["a", "a+", "b"], "work scheduled by due work runs within the same span")
        #expect(scheduler.now == .seconds(2))
        #expect(scheduler.pendingCount == 0)
    }
}
