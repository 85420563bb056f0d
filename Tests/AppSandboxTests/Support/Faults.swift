import Foundation
import Locking
import TestSupport

@testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

/// The steps of a durable write where a fault can be injected.
enum WriteStep: String, CaseIterable, CustomStringConvertible {
    case open, write, fsync, close, rename, directoryFsync
    var description: String { rawValue }
}

/// Records what the durable writer did and fails one step on request.
final class FaultPlan: Sendable {
    struct State {
        var temporaryDescriptors: Set<Int32> = []
        var remainingFaults: Int
        var closeCalls: [Int32: Int] = [:]
        var writeCalls = 0
    }

    let step: WriteStep?
    let errno: Int32
    let state: Locked<State>

    /// Fails `step` with `errno` the first `times` times it is reached.
    init(failing step: WriteStep?, with errno: Int32 = 0, times: Int = 1) {
        self.step = step
        self.errno = errno
        state = Locked(State(remainingFaults: times))
    }

    private func fire(_ candidate: WriteStep) -> Bool {
        guard candidate == step else { return false }
        return state.withLock { state in
            guard state.remainingFaults > 0 else { return false }
            state.remainingFaults -= 1
            return true
        }
    }

    private func isTemporary(_ fd: Int32) -> Bool { state.withLock { $0.temporaryDescriptors.contains(fd) } }

    static func isTemporaryName(_ name: String) -> Bool { name.hasPrefix(".keepsake-") && name.hasSuffix(".tmp") }

    /// How many times `close` was called on temporary-file descriptors, in all.
    var temporaryCloseCalls: Int { state.withLock { $0.closeCalls.values.reduce(0, +) } }

    /// The live system calls with this plan's fault wired in.
    var systemCalls: SystemCalls {
        let live = SystemCalls.live
        var calls = live
        calls.openat = { directory, path, flags, mode throws(Errno) in
            let temporary = Self.isTemporaryName(path)
            if temporary, self.fire(.open) { throw Errno(self.errno) }
            let fd = try live.openat(directory, path, flags, mode)
            if temporary { self.state.withLock { _ = $0.temporaryDescriptors.insert(fd) } }
            return fd
        }
        calls.write = { fd, buffer throws(Errno) in
            if self.isTemporary(fd) {
                self.state.withLock { $0.writeCalls += 1 }
                if self.fire(.write) { throw Errno(self.errno) }
            }
            return try live.write(fd, buffer)
        }
        calls.fsync = { fd throws(Errno) in
            let isDirectory = (try? live.fstat(fd))?.kind == .directory
            if self.fire(isDirectory ? .directoryFsync : .fsync) { throw Errno(self.errno) }
            try live.fsync(fd)
        }
        calls.close = { fd throws(Errno) in
            let temporary = self.state.withLock { state in
                guard state.temporaryDescriptors.remove(fd) != nil else { return false }
                state.closeCalls[fd, default: 0] += 1
                return true
            }
            // Like Linux: the descriptor is released even when close reports an error.
            try live.close(fd)
            if temporary, self.fire(.close) { throw Errno(self.errno) }
        }
        calls.renameat = { fromDirectory, from, toDirectory, to throws(Errno) in
            if Self.isTemporaryName(from), self.fire(.rename) { throw Errno(self.errno) }
            try live.renameat(fromDirectory, from, toDirectory, to)
        }
        return calls
    }
}

/// The built `SandboxTestHelper` executable next to the test bundle, if it was built.
enum Helper {
    static let url: URL? = BuiltProducts.executable(named: "SandboxTestHelper")

    /// Runs the helper to completion and returns its exit status and standard output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let url else { throw CocoaError(.fileNoSuchFile) }
        let result = try ChildProcess.run(url, arguments, errors: .inherit)
        return (result.exitCode, result.outputText)
    }
}
