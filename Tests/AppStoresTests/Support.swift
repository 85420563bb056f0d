import AppSandbox
import Foundation
import KeyedArchive
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// The seeds' `Item`, as an app ports it.
struct Item: KeyedSecureCoding, Sendable, Equatable {
    static var supportsSecureCoding: Bool { true }
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    var itemKey: String

    init(name: String, valueInDollars: Int = 0, serialNumber: String? = nil, itemKey: String = UUID().uuidString) {
        self.name = name
        self.valueInDollars = valueInDollars
        self.serialNumber = serialNumber
        self.itemKey = itemKey
    }

    func encode(with coder: KeyedEncoder) {
        coder.encode(name, forKey: "name")
        coder.encode(valueInDollars, forKey: "valueInDollars")
        coder.encode(serialNumber, forKey: "serialNumber")
        coder.encode(itemKey, forKey: "itemKey")
    }

    init(coder: KeyedDecoder) throws {
        name = try coder.decode(String.self, forKey: "name")
        valueInDollars = coder.decodeInteger(forKey: "valueInDollars")
        serialNumber = try coder.decodeIfPresent(String.self, forKey: "serialNumber")
        itemKey = try coder.decode(String.self, forKey: "itemKey")
    }
}

/// The seeds' `Item` as the books write it: a class whose properties controllers
/// change in place, with no `Sendable` anywhere.
final class BookItem: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var name: String
    init(name: String) { self.name = name }
    func encode(with coder: KeyedEncoder) { coder.encode(name, forKey: "name") }
    required init(coder: KeyedDecoder) throws { name = try coder.decode(String.self, forKey: "name") }
}

/// A temporary container whose `write` system call can be made to fail with a chosen
/// `errno`, to reproduce a full disk, and that counts `fsync`s. Removed by `destroy()`.
final class FaultyContainer: Sendable {
    let container: AppContainer
    private final class Switch: Sendable {
        let errno = Locked<Int32?>(nil)
        let fsyncs = Locked(0)
    }
    private let failing = Switch()

    init() throws {
        let base = try AppContainer.temporary(identifier: "org.keepsake.stores-tests")
        var calls = SystemCalls.live
        let live = SystemCalls.live
        let failing = self.failing
        calls.write = { fd, buffer throws(Errno) in
            if let code = failing.errno.withLock({ $0 }) { throw Errno(code) }
            return try live.write(fd, buffer)
        }
        calls.fsync = { fd throws(Errno) in
            failing.fsyncs.withLock { $0 += 1 }
            try live.fsync(fd)
        }
        container = AppContainer(identifier: base.identifier, url: base.url, system: calls)
    }

    /// How many `fsync` calls the container's files and folders got so far.
    var fsyncCount: Int { failing.fsyncs.withLock { $0 } }

    /// Makes every write fail with `errno` until `heal()`.
    func failWrites(with errno: Int32 = ENOSPC) { failing.errno.withLock { $0 = errno } }
    func heal() { failing.errno.withLock { $0 = nil } }

    func destroy() { try? container.destroy() }
}

/// A temporary container whose system calls fail once at a chosen step of the item
/// store's write path, told apart by the file each descriptor was opened on.
final class WritePathFaults: Sendable {
    enum Step: String, CaseIterable, Sendable, CustomStringConvertible {
        case journalAppend, journalFsync, journalTruncate
        case checkpointWrite, checkpointFsync, checkpointRename, directoryFsync
        var description: String { rawValue }
    }

    /// What the system-call closures share: which steps are armed, which fired, and
    /// what each open descriptor is.
    private final class Switches: Sendable {
        struct State {
            /// Each armed step with the error it fails with.
            var armed: [Step: Int32] = [:]
            var fired: Set<Step> = []
            var journals: Set<Int32> = []
            var temporaries: Set<Int32> = []
            var directories: Set<Int32> = []
        }
        let state = Locked(State())

        func fire(_ step: (State) -> Step?) throws(Errno) {
            let failure = state.withLock { state -> Int32? in
                guard let step = step(state), let code = state.armed.removeValue(forKey: step) else { return nil }
                state.fired.insert(step)
                return code
            }
            if let failure { throw Errno(failure) }
        }
    }

    let container: AppContainer
    private let switches = Switches()

    init() throws {
        let base = try AppContainer.temporary(identifier: "org.keepsake.write-path")
        let live = SystemCalls.live
        var calls = live
        let switches = switches
        calls.openat = { directory, path, flags, mode throws(Errno) in
            let fd = try live.openat(directory, path, flags, mode)
            switches.state.withLock { state in
                if path.hasSuffix(".journal") { state.journals.insert(fd) }
                if path.hasPrefix(".keepsake-"), path.hasSuffix(".tmp") { state.temporaries.insert(fd) }
                if flags & O_DIRECTORY != 0 { state.directories.insert(fd) }
            }
            return fd
        }
        calls.close = { fd throws(Errno) in
            switches.state.withLock { state in
                state.journals.remove(fd)
                state.temporaries.remove(fd)
                state.directories.remove(fd)
            }
            try live.close(fd)
        }
        calls.write = { fd, buffer throws(Errno) in
            try switches.fire { state in
                state.journals.contains(fd) ? .journalAppend : state.temporaries.contains(fd) ? .checkpointWrite : nil
            }
            return try live.write(fd, buffer)
        }
        calls.fsync = { fd throws(Errno) in
            try switches.fire { state in
                if state.journals.contains(fd) { return .journalFsync }
                if state.temporaries.contains(fd) { return .checkpointFsync }
                return state.directories.contains(fd) ? .directoryFsync : nil
            }
            try live.fsync(fd)
        }
        calls.ftruncate = { fd, length throws(Errno) in
            try switches.fire { state in state.journals.contains(fd) ? .journalTruncate : nil }
            try live.ftruncate(fd, length)
        }
        calls.renameat = { from, fromName, to, toName throws(Errno) in
            try switches.fire { _ in fromName.hasPrefix(".keepsake-") ? .checkpointRename : nil }
            try live.renameat(from, fromName, to, toName)
        }
        container = AppContainer(identifier: base.identifier, url: base.url, system: calls)
    }

    /// Fails the next call at `step` with `code`.
    func arm(_ step: Step, failingWith code: Int32 = EIO) { switches.state.withLock { $0.armed[step] = code } }
    func fired(_ step: Step) -> Bool { switches.state.withLock { $0.fired.contains(step) } }
    func destroy() { try? container.destroy() }
}
