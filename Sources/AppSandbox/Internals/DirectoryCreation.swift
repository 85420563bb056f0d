#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension SystemCalls {
    /// `mkdirat`, then `fsync` of the parent directory, so that the new entry is on disk
    /// before anything is saved into it: without it a first save into a fresh folder
    /// (`Library/Preferences/`, `Documents/images/`) is durable in a folder whose own
    /// entry may vanish after power loss. Every directory this layer creates is made here.
    ///
    /// A failed `fsync` is reported as `EIO` (an interrupted one too) and never retried,
    /// as for files; the directory then exists but may not survive a power loss.
    func makeDirectory(_ parent: Int32, _ name: String, _ mode: UInt32) throws(Errno) {
        try mkdirat(parent, name, mode)
        do {
            try fsync(parent)
        } catch {
            throw error.rawValue == EINTR ? Errno(EIO) : error
        }
    }
}
