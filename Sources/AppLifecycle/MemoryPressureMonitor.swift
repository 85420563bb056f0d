import AppRuntime
import AppSandbox
import Foundation

/// Watches the machine (or the process's cgroup) for memory pressure.
///
/// iOS tells apps memory is short; Linux does not, so a monitor watches for it:
/// ``PressureStallMonitor`` arms a PSI trigger, ``AvailableMemoryMonitor`` polls
/// `MemAvailable` (or a cgroup v1 limit), ``AutomaticMemoryPressureMonitor`` takes the
/// first that works here. Tests use their own monitor, or call
/// ``Application/simulateMemoryWarning()``.
public protocol MemoryPressureMonitor: Sendable {
    /// Calls `onWarning` each time memory becomes short, until the task is cancelled.
    /// - Throws: ``LifecycleError`` `.pressureUnavailable` when this way of watching
    ///   does not work here (checked before waiting).
    func run(_ onWarning: @escaping @Sendable (MemoryWarning) -> Void) async throws
}

/// Delivers the warnings of a ``MemoryPressureMonitor`` to the application.
public struct MemoryPressureEventSource: LifecycleEventSource {
    public var monitor: any MemoryPressureMonitor

    public init(monitor: any MemoryPressureMonitor = AutomaticMemoryPressureMonitor()) {
        self.monitor = monitor
    }

    public func run(for application: Application) async throws {
        try await monitor.run { [weak application] warning in
            Task { @MainActor in application?.receiveMemoryWarning(warning) }
        }
    }
}

/// A Linux pressure-stall (PSI) trigger: warns when tasks stalled on memory for more
/// than `stall` within any `window`.
///
/// Writes `some <stall µs> <window µs>` to a PSI file (the cgroup's `memory.pressure`
/// on cgroup v2, else `/proc/pressure/memory`) and waits for `POLLPRI` on it, on a
/// thread of its own. The defaults (150 ms in 1 s) need `CAP_SYS_RESOURCE`; without
/// it the kernel (6.5 and later) accepts windows that are a multiple of 2 s.
public struct PressureStallMonitor: MemoryPressureMonitor {
    public var path: String
    public var stall: Duration
    public var window: Duration

    public init(path: String, stall: Duration = .milliseconds(150), window: Duration = .seconds(1)) {
        self.path = path
        self.stall = stall
        self.window = window
    }

    /// The PSI files worth trying, best first: the cgroup's (read from
    /// `/proc/self/cgroup`), then the machine's.
    public static func candidatePaths(
        cgroupFile: String = "/proc/self/cgroup", cgroupRoot: String = "/sys/fs/cgroup"
    ) -> [String] {
        var paths: [String] = []
        if let text = try? String(contentsOfFile: cgroupFile, encoding: .utf8),
            let relative = cgroupV2Path(fromProcSelfCgroup: text)
        {
            paths.append(relative == "/" ? cgroupRoot + "/memory.pressure" : cgroupRoot + relative + "/memory.pressure")
        }
        paths.append("/proc/pressure/memory")
        return paths
    }

    /// The cgroup v2 path in a `/proc/self/cgroup` text (the `0::/path` line), if any.
    public static func cgroupV2Path(fromProcSelfCgroup text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            let path = String(line.dropFirst(3))
            return path.hasPrefix("/") ? path : nil
        }
        return nil
    }

    /// The text written to arm the trigger: `some <stall µs> <window µs>`.
    public var triggerText: String {
        "some \(Self.microseconds(stall)) \(Self.microseconds(window))"
    }

    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// Opens the file and arms the trigger, returning the descriptor to poll.
    /// - Throws: ``LifecycleError`` `.pressureUnavailable`.
    public func arm() throws(LifecycleError) -> Int32 {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            throw LifecycleError(
                .pressureUnavailable, "cannot open the PSI file",
                underlyingError: SandboxError(errno: errno, path: path, operation: "open"))
        }
        let text = triggerText
        let written = text.withCString { write(fd, $0, strlen($0) + 1) }
        if written < 0 {
            let error = errno
            close(fd)
            throw LifecycleError(
                .pressureUnavailable, "the kernel refused the trigger `\(text)`",
                underlyingError: SandboxError(errno: error, path: path, operation: "write"))
        }
        return fd
    }

    public func run(_ onWarning: @escaping @Sendable (MemoryWarning) -> Void) async throws {
        let fd = try arm()
        let stop = StopFlag()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                BackgroundThread.start(name: "keepsake.psi") {
                    defer { close(fd) }
                    while !stop.isSet {
                        var descriptor = pollfd(fd: fd, events: Int16(POLLPRI), revents: 0)
                        let ready = poll(&descriptor, 1, 250)
                        if ready < 0 { if errno == EINTR { continue } else { break } }
                        if ready == 0 { continue }
                        if descriptor.revents & Int16(POLLERR | POLLNVAL) != 0 { break }
                        if descriptor.revents & Int16(POLLPRI) != 0 { onWarning(MemoryWarning(origin: .pressureStall)) }
                    }
                    continuation.resume()
                }
            }
        } onCancel: {
            stop.set()
        }
    }
}

