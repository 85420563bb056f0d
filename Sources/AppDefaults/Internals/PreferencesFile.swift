import AppSandbox
import Foundation
import PropertyList

/// One domain's file, `Library/Preferences/<domain>.plist`: read, atomic replace,
/// corrupt files moved aside, and versions telling whether someone replaced it.
struct PreferencesFile: Sendable {
    /// One version of the file's content: its length and FNV-1a hash. Compared rather
    /// than inode numbers and modification times, which a busy directory can repeat
    /// (a freed inode is reused; times are as coarse as the kernel's tick).
    struct Version: Equatable, Sendable {
        var length: Int
        var hash: UInt64

        init(of bytes: Data) {
            length = bytes.count
            hash = bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
        }
    }

    enum Contents {
        case absent
        case values(PropertyListDictionary, Version)
        /// The file is not a plist dictionary; it has been moved aside, as the error says.
        case corrupt(DefaultsError)
    }

    let domain: String
    let url: URL
    /// The container's `Library/Preferences/`: every read, write, move and lock goes
    /// through its contained resolver, so no link leads any of them out of the
    /// container and no FIFO or device blocks them. Its system calls are the ones tests
    /// inject.
    let directory: SandboxDirectory
    /// The cross-process lock, `.keepsake-<domain>.plist.lock` beside the file.
    let coordinator: FileCoordinator

    /// The file's name in ``directory``.
    var fileName: String { url.lastPathComponent }

    /// The file's bytes; nil when there is no file.
    /// - Throws: ``DefaultsError`` `.fileSystem`, with the sandbox's `.outsideContainer`
    ///   (a link leading out), `.notRegularFile` (a FIFO, device or socket) and the like
    ///   underneath.
    func bytes() throws(DefaultsError) -> Data? {
        do {
            return try directory.regularFileContents(fileName)
        } catch {
            throw DefaultsError(error, domain: domain, operation: "reading the preferences file")
        }
    }

    /// Runs `body` holding this file's cross-process write lock, creating
    /// `Library/Preferences/` if needed. Waits at most the coordinator's timeout
    /// (`DefaultsError.Code.timedOut`).
    func withWriteLock<T>(_ body: () throws(DefaultsError) -> T) throws(DefaultsError) -> T {
        do {
            return try coordinator.coordinate(writing: fileName, in: directory, isCancelled: { false }) {
                try body()
            }
        } catch let error as DefaultsError {
            throw error
        } catch let error as SandboxError {
            throw DefaultsError(error, domain: domain, operation: "locking the preferences file")
        } catch {
            throw DefaultsError(.fileSystem, "locking the preferences file failed: \(error)", domain: domain)
        }
    }

    /// The dictionary `bytes` hold, or why they are not one.
    func parse(_ bytes: Data) -> Result<PropertyListDictionary, DefaultsError> {
        do {
            if case .dictionary(let values) = try PropertyListReader().read(bytes) { return .success(values) }
            let reason = bytes.isEmpty ? "the file is empty" : "the file holds a plist that is not a dictionary"
            return .failure(DefaultsError(.corruptFile, reason, domain: domain, path: url.path))
        } catch {
            return .failure(
                DefaultsError(
                    .corruptFile, "the file is not a property list: \(error)", domain: domain, path: url.path,
                    underlyingError: error))
        }
    }

    /// Reads the file. A corrupt one is moved aside to
    /// `<domain>.plist.corrupt-<UTC timestamp>-<n>` before this returns; call it under
    /// the write lock so that no one replaces the file in between.
    func read() throws(DefaultsError) -> Contents {
        guard let bytes = try bytes() else { return .absent }
        return try interpret(bytes)
    }

    /// ``read()`` for bytes already read under the write lock.
    func interpret(_ bytes: Data) throws(DefaultsError) -> Contents {
        switch parse(bytes) {
        case .success(let values):
            return .values(values, Version(of: bytes))
        case .failure(var error):
            let asideName = "\(fileName).corrupt-\(Self.timestamp())-\(UInt32.random(in: 0 ... .max))"
            let aside = url.deletingLastPathComponent().appendingPathComponent(asideName)
            do {
                try directory.moveItem(fileName, to: asideName)
            } catch {
                throw DefaultsError(error, domain: domain, operation: "moving a corrupt preferences file aside")
            }
            error.movedTo = aside.path
            return .corrupt(error)
        }
    }

    /// `values` as a binary plist.
    func encode(_ values: PropertyListDictionary) throws(DefaultsError) -> Data {
        do {
            return Data(try PropertyListWriter.binary.write(.dictionary(values)))
        } catch {
            throw DefaultsError(
                .notPropertyList, "the domain cannot be written", domain: domain, underlyingError: error)
        }
    }

    /// Replaces the file with `bytes`, atomically but without `fsync`: the caller has
    /// made them durable in its journal (``PreferencesJournal``).
    /// - Returns: the version written.
    func write(_ bytes: Data) throws(DefaultsError) -> Version {
        do {
            try directory.writeUnsynchronized(bytes, to: fileName)
        } catch {
            throw DefaultsError(error, domain: domain, operation: "writing the preferences file")
        }
        return Version(of: bytes)
    }

    /// `20261122T070109Z`: sorts by time, safe in a file name.
    static func timestamp(_ date: Date = Date()) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return
            "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
