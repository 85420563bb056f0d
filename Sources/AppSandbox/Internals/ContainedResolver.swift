import Foundation

/// Resolves checked relative paths beneath one open directory, never leaving it.
///
/// Each component is opened with `openat(…, O_NOFOLLOW)` from the descriptor of the one
/// before, so the kernel never follows a symbolic link for us. When a component is a
/// link we read it and splice its target into the remaining components ourselves:
/// `..` pops a descriptor we already hold (never the kernel's `..`) and popping past
/// the root fails, an absolute target is accepted only when it lies beneath the
/// root's real path. Because every step is relative to a descriptor we hold, a link
/// swapped in after a check is seen by the next `openat` instead of being followed.
///
/// The race that remains: a directory we already hold can be renamed out of the
/// root by another process while we work in it. Doing that requires write access to
/// the container in the first place; nothing a *name* can say leads outside.
struct ContainedResolver {
    let system: SystemCalls
    /// The directory everything must stay beneath; not owned.
    let root: Int32
    let rootPath: String
    /// Kernel limit on links followed while resolving one path (Linux `MAXSYMLINKS`).
    static let maxSymbolicLinks = 40

    private struct Walk {
        var stack: [(fd: Int32, name: String)] = []
        var pending: [String]
        var linksFollowed = 0
    }

    /// The item `components` names, its parent directories opened. With
    /// `followFinalLink` a link in the last place is resolved too (reads and writes
    /// follow links that stay inside); without it the link itself is the item
    /// (remove, move, flags).
    func item(_ components: [String], followFinalLink: Bool, createIntermediates: Bool = false) throws(SandboxError)
        -> Location
    {
        var walk = Walk(pending: components)
        do throws(SandboxError) {
            while true {
                guard !walk.pending.isEmpty else {
                    // A link resolved to a directory we already hold ("." or "dir/.."):
                    // the item is that directory, seen from its parent.
                    guard let last = walk.stack.popLast() else {
                        throw SandboxError(.outsideContainer, "resolves to the directory itself", path: rootPath)
                    }
                    try? system.close(last.fd)
                    return location(walk, name: last.name)
                }
                let name = walk.pending.removeFirst()
                if try skipOrPop(name, &walk) { continue }
                let current = walk.stack.last?.fd ?? root
                if walk.pending.isEmpty {
                    if followFinalLink, let target = try linkTarget(current, name, walk) {
                        try splice(target, &walk)
                        continue
                    }
                    return location(walk, name: name)
                }
                let fd = try openDirectory(current, name, &walk, create: createIntermediates)
                if let fd { walk.stack.append((fd, name)) }
            }
        } catch {
            for entry in walk.stack { try? system.close(entry.fd) }
            throw error
        }
    }

    /// The directory `components` names, opened (the root itself, duplicated, for none).
    func directory(_ components: [String], create: Bool = false) throws(SandboxError) -> DirectoryHandle {
        var walk = Walk(pending: components)
        do throws(SandboxError) {
            while let name = walk.pending.first {
                walk.pending.removeFirst()
                if try skipOrPop(name, &walk) { continue }
                let current = walk.stack.last?.fd ?? root
                if let fd = try openDirectory(current, name, &walk, create: create) { walk.stack.append((fd, name)) }
            }
        } catch {
            for entry in walk.stack { try? system.close(entry.fd) }
            throw error
        }
        let names = walk.stack.map(\.name)
        let path = display(names)
        guard let last = walk.stack.popLast() else {
            let fd = try system.open(root, ".", flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: rootPath)
            return DirectoryHandle(fd: fd, path: rootPath, components: [])
        }
        for entry in walk.stack { try? system.close(entry.fd) }
        return DirectoryHandle(fd: last.fd, path: path, components: names)
    }

    // MARK: Steps

