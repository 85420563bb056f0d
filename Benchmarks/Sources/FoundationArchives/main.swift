import BenchmarkData
import Foundation

// Foundation's side of scripts/unarchive-benchmark.sh, one process per step:
//   FoundationArchives write COUNT FILE   NSKeyedArchiver's archive of COUNT items
//   FoundationArchives read FILE          NSKeyedUnarchiver's decode of it; prints the count

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("FoundationArchives: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
switch (arguments.count, arguments.dropFirst().first) {
case (4, "write"):
    guard let count = Int(arguments[2]), count >= 0 else { fail("COUNT must be a number") }
    let items = HomepwnerModels.records(count: count).map(FoundationItem.init)
    let data = try NSKeyedArchiver.archivedData(withRootObject: items, requiringSecureCoding: false)
    try data.write(to: URL(fileURLWithPath: arguments[3]))
case (3, "read"):
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
    let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    unarchiver.requiresSecureCoding = false
    guard let items = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? [FoundationItem] else {
        fail("the archive holds no items: \(String(describing: unarchiver.error))")
    }
    print(items.count)
default:
    fail("usage: FoundationArchives write COUNT FILE | read FILE")
}
