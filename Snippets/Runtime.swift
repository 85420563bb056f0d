// Keeps blocking file work off Swift's cooperative pool: one-off work through
// BlockingIO, ordered writes through a serial queue of their own.
import Foundation
import Keepsake

let container = try AppContainer.temporary(identifier: "com.example.Runtime")
defer { try? container.destroy() }
let documents = container.directory(.documents)

// A one-off blocking call: the awaiting task is suspended, not a pool thread.
let names = try await BlockingIO.run { () throws(SandboxError) in try documents.contentsOfDirectory() }
print(names)  // []

// Writes that must land in order share one serial queue.
let writes = SerialIOQueue(label: "com.example.saves")
for version in 1...3 {
    try await writes.run { () throws(SandboxError) in try documents.write("version \(version)", to: "note.txt") }
}
print(try documents.string(contentsOf: "note.txt"))  // version 3
