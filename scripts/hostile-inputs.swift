// Writes every case of Tests/KeepsakeCLITests/Support/HostileArchives.swift at full size
// into the folder given as the argument; compiled and run by scripts/hostile-inputs.sh.
import Foundation

@main
struct HostileInputs {
    static func main() throws {
        guard CommandLine.arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: hostile-inputs FOLDER\n".utf8))
            exit(64)
        }
        let folder = URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for hostile in HostileArchives.all(fullSize: true) {
            try Data(hostile.bytes).write(to: folder.appendingPathComponent(hostile.name + ".archive"))
        }
    }
}
