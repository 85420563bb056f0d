import AppDefaults
import AppSandbox
import BenchmarkData
import Foundation
import KeyedArchive
import PropertyList

// One operation run a given number of times, for `valgrind --tool=callgrind`, whose
// instruction counts stay put when the machine's speed does not. The fixture is built
// whatever the count, so the work of one operation is the count at 1 minus the count
// at 0 (scripts/instruction-counts.sh does both and prints the difference).
// Usage: InstructionCounts OPERATION ITEMS REPEATS, where OPERATION is one of
//   read-binary, read-foundation-binary (the records as Foundation's PropertyListSerialization
//   writes them: keys not shared, in an order that changes from record to record),
//   write-binary, write-xml, decode-archive, encode-archive, defaults-get, defaults-set,
//   encode-each, decode-each (an archive per item, as the shared item store keeps them),
//   decode-foundation-archive (Foundation's NSKeyedArchiver archive of the items: every key
//   stored once per object)

let operations =
    "read-binary|read-foundation-binary|write-binary|write-xml|decode-archive|encode-archive|defaults-get|defaults-set"
    + "|encode-each|decode-each|decode-foundation-archive"
let arguments = CommandLine.arguments
guard arguments.count == 4, let items = Int(arguments[2]), let repeats = Int(arguments[3]) else {
    print("usage: InstructionCounts \(operations) ITEMS REPEATS")
    exit(2)
}

@inline(never)
func keep<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

switch arguments[1] {
case "read-binary":
    let bytes = try PropertyListWriter.binary.write(HomepwnerRecords.value(count: items))
    for _ in 0..<repeats { keep(try PropertyListReader().read(bytes)) }
case "read-foundation-binary":
    let bytes = Array(
        try PropertyListSerialization.data(
            fromPropertyList: HomepwnerRecords.foundationObject(count: items), format: .binary, options: 0))
    for _ in 0..<repeats { keep(try PropertyListReader().read(bytes)) }
case "write-binary":
    let value = HomepwnerRecords.value(count: items)
    for _ in 0..<repeats { keep(try PropertyListWriter.binary.write(value)) }
case "write-xml":
    let value = HomepwnerRecords.value(count: items)
    for _ in 0..<repeats { keep(try PropertyListWriter.xml.write(value)) }
case "decode-archive":
    let archive = try KeyedArchiver.archivedData(
        withRootObject: HomepwnerModels.records(count: items).map(KeepsakeItem.init))
    for _ in 0..<repeats {
        keep(try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: KeepsakeItem.self, from: archive))
    }
case "decode-foundation-archive":
    let archive = try NSKeyedArchiver.archivedData(
        withRootObject: HomepwnerModels.records(count: items).map(FoundationItem.init), requiringSecureCoding: false)
    for _ in 0..<repeats {
        let decoder = try KeyedDecoder(forReadingFrom: archive)
        decoder.setClass(KeepsakeItem.self, forClassName: NSStringFromClass(FoundationItem.self))
        keep(try decoder.decode([KeepsakeItem].self, forKey: NSKeyedArchiveRootObjectKey))
    }
case "encode-archive":
    let objects = HomepwnerModels.records(count: items).map(KeepsakeItem.init)
    for _ in 0..<repeats { keep(try KeyedArchiver.archivedData(withRootObject: objects)) }
case "encode-each":
    let objects = HomepwnerModels.records(count: items).map(StoreItem.init)
    for _ in 0..<repeats { for object in objects { keep(try KeyedArchiver.archivedData(withRootObject: object)) } }
case "decode-each":
    let archives = try HomepwnerModels.records(count: items).map {
        try KeyedArchiver.archivedData(withRootObject: StoreItem($0))
    }
    for _ in 0..<repeats {
        for archive in archives { keep(try KeyedUnarchiver.unarchivedObject(ofClass: StoreItem.self, from: archive)) }
    }
case "defaults-get", "defaults-set":
    // ITEMS keys in a scratch container; saves only where asked (never here).
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-counts-\(getpid())")
    defer { try? FileManager.default.removeItem(at: scratch) }
    var configuration = Defaults.Configuration()
    configuration.arguments = []
    configuration.externalChangeInterval = nil
    configuration.writeDelay = .seconds(3_600)
    let container = try AppContainer(identifier: "org.keepsake.counts", containersDirectory: scratch)
    let defaults = Defaults(container: container, configuration: configuration)
    let keys = (0..<items).map { "key-\($0)" }
    for (index, key) in keys.enumerated() { defaults.set(index, forKey: key) }
    for round in 0..<repeats {
        if arguments[1] == "defaults-get" {
            var sum = 0
            for key in keys { sum &+= defaults.integer(forKey: key) }
            keep(sum)
        } else {
            for (index, key) in keys.enumerated() { defaults.set(index &+ round, forKey: key) }
        }
    }
default:
    print("unknown operation \(arguments[1])")
    exit(2)
}
