#if os(Linux)
import AppRuntime
import AppSandbox
import Foundation
import Glibc

/// Calls a closure soon after a file in one directory is replaced, created or removed:
/// `inotify` on the directory (a durable replace is a rename into it), read by a
/// thread of its own until ``stop()``.
///
/// Only a hint: the closure re-reads what it cares about. Where `inotify` is missing
/// or its limits are reached, the initializer fails and ``Defaults`` relies on its
/// periodic check alone.
final class DirectoryWatcher: Sendable {
    /// The write end of the pipe that wakes the thread to end it.
    private let wake: Int32

    init?(directory: String, onChange: @escaping @Sendable () -> Void) {
        let inotify = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard inotify >= 0 else { return nil }
        let mask = UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)
        var pipeEnds: [Int32] = [-1, -1]
        guard inotify_add_watch(inotify, directory, mask) >= 0, pipe(&pipeEnds) == 0 else {
            close(inotify)
            return nil
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = pipeEnds[1]
        BackgroundThread.start(name: "keepsake.watch") { [stopped = pipeEnds[0]] in
            Self.run(inotify: inotify, stopped: stopped, onChange: onChange)
        }
    }

    /// Ends the thread, which then closes its descriptors; the closure is not called
    /// after the thread has seen this. Call once.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wake, &byte, 1)
        close(wake)
    }

    /// Waits for events until `stopped` (the pipe's read end) becomes readable. The
    /// read end stays open until then, so ``stop()`` never writes to a closed pipe.
    private static func run(inotify: Int32, stopped: Int32, onChange: @Sendable () -> Void) {
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopped, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                // Unexpected: stop watching, but keep the pipe until stop() is called.
                var byte: UInt8 = 0
                while read(stopped, &byte, 1) < 0 && errno == EINTR {}
                break
            }
            if descriptors[1].revents != 0 { break }
            guard descriptors[0].revents != 0 else { continue }
            // Drain every queued event: one check covers them all.
            while read(inotify, &buffer, buffer.count) > 0 {}
            onChange()
        }
        close(inotify)
        close(stopped)
    }
}
#endif
