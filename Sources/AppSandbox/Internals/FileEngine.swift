import Foundation

/// The file operations behind both ``FileSystem`` (absolute URLs) and
/// ``SandboxDirectory`` (contained relative paths), written once against
/// ``Location`` so that both get the same durability and the same errors.
struct FileEngine {
    let system: SystemCalls

    /// Size of the chunks used to read and copy files.
    static let chunkSize = 1 << 16

    // MARK: Files

    func read(_ location: Location) throws(SandboxError) -> Data {
        // O_NOFOLLOW: links were resolved (and checked) before we got here; one that
        // appears now is refused rather than followed.
        let flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC
        let fd = try system.open(location.parent, location.name, flags: flags, path: location.path)
        defer { try? system.close(fd) }
        let status = try system.checked("stat", location.path) { () throws(Errno) in try system.fstat(fd) }
        if status.kind == .directory { throw SandboxError(errno: EISDIR, path: location.path, operation: "read") }
        return try readAll(fd, sizeHint: Int(clamping: status.size), path: location.path)
    }

    func openForReading(_ location: Location) throws(SandboxError) -> RandomAccessFile {
        // O_NONBLOCK: a FIFO at the path must not block the open until a writer comes;
        // it is refused below, before anything is read from it.
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        let fd = try system.open(location.parent, location.name, flags: flags, path: location.path)
        let status: FileStatus
        do throws(SandboxError) {
            status = try system.checked("stat", location.path) { () throws(Errno) in try system.fstat(fd) }
            guard status.kind == .regular else {
                if status.kind == .directory {
                    throw SandboxError(errno: EISDIR, path: location.path, operation: "open")
                }
                throw SandboxError(
                    .notRegularFile, "a FIFO, device or socket is where a regular file should be",
                    path: location.path)
            }
        } catch {
            try? system.close(fd)
            throw error
        }
        return RandomAccessFile(descriptor: fd, count: Int(clamping: status.size), path: location.path, system: system)
    }

    func readAll(_ fd: Int32, sizeHint: Int, path: String) throws(SandboxError) -> Data {
        // One byte more than the size, so a file that grew is noticed without a
        // second round trip for the common case.
        var buffer = [UInt8](repeating: 0, count: max(sizeHint, 0) + 1)
        var count = 0
        while true {
            if count == buffer.count {
                buffer.append(contentsOf: repeatElement(0, count: max(buffer.count, Self.chunkSize)))
            }
            let result: Result<Int, Errno> = buffer.withUnsafeMutableBytes { raw in
                let slice = UnsafeMutableRawBufferPointer(rebasing: raw[count...])
                return Result { () throws(Errno) in try system.read(fd, slice) }
            }
            switch result {
            case .success(0): return Data(buffer[..<count])
            case .success(let read): count += read
            case .failure(let error) where error.rawValue == EINTR: continue
            case .failure(let error): throw SandboxError(errno: error.rawValue, path: path, operation: "read")
            }
        }
    }

    /// Replaces the file at `location` atomically; `synchronized: false` skips every
    /// `fsync` (see ``DurableWriter/commitUnsynchronized()``).
    func write(_ data: Data, to location: Location, synchronized: Bool = true) throws(SandboxError) {
        LeftoverSweep.sweepIfDue(system, directory: location.parent, itemPath: location.path)
        var writer = try DurableWriter(system: system, at: location)
        let result: Result<Void, SandboxError> = data.withUnsafeBytes { bytes in
            Result { () throws(SandboxError) in try writer.append(bytes) }
        }
        try result.get()
        if synchronized {
            try writer.commit()
        } else {
            try writer.commitUnsynchronized()
        }
    }

    func status(_ location: Location) throws(SandboxError) -> FileStatus {
        try system.checked("stat", location.path) { () throws(Errno) in
            try system.fstatat(location.parent, location.name, false)
        }
    }

    /// Whether anything (a dangling link included) exists at `location`.
    func exists(_ location: Location) throws(SandboxError) -> Bool {
        do {
            _ = try system.fstatat(location.parent, location.name, false)
            return true
        } catch  where error.rawValue == ENOENT {
            return false
        } catch {
            throw SandboxError(errno: error.rawValue, path: location.path, operation: "stat")
        }
    }

    // MARK: Directories

    func createDirectory(_ location: Location, intermediates: Bool) throws(SandboxError) {
        do {
            try system.makeDirectory(location.parent, location.name, 0o777)
        } catch  where error.rawValue == EEXIST && intermediates {
            // Like `mkdir -p`: an existing directory is success, anything else is not.
            if try status(location).kind != .directory {
                throw SandboxError(errno: EEXIST, path: location.path, operation: "create directory")
            }
        } catch {
            throw SandboxError(errno: error.rawValue, path: location.path, operation: "create directory")
        }
    }

    /// Opens the directory at `location` without following a final link.
    func openDirectory(_ location: Location) throws(SandboxError) -> DirectoryHandle {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        let fd = try system.open(location.parent, location.name, flags: flags, path: location.path)
        return DirectoryHandle(fd: fd, path: location.path, components: location.components)
    }

    /// Names in a directory, sorted; with `includingInternal: false` the names this
    /// layer keeps for itself are left out.
    func names(in directory: DirectoryHandle, includingInternal: Bool = false) throws(SandboxError) -> [String] {
        let names = try system.checked("list", directory.path) { () throws(Errno) in
            try system.readDirectory(directory.fd)
        }
        return names.filter { includingInternal || !RelativePath.isInternal($0) }.sorted()
    }