/// Polls available memory and warns when it falls below a fraction of the total.
///
/// Reads `MemAvailable` and `MemTotal` from `/proc/meminfo`; under a cgroup v1 memory
/// limit, the limit minus usage (`memory.limit_in_bytes`, `memory.usage_in_bytes`) when
/// that is smaller. Warns once per fall below ``threshold``, again only after memory
/// has risen above it.
public final class AvailableMemoryMonitor: MemoryPressureMonitor {
    /// Available and total memory in bytes.
    public struct Reading: Sendable, Hashable {
        public var available: UInt64
        public var total: UInt64
        public init(available: UInt64, total: UInt64) {
            self.available = available
            self.total = total
        }
    }

    /// The fraction of memory that must stay available, e.g. `0.1`.
    public let threshold: Double
    public let interval: Duration
    private let read: @Sendable () -> Reading?
    private let isLow = StopFlag.Mutable()

    /// - Parameters:
    ///   - threshold: the fraction of memory that must stay available, e.g. `0.1`.
    ///   - interval: how long to wait between two readings.
    ///   - read: where readings come from; the default reads the files above.
    public init(
        threshold: Double = 0.1, interval: Duration = .seconds(1),
        read: @escaping @Sendable () -> Reading? = AvailableMemoryMonitor.systemReading
    ) {
        self.threshold = threshold
        self.interval = interval
        self.read = read
    }

    /// Reads once; returns a warning when memory has just fallen below the threshold.
    public func check() -> MemoryWarning? {
        guard let reading = read(), reading.total > 0 else { return nil }
        let low = Double(reading.available) < threshold * Double(reading.total)
        let wasLow = isLow.exchange(low)
        return low && !wasLow ? MemoryWarning(origin: .lowAvailableMemory) : nil
    }

    public func run(_ onWarning: @escaping @Sendable (MemoryWarning) -> Void) async throws {
        guard read() != nil else {
            throw LifecycleError(.pressureUnavailable, "no memory reading available in /proc/meminfo")
        }
        while !Task.isCancelled {
            if let warning = check() { onWarning(warning) }
            try? await Task.sleep(for: interval)
        }
    }

    /// `/proc/meminfo`, narrowed by a cgroup v1 limit when one applies.
    public static let systemReading: @Sendable () -> Reading? = {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
            var reading = parseMeminfo(text)
        else { return nil }
        let v1 = "/sys/fs/cgroup/memory/"
        if let limit = readNumber(v1 + "memory.limit_in_bytes"), let usage = readNumber(v1 + "memory.usage_in_bytes") {
            reading = narrow(reading, cgroupLimit: limit, usage: usage)
        }
        return reading
    }

    /// `MemAvailable` and `MemTotal` from a `/proc/meminfo` text (values in kB).
    public static func parseMeminfo(_ text: String) -> Reading? {
        var available: UInt64?
        var total: UInt64?
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == ":" })
            guard fields.count >= 2, let value = UInt64(fields[1]) else { continue }
            if fields[0] == "MemAvailable" { available = value * 1024 }
            if fields[0] == "MemTotal" { total = value * 1024 }
        }
        guard let available, let total else { return nil }
        return Reading(available: available, total: total)
    }

    /// A reading limited by a cgroup v1 memory limit; "no limit" (a huge number) and
    /// limits above the machine's memory change nothing.
    public static func narrow(_ reading: Reading, cgroupLimit limit: UInt64, usage: UInt64) -> Reading {
        guard limit < reading.total else { return reading }
        let available = limit > usage ? limit - usage : 0
        return Reading(available: min(available, reading.available), total: limit)
    }

    private static func readNumber(_ path: String) -> UInt64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// The first monitor that works here: a PSI trigger on the cgroup's or the machine's
/// pressure file, else polling available memory.
public struct AutomaticMemoryPressureMonitor: MemoryPressureMonitor {
    public init() {}

    public func run(_ onWarning: @escaping @Sendable (MemoryWarning) -> Void) async throws {
        for path in PressureStallMonitor.candidatePaths() {
            let monitor = PressureStallMonitor(path: path)
            do {
                try await monitor.run(onWarning)
                return
            } catch LifecycleError.Code.pressureUnavailable {
                continue
            }
        }
        try await AvailableMemoryMonitor().run(onWarning)
    }
}
