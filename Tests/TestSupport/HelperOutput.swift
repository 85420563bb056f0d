#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What the tests' helper processes print. Each line goes straight to the descriptor:
// standard output is the test's pipe, and a buffered line could still sit in memory
// when the helper is stopped or killed.

/// Writes `line` to standard output, for the test waiting on it.
public func say(_ line: String) {
    writeAll(line + "\n", to: STDOUT_FILENO)
}

/// Ends the helper with `message` on standard error and exit status `code`.
public func fail(_ message: String, code: Int32 = 1) -> Never {
    writeAll(message + "\n", to: STDERR_FILENO)
    exit(code)
}

/// Writes all of `text`, again after an interrupted or partial write.
private func writeAll(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if result < 0, errno == EINTR { continue }
        guard result > 0 else { return }
        written += result
    }
}