    /// Depth-first listing below `directory`, children sorted by name. Directories
    /// for which `skipDescendants` returns true are listed but not entered; links are
    /// listed, never followed.
    func enumerate(
        _ directory: DirectoryHandle, prefix: String = "", includingInternal: Bool = false,
        skipDescendants: (DirectoryEntry) -> Bool, into entries: inout [DirectoryEntry]
    ) throws(SandboxError) {
        for name in try names(in: directory, includingInternal: includingInternal) {
            let child = Location(parent: directory.fd, name: name, path: directory.path + "/" + name)
            let info = try status(child)
            let entry = DirectoryEntry(relativePath: prefix + name, status: info)
            entries.append(entry)
            guard info.kind == .directory, !skipDescendants(entry) else { continue }
            let handle = try openDirectory(child)
            defer { handle.close(system) }
            try enumerate(
                handle, prefix: entry.relativePath + "/", includingInternal: includingInternal,
                skipDescendants: skipDescendants, into: &entries
            )
        }
    }

    // MARK: Remove, move, copy

    /// Removes a file, link or directory with everything in it (the link itself,
    /// never what it points to).
    func remove(_ location: Location) throws(SandboxError) {
        let info = try status(location)
        if info.kind == .directory {
            let handle = try openDirectory(location)
            defer { handle.close(system) }
            for name in try names(in: handle, includingInternal: true) {
                try remove(Location(parent: handle.fd, name: name, path: handle.path + "/" + name))
            }
        }
        try system.checked("remove", location.path) { () throws(Errno) in
            try system.unlinkat(location.parent, location.name, info.kind == .directory)
        }
    }

    /// Renames an item; fails with `.fileExists` when the destination exists. Both
    /// directories are synced so the move survives a crash.
    func move(_ source: Location, to destination: Location) throws(SandboxError) {
        _ = try status(source)
        if try exists(destination) { throw SandboxError(errno: EEXIST, path: destination.path, operation: "move") }
        // The check above and the rename below are two steps: a destination created
        // in between by another process is replaced. renameat2(RENAME_NOREPLACE)
        // would close that gap but is not exposed to Swift on every C library.
        try system.checked("move", source.path) { () throws(Errno) in
            try system.renameat(source.parent, source.name, destination.parent, destination.name)
        }
        try sync(destination.parent, path: destination.path)
        if source.parent != destination.parent { try sync(source.parent, path: source.path) }
    }

    /// Copies a file (durably, keeping its permission bits), a link (as a link) or a
    /// directory tree. Fails with `.fileExists` when the destination exists.
    func copy(_ source: Location, to destination: Location) throws(SandboxError) {
        let info = try status(source)
        switch info.kind {
        case .regular:
            let fd = try system.open(
                source.parent, source.name, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, path: source.path)
            defer { try? system.close(fd) }
            var writer = try DurableWriter(
                system: system, at: destination, mode: .createNew, permissions: info.permissions)
            var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
            while true {
                let result: Result<Int, Errno> = buffer.withUnsafeMutableBytes { raw in
                    Result { () throws(Errno) in try system.read(fd, raw) }
                }
                switch result {
                case .success(0):
                    try writer.commit()
                    return
                case .success(let count):
                    let appended: Result<Void, SandboxError> = buffer.withUnsafeBytes { raw in
                        Result { () throws(SandboxError) in
                            try writer.append(UnsafeRawBufferPointer(rebasing: raw[..<count]))
                        }
                    }
                    try appended.get()
                case .failure(let error) where error.rawValue == EINTR:
                    continue
                case .failure(let error):
                    writer.abandon()
                    throw SandboxError(errno: error.rawValue, path: source.path, operation: "read")
                }
            }
        case .symbolicLink:
            let target = try system.checked("read link", source.path) { () throws(Errno) in
                try system.readlinkat(source.parent, source.name)
            }
            try system.checked("create link", destination.path) { () throws(Errno) in
                try system.symlinkat(target, destination.parent, destination.name)
            }
        case .directory:
            try system.checked("create directory", destination.path) { () throws(Errno) in
                try system.makeDirectory(destination.parent, destination.name, info.permissions)
            }
            let from = try openDirectory(source)
            defer { from.close(system) }
            let to = try openDirectory(destination)
            defer { to.close(system) }
            for name in try names(in: from) {
                try copy(
                    Location(parent: from.fd, name: name, path: from.path + "/" + name),
                    to: Location(parent: to.fd, name: name, path: to.path + "/" + name)
                )
            }
        case .other:
            throw SandboxError(.systemError, "cannot copy a device, socket or pipe", path: source.path)
        }
    }

    /// `fsync` of a file or a folder, never retried: after a failed `fsync` the kernel
    /// may have dropped the dirty pages, and a second call that succeeds would lie.
    /// `EINTR` is `.ioError`.
    func sync(_ fd: Int32, path: String) throws(SandboxError) {
        do {
            try system.fsync(fd)
        } catch {
            var mapped = SandboxError(errno: error.rawValue, path: path, operation: "fsync")
            if error.rawValue == EINTR { mapped.code = .ioError }
            throw mapped
        }
    }
}
