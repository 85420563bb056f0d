import Locking
import Testing

@testable import KeepsakeCloud

@Suite struct HybridLogicalClockTests {
    /// A wall clock the test sets by hand.
    final class WallClock: Sendable {
        let now = Locked<Int64>(1_000)
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
        let fast = HybridLogicalClock(replica: "fast") { 200_000 }
        let seen = fast.tick()
        #expect(slow.receive(seen))
        let next = slow.tick()
        #expect(seen < next)
        #expect(next.milliseconds == 200_000)
    }

    @Test(
        "A timestamp beyond the drift bound, before 1970, or with a counter or replica no clock makes is refused, and the clock stays",
        arguments: [
            HybridTimestamp(milliseconds: 1_000 + 300_001, counter: 0, replica: "far"),
            HybridTimestamp(milliseconds: .max, counter: .max, replica: "far"),
            HybridTimestamp(milliseconds: -1, counter: 0, replica: "old"),
            HybridTimestamp(milliseconds: 1_000, counter: .max, replica: "busy"),
            HybridTimestamp(milliseconds: 1_000, counter: -1, replica: "negative"),
            HybridTimestamp(milliseconds: 1_000, counter: 0, replica: ""),
            HybridTimestamp(milliseconds: 1_000, counter: 0, replica: String(repeating: "r", count: 256)),
        ])
    func timestampsNoClockMakesAreRefused(_ remote: HybridTimestamp) {
        let clock = HybridLogicalClock(replica: "here") { 1_000 }
        let before = clock.tick()
        #expect(!clock.receive(remote))
        #expect(clock.last == before, "the clock moved to a refused timestamp")
        #expect(clock.tick() == HybridTimestamp(milliseconds: 1_000, counter: 1, replica: "here"))
    }

    @Test("A timestamp at the drift bound is taken in, and the next change is stamped after it")
    func theBoundItselfIsAllowed() {
        let clock = HybridLogicalClock(replica: "here") { 1_000 }
        let edge = HybridTimestamp(
            milliseconds: 1_000 + 300_000, counter: HybridTimestamp.maximumCounter, replica: "edge")
        #expect(clock.receive(edge))
        #expect(clock.tick() > edge)
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
