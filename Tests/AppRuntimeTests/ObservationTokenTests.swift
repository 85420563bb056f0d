import AppRuntime
import Locking
import Testing

/// The one observation token: its action runs exactly once.
struct ObservationTokenTests {
    @Test func cancellingTwiceRunsTheActionOnce() {
        let count = Locked(0)
        let token = ObservationToken { count.withLock { $0 += 1 } }
        token.cancel()
        token.cancel()
        withExtendedLifetime(token) {}
        #expect(count.withLock { $0 } == 1)
    }

    @Test func releasingTheTokenCancels() {
        let count = Locked(0)
        do { _ = ObservationToken { count.withLock { $0 += 1 } } }
        #expect(count.withLock { $0 } == 1, "dropping the last reference must stop the observation")
    }

    @Test func cancelledTokenDoesNotRunAgainWhenReleased() {
        let count = Locked(0)
        do {
            let token = ObservationToken { count.withLock { $0 += 1 } }
            token.cancel()
        }
        #expect(count.withLock { $0 } == 1)
    }
}
