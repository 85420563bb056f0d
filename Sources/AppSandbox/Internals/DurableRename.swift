import Foundation

/// Renames a finished temporary file over a destination durably: fsync the file,
/// keep a hard link to the previous version, rename, fsync the folder, and on a
/// failed folder fsync put the previous version back.
struct DurableRename {
    let system: SystemCalls
    let folder: Int32
    let path: String

    func replace(_ name: String, with temporaryName: String) throws(SandboxError) {
        let engine = FileEngine(system: system)
        let fd = try system.open(folder, temporaryName, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, path: path)
        do {
            try engine.sync(fd, path: path)
        } catch {
            try? system.close(fd)
            throw error
        }
        try? system.close(fd)
        let prior = RelativePath.internalPrefix + String(UInt64.random(in: .min ... .max), radix: 16) + ".old"
        let kept = (try? system.linkat(folder, name, folder, prior)) != nil
        // The link is dropped once it is no longer the only copy of the previous version.
        var dropPrior = kept
        defer { if dropPrior { try? system.unlinkat(folder, prior, false) } }
        try system.rename(folder, temporaryName, folder, name, path: path)
        do {
            try engine.sync(folder, path: path)
        } catch {
            if kept {
                dropPrior = (try? system.renameat(folder, prior, folder, name)) != nil
            } else {
                try? system.unlinkat(folder, name, false)
            }
            throw error
        }
    }
}
