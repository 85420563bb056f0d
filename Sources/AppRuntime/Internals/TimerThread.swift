import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread behind ``SystemScheduler``: keeps the pending work by deadline and
/// sleeps in `poll` on a pipe until the earliest is due or new work arrives earlier.
final class TimerThread: Sendable {
    private struct Pending {
        var due: ContinuousClock.Instant
        var order: Int
        var work: @Sendable () -> Void
    }

    private struct State {
        var order = 0
        var pending: [Pending] = []
        var started = false
        /// The thread, once it runs.
        var thread: pthread_t?
    }

    static let shared = TimerThread()

    private let state = Locked(State())
    /// Read end (the thread sleeps on it) and write end (``schedule(at:_:)`` wakes it).
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private init() {
        var ends: [Int32] = [-1, -1]
        // Without a pipe the thread cannot sleep until woken: that is a broken process.
        precondition(pipe(&ends) == 0, "cannot create the timer thread's pipe (errno \(errno))")
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    func schedule(at due: ContinuousClock.Instant, _ work: @escaping @Sendable () -> Void) {
        let start = state.withLock { state in
            state.order += 1
            state.pending.append(Pending(due: due, order: state.order, work: work))
            defer { state.started = true }
            return !state.started
        }
        if start {
            BackgroundThread.start(name: "keepsake.timer") { self.run() }
        } else {
            // A full pipe (EAGAIN) already holds a wake-up: nothing is lost.
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    /// Whether the calling thread is the timer thread.
    var isCurrent: Bool {
        guard let thread = state.withLock({ $0.thread }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    private func run() {
        state.withLock { $0.thread = pthread_self() }
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let now = ContinuousClock.now
            let (due, nextDeadline): ((@Sendable () -> Void)?, ContinuousClock.Instant?) = state.withLock { state in
                guard
                    let index = state.pending.indices.min(by: {
                        (state.pending[$0].due, state.pending[$0].order) < (
                            state.pending[$1].due, state.pending[$1].order
                        )
                    })
                else { return (nil, nil) }
                if state.pending[index].due <= now { return (state.pending.remove(at: index).work, nil) }
                return (nil, state.pending[index].due)
            }
            if let due {
                due()
                continue
            }
            var timeout: Int32 = -1
            if let nextDeadline {
                let (seconds, attoseconds) = (nextDeadline - now).components
                let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                timeout = Int32(clamping: max(1, milliseconds))
            }
            var descriptor = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, timeout) > 0 {
                while buffer.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
            }
        }
    }
}
