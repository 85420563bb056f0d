import Foundation

extension FileEngine {
    /// Exactly `count` bytes from `fd`; a file that ends sooner changed while it was
    /// read and fails with `.systemError` rather than leave a short entry.
    func readChunk(_ fd: Int32, count: Int, path: String) throws(SandboxError) -> Data {
        var buffer = Data(count: count)
        var filled = 0
        while filled < count {
            let result: Result<Int, Errno> = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(Errno) in
                    try system.read(fd, UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
                }
            }
            switch result {
            case .success(0):
                throw SandboxError(.systemError, "the file shrank while it was backed up", path: path)
            case .success(let read): filled += read
            case .failure(let error) where error.rawValue == EINTR: continue
            case .failure(let error): throw SandboxError(errno: error.rawValue, path: path, operation: "read")
            }
        }
        return buffer
    }
}
