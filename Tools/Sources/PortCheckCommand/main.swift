// keepsake-port-check [--classes NAME,NAME…] PATH…: prints every Foundation call in the
// Swift files of PATH that compiles on Linux but bypasses Keepsake, as
// `file:line:column: warning: …`. `--classes` gives the archived class names a sample
// archive needs (`keepsake port-check --archive FILE` computes them), for the secure
// replacement of each deprecated unarchiving call. Exit status: 0 when there is none,
// 1 when there is any, 2 when a path cannot be read, 64 for a usage error.
// `keepsake port-check` runs this.
import Foundation
import PortCheck

var paths = Array(CommandLine.arguments.dropFirst())
var sampleClasses: [String]?
if paths.first == "--classes", paths.count >= 2 {
    sampleClasses = paths[1].split(separator: ",").map(String.init)
    paths.removeFirst(2)
}
if paths.isEmpty || paths.contains("-h") || paths.contains("--help") {
    print("usage: keepsake port-check [--archive FILE] PATH…")
    print("Reports Foundation calls that compile on Linux but bypass Keepsake, with what to use instead.")
    exit(paths.isEmpty ? 64 : 0)
}
do {
    let findings = try PortChecker.check(paths: paths, sampleClasses: sampleClasses)
    for finding in findings { print(finding) }
    exit(findings.isEmpty ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("keepsake port-check: \(error.localizedDescription)\n".utf8))
    exit(2)
}
