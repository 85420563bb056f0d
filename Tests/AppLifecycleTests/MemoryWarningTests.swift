import AppRuntime
import AppSandbox
import Foundation
import Locking
import TestSupport
import Testing

@testable import AppLifecycle

@Suite @MainActor struct MemoryWarningTests {
    @Test func simulatedWarningReachesEveryListener() async {
        let harness = Harness().launched()
        let observed = Recorder<MemoryWarning>()
        let posted = Recorder<MemoryWarning>()
        let token = harness.app.addMemoryWarningObserver { observed.append($0) }
        let center = harness.center.addObserver(
            forName: Application.didReceiveMemoryWarningNotification, object: nil, queue: nil
        ) {
            if let warning = $0.userInfo?[MemoryWarning.userInfoKey] as? MemoryWarning { posted.append(warning) }
        }
        let stream = harness.app.memoryWarnings
        harness.app.simulateMemoryWarning()
        #expect(harness.delegate.calls == ["didReceiveMemoryWarning"])
        #expect(observed.all == [MemoryWarning(origin: .simulated)])
        #expect(posted.all == [MemoryWarning(origin: .simulated)])
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == MemoryWarning(origin: .simulated))
        token.cancel()
        harness.app.simulateMemoryWarning()
        #expect(observed.all.count == 1)
        harness.center.removeObserver(center)
    }

    @Test func warningsArriveInTheBackgroundToo() {
        let harness = Harness().launched()
        harness.app.send(.hidden)
        harness.delegate.clear()
        harness.app.simulateMemoryWarning()
        #expect(harness.delegate.calls == ["didReceiveMemoryWarning"])
    }

    @Test func monitorWarningsAreDelivered() async {
        struct TwoWarnings: MemoryPressureMonitor {
            func run(_ onWarning: @escaping @Sendable (MemoryWarning) -> Void) async throws {
                onWarning(MemoryWarning(origin: .pressureStall))
                onWarning(MemoryWarning(origin: .lowAvailableMemory))
            }
        }
        let harness = Harness().launched()
        let seen = Recorder<MemoryWarning.Origin>()
        let token = harness.app.addMemoryWarningObserver { seen.append($0.origin) }
        try? await MemoryPressureEventSource(monitor: TwoWarnings()).run(for: harness.app)
        #expect(seen.all == [.pressureStall, .lowAvailableMemory])
        withExtendedLifetime(token) {}
    }

    @Test func meminfoIsParsed() {
        let text = """
            MemTotal:       24576000 kB
            MemFree:         1000000 kB
            MemAvailable:    2457600 kB
            Buffers:            1234 kB
            """
        let reading = AvailableMemoryMonitor.parseMeminfo(text)
        #expect(reading == .init(available: 2_457_600 * 1024, total: 24_576_000 * 1024))
        #expect(AvailableMemoryMonitor.parseMeminfo("MemTotal: 10 kB\n") == nil, "no MemAvailable: no reading")
    }

    @Test func cgroupV1LimitNarrowsTheReading() {
        let machine = AvailableMemoryMonitor.Reading(available: 8 << 30, total: 16 << 30)
        let limited = AvailableMemoryMonitor.narrow(machine, cgroupLimit: 1 << 30, usage: 900 << 20)
        #expect(limited == .init(available: 124 << 20, total: 1 << 30))
        // "No limit" is reported as a huge number.
        #expect(AvailableMemoryMonitor.narrow(machine, cgroupLimit: 0x7FFF_FFFF_FFFF_F000, usage: 1) == machine)
    }

    @Test func lowMemoryWarnsOncePerFall() {
        let available = Locked<UInt64>(50)
        let monitor = AvailableMemoryMonitor(threshold: 0.1) {
            AvailableMemoryMonitor.Reading(available: available.withLock { $0 }, total: 100)
        }
        #expect(monitor.check() == nil)
        available.withLock { $0 = 5 }
        #expect(monitor.check() == MemoryWarning(origin: .lowAvailableMemory))
        #expect(monitor.check() == nil, "still low: no second warning")
        available.withLock { $0 = 50 }
        #expect(monitor.check() == nil)
        available.withLock { $0 = 9 }
        #expect(monitor.check() != nil, "a new fall warns again")
    }

    @Test func pressureStallTriggerText() {
        #expect(PressureStallMonitor(path: "/x").triggerText == "some 150000 1000000")
        #expect(
            PressureStallMonitor(path: "/x", stall: .milliseconds(500), window: .seconds(2)).triggerText
                == "some 500000 2000000")
    }

    @Test func cgroupPressureFileComesFirst() throws {
        #expect(
            PressureStallMonitor.cgroupV2Path(fromProcSelfCgroup: "0::/user.slice/app.scope\n")
                == "/user.slice/app.scope")
        #expect(
            PressureStallMonitor.cgroupV2Path(fromProcSelfCgroup: "12:memory:/docker/abc\n1:name=systemd:/\n") == nil)
        let scratch = TemporaryDirectory("keepsake-cgroup")
        defer { scratch.remove() }
        let cgroup = scratch.file("cgroup")
        try "0::/a/b\n".write(to: cgroup, atomically: true, encoding: .utf8)
        #expect(
            PressureStallMonitor.candidatePaths(cgroupFile: cgroup.path, cgroupRoot: "/cg")
                == ["/cg/a/b/memory.pressure", "/proc/pressure/memory"])
    }

    @Test func missingPressureFileIsReportedUnavailable() async {
        let monitor = PressureStallMonitor(path: "/nonexistent/memory.pressure")
        let error = await #expect(throws: LifecycleError.self) { try await monitor.run { _ in } }
        #expect(error?.code == .pressureUnavailable)
        let failedCall = error?.underlyingError as? SandboxError
        #expect(failedCall?.code == .noSuchFile, "\(String(describing: error))")
        #expect(failedCall?.path == "/nonexistent/memory.pressure")
    }

    /// Needs a kernel with PSI and the right to arm a trigger; skipped elsewhere.
    @Test(.enabled(if: MemoryWarningTests.canArmPSI, "PSI triggers are not available on this machine"))
    func realPressureTriggerCanBeArmedAndCancelled() async throws {
        let path = PressureStallMonitor.candidatePaths().first {
            (try? PressureStallMonitor(path: $0).arm()).map {
                close($0)
                return true
            } ?? false
        }!
        let monitor = PressureStallMonitor(path: path)
        let fd = try monitor.arm()
        defer { close(fd) }
        // An open PSI file with no trigger polls POLLERR; an armed one polls nothing
        // until memory is short.
        var descriptor = pollfd(fd: fd, events: Int16(POLLPRI), revents: 0)
        #expect(poll(&descriptor, 1, 0) >= 0)
        #expect(descriptor.revents & Int16(POLLERR | POLLNVAL) == 0, "the kernel holds no trigger for \(path)")
        let task = Task { try await monitor.run { _ in } }
        task.cancel()
        try await task.value  // returns once the polling thread noticed the cancellation
    }

    nonisolated static let canArmPSI: Bool = PressureStallMonitor.candidatePaths().contains { path in
        guard let fd = try? PressureStallMonitor(path: path).arm() else { return false }
        close(fd)
        return true
    }
}
