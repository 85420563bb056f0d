import AppSandbox
import Foundation
import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One domain's file, `Library/Preferences/<domain>.plist`: read, durable replace,
/// corrupt files moved aside, and a stamp telling whether someone replaced it.
struct PreferencesFile: Sendable {
    /// What identifies one version of the file: a durable replace makes a new inode.
    struct Stamp: Equatable, Sendable {
        var inode: UInt64
        var size: Int64
        var modificationTime: Double
    }

    enum Contents {
        case absent
        case values(PropertyListDictionary)
        /// The file is not a plist dictionary; it has been moved aside, as the error says.
        case corrupt(DefaultsError)
    }

    let domain: String
    let url: URL
    /// Injected so tests can fail a save's system calls.
    let fileSystem: FileSystem

    var lockURL: URL { url }

    /// The file's current stamp; nil when there is no file.
    func stamp() -> Stamp? {
        guard let status = try? SystemCalls.live.fstatat(AT_FDCWD, url.path, true) else { return nil }
        return Stamp(inode: status.inode, size: status.size, modificationTime: status.modificationTime)
    }

    /// Reads the file. A corrupt one is moved aside to
    /// `<domain>.plist.corrupt-<UTC timestamp>` before this returns; call it under the
    /// write lock so that no one replaces the file in between.
    func read() throws(DefaultsError) -> Contents {
        let data: Data
        do {
            data = try fileSystem.contents(of: url)
        } catch .noSuchFile {
            return .absent
        } catch {
            throw DefaultsError(error, domain: domain, operation: "reading the preferences file")
        }
        let reason: String
        let underlying: (any Error & Sendable)?
        do {
            if case .dictionary(let values) = try PropertyListReader().read(data) { return .values(values) }
            reason = data.isEmpty ? "the file is empty" : "the file holds a plist that is not a dictionary"
            underlying = nil
        } catch {
            reason = "the file is not a property list: \(error)"
            underlying = error
        }
        let aside = url.deletingLastPathComponent().appendingPathComponent(
            "\(url.lastPathComponent).corrupt-\(Self.timestamp())-\(UInt32.random(in: 0 ... .max))")
        do {
            try fileSystem.moveItem(at: url, to: aside)
        } catch {
            throw DefaultsError(error, domain: domain, operation: "moving a corrupt preferences file aside")
        }
        return .corrupt(DefaultsError(
            .corruptFile, reason, domain: domain, path: url.path, movedTo: aside.path, underlyingError: underlying))
    }

    /// Reads the file without a lock and without touching it: `.corrupt` then only
    /// says the bytes were bad when read (a writer may have replaced them since).
    func readWithoutMovingAside() -> Contents {
        guard let data = try? fileSystem.contents(of: url) else { return .absent }
        if case .dictionary(let values)? = try? PropertyListReader().read(data) { return .values(values) }
        return .corrupt(DefaultsError(.corruptFile, "the file is not a plist dictionary", domain: domain, path: url.path))
    }

    /// Replaces the file with `values` as a binary plist, durably and atomically.
    func write(_ values: PropertyListDictionary) throws(DefaultsError) {
        let bytes: [UInt8]
        do {
            bytes = try PropertyListWriter.binary.write(.dictionary(values))
        } catch {
            throw DefaultsError(.notPropertyList, "the domain cannot be written: \(error)", domain: domain, underlyingError: error)
        }
        do {
            try fileSystem.write(Data(bytes), to: url)
        } catch .noSuchFile {
            do {
                try fileSystem.createDirectory(at: url.deletingLastPathComponent())
                try fileSystem.write(Data(bytes), to: url)
            } catch {
                throw DefaultsError(error, domain: domain, operation: "writing the preferences file")
            }
        } catch {
            throw DefaultsError(error, domain: domain, operation: "writing the preferences file")
        }
    }

    /// Removes the file; a missing file is not an error.
    func remove() throws(DefaultsError) {
        do {
            try fileSystem.removeItem(at: url)
        } catch .noSuchFile {
        } catch {
            throw DefaultsError(error, domain: domain, operation: "removing the preferences file")
        }
    }

    /// `20261122T070109Z`: sorts by time, safe in a file name.
    static func timestamp(_ date: Date = Date()) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
