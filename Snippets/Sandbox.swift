// Writes durably inside an app container, refuses a path that would leave it,
// coordinates a read-modify-write, and lists what a backup would take.
import Foundation
import Keepsake

let container = try AppContainer.temporary(identifier: "com.example.Sandbox")
defer { try? container.destroy() }

let documents = container.directory(.documents)
try documents.createDirectory("notes")
try documents.write("Buy milk", to: "notes/today.txt")  // temporary file, fsync, rename, fsync of the folder
print(try documents.string(contentsOf: "notes/today.txt"))  // Buy milk

do {
    try documents.write(Data(), to: "../escape")
} catch {
    print("refused:", error.code)  // before anything is touched
}

// The books' calls: FileManager's search paths and an atomic write, ported.
let docsURL = container.urls(for: .documentDirectory, in: .userDomainMask).first!
let counterURL = docsURL.appendingPathComponent("counter.txt")
try FileSystem.default.write("0", to: counterURL)
try FileCoordinator().coordinate(writingItemAt: counterURL) { url in
    let count = Int(try FileSystem.default.string(contentsOf: url)) ?? 0
    try FileSystem.default.write(String(count + 1), to: url)
}

try container.directory(.caches).write(Data(count: 1024), to: "thumbnail.jpg")  // never backed up
for item in try BackupPlan(container: container).items { print(item.path, item.size) }
