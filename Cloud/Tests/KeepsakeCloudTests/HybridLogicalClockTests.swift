import Synchronization
import Testing

@testable import KeepsakeCloud

@Suite struct HybridLogicalClockTests {
    /// A wall clock the test sets by hand.
    final class WallClock: Sendable {
        let now = Mutex<Int64>(1_000)
        func set(_ value: Int64) { now.withLock { $0 = value } }
    }

    @Test func timestampsGrowWhenTheWallClockStandsStillOrGoesBack() {
        let wall = WallClock()
        let clock = HybridLogicalClock(replica: "a") { wall.now.withLock { $0 } }
        let first = clock.tick()
        let second = clock.tick()
        wall.set(500)
        let third = clock.tick()
        wall.set(2_000)
        let fourth = clock.tick()
        #expect(first < second && second < third && third < fourth)
        #expect(third.milliseconds == 1_000, "a clock going back does not take the timestamps with it")
        #expect(fourth == HybridTimestamp(milliseconds: 2_000, counter: 0, replica: "a"))
    }

    @Test("A replica whose wall clock is behind still stamps its next change after one it has seen")
    func aSlowClockCannotHideALaterChange() {
        let slow = HybridLogicalClock(replica: "slow") { 1_000 }
        let fast = HybridLogicalClock(replica: "fast") { 900_000 }
        let seen = fast.tick()
        slow.receive(seen)
        let next = slow.tick()
        #expect(seen < next)
        #expect(next.milliseconds == 900_000)
    }

    @Test func aRestartedClockContinuesFromItsLastTimestamp() {
        let before = HybridLogicalClock(replica: "a") { 5_000 }
        _ = before.tick()
        let last = before.tick()
        let after = HybridLogicalClock(replica: "a", last: before.last) { 4_000 }
        #expect(last < after.tick())
    }

    @Test func equalTimesAreOrderedByReplica() {
        let a = HybridTimestamp(milliseconds: 7, counter: 1, replica: "a")
        let b = HybridTimestamp(milliseconds: 7, counter: 1, replica: "b")
        #expect(a < b && !(b < a) && a != b)
    }
}
