public import PropertyList

/// A file's bytes mapped read-only into memory, read in place: only the pages that
/// are read are loaded, so looking up one value in a large file costs little memory.
///
/// Corresponds to `Data(contentsOf:options: .alwaysMapped)`.
///
/// ```swift
/// let file = try FileSystem.default.map(URL(fileURLWithPath: "Items.plist"))
/// let plist = try BinaryPropertyList(storage: file)
/// ```
///
/// The mapping shows the file as it is on disk. Like every mapping, it must not be
/// shortened by another process while mapped: reading past the new end is a fault
/// (`SIGBUS`), not an error. Map files that are replaced atomically, as this library
/// writes them, and read files others may truncate with ``FileSystem/contents(of:)``.
// @unchecked: the mapping is read-only, its address and length never change, and it
// is released only in deinit, when no reader can hold it.
public final class MappedFile: ContiguousByteStorage, @unchecked Sendable {
    /// The file's bytes, valid while this object lives: keep it (or a document opened
    /// on it) alive while reading them.
    public let bytes: UnsafeRawBufferPointer
    private let system: SystemCalls

    init(bytes: UnsafeRawBufferPointer, system: SystemCalls) {
        self.bytes = bytes
        self.system = system
    }

    deinit {
        if bytes.count > 0 { system.unmap(bytes) }
    }
}