    /// Handles the components a link target may carry: `.` and empty ones are
    /// skipped, `..` pops. True when `name` was consumed.
    private func skipOrPop(_ name: String, _ walk: inout Walk) throws(SandboxError) -> Bool {
        if name.isEmpty || name == "." { return true }
        guard name == ".." else { return false }
        guard let popped = walk.stack.popLast() else {
            throw SandboxError(.outsideContainer, "a symbolic link leads above the directory", path: rootPath)
        }
        try? system.close(popped.fd)
        return true
    }

    /// Opens one intermediate directory. Returns nil when it was a link whose target
    /// has been spliced into `walk` instead.
    private func openDirectory(_ parent: Int32, _ name: String, _ walk: inout Walk, create: Bool) throws(SandboxError)
        -> Int32?
    {
        let path = display(walk.stack.map(\.name) + [name])
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        while true {
            do {
                return try system.openat(parent, name, flags, 0)
            } catch  where error.rawValue == EINTR {
                continue
            } catch  where error.rawValue == ELOOP || error.rawValue == ENOTDIR {
                guard let target = try linkTarget(parent, name, walk) else {
                    throw SandboxError(errno: ENOTDIR, path: path, operation: "open directory")
                }
                try splice(target, &walk)
                return nil
            } catch  where error.rawValue == ENOENT && create {
                do {
                    try system.makeDirectory(parent, name, 0o777)
                } catch  where error.rawValue == EEXIST {
                    // Made by someone else meanwhile; open it on the next turn.
                } catch {
                    throw SandboxError(errno: error.rawValue, path: path, operation: "create directory")
                }
            } catch {
                throw SandboxError(errno: error.rawValue, path: path, operation: "open directory")
            }
        }
    }

    /// The target of `name` in `parent` if it is a symbolic link, nil otherwise
    /// (including when it does not exist).
    private func linkTarget(_ parent: Int32, _ name: String, _ walk: Walk) throws(SandboxError) -> String? {
        let path = display(walk.stack.map(\.name) + [name])
        let status: FileStatus
        do {
            status = try system.fstatat(parent, name, false)
        } catch  where error.rawValue == ENOENT {
            return nil
        } catch {
            throw SandboxError(errno: error.rawValue, path: path, operation: "stat")
        }
        guard status.kind == .symbolicLink else { return nil }
        return try system.checked("read link", path) { () throws(Errno) in try system.readlinkat(parent, name) }
    }

    /// Replaces the link just consumed by its target's components.
    private func splice(_ target: String, _ walk: inout Walk) throws(SandboxError) {
        walk.linksFollowed += 1
        if walk.linksFollowed > Self.maxSymbolicLinks {
            throw SandboxError(errno: ELOOP, path: rootPath, operation: "resolve")
        }
        if target.hasPrefix("/") {
            // Absolute: accepted only when it names something beneath the root.
            let rootReal = try system.checked("resolve", rootPath) { () throws(Errno) in try system.realpath(rootPath) }
            let prefix = rootReal.hasSuffix("/") ? rootReal : rootReal + "/"
            guard target == rootReal || target.hasPrefix(prefix) else {
                throw SandboxError(.outsideContainer, "a symbolic link points outside (\(target))", path: rootPath)
            }
            for entry in walk.stack { try? system.close(entry.fd) }
            walk.stack.removeAll()
            let rest = target == rootReal ? "" : String(target.dropFirst(prefix.count))
            walk.pending = rest.split(separator: "/").map(String.init) + walk.pending
        } else {
            walk.pending =
                target.split(separator: "/", omittingEmptySubsequences: false).map(String.init) + walk.pending
        }
    }

    private func location(_ walk: Walk, name: String) -> Location {
        let names = walk.stack.map(\.name)
        return Location(
            parent: walk.stack.last?.fd ?? root, name: name, path: display(names + [name]),
            components: names + [name], ownedDescriptors: walk.stack.map(\.fd)
        )
    }

    private func display(_ names: [String]) -> String {
        names.isEmpty ? rootPath : rootPath + "/" + names.joined(separator: "/")
    }
}
