import Foundation
import TestSupport
import Testing

/// `keepsake` run as the only child of a Python process, which reports what the kernel
/// counted of it (`getrusage(RUSAGE_CHILDREN)`). Not measured from this process: Linux
/// carries the high-water mark of the memory a program is started from into its own
/// peak across exec, and this test process is large.
struct Measured: CustomStringConvertible {
    var status: Int32
    var stderr: String
    var peakMiB: Double
    var cpuSeconds: Double

    var description: String { "exit \(status), \(cpuSeconds) s CPU, peak \(peakMiB) MiB" }

    /// Runs `keepsake` with `arguments`, its output discarded.
    init(_ arguments: [String]) throws {
        let script = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            sys.stderr.buffer.write(r.stderr)
            u = resource.getrusage(resource.RUSAGE_CHILDREN)
            print(r.returncode, u.ru_maxrss, u.ru_utime + u.ru_stime)
            """
        let python = try #require(Python.executable)
        let result = try ChildProcess.run(python, ["-c", script, try #require(CLIRunner.executable).path] + arguments)
        let fields = result.outputText.split(whereSeparator: \.isWhitespace)
        guard result.status == .exited(0), fields.count == 3, let status = Int32(fields[0]),
            let kib = Double(fields[1]), let cpu = Double(fields[2])
        else { throw Python.Failure(description: "no measurement: \(result.outputText) \(result.errorText)") }
        (self.status, stderr, peakMiB, cpuSeconds) = (status, result.errorText, kib / 1024, cpu)
    }
}
