import BenchmarkData
import Foundation
import KeyedArchive
import PropertyList

// One operation run a given number of times, for `valgrind --tool=callgrind`, whose
// instruction counts stay put when the machine's speed does not. The fixture is built
// whatever the count, so the work of one operation is the count at 1 minus the count
// at 0 (scripts/instruction-counts.sh does both and prints the difference).
// Usage: InstructionCounts read-binary|write-binary|write-xml|decode-archive|encode-archive ITEMS REPEATS

let arguments = CommandLine.arguments
guard arguments.count == 4, let items = Int(arguments[2]), let repeats = Int(arguments[3]) else {
    print("usage: InstructionCounts read-binary|write-binary|write-xml|decode-archive|encode-archive ITEMS REPEATS")
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
case "encode-archive":
    let objects = HomepwnerModels.records(count: items).map(KeepsakeItem.init)
    for _ in 0..<repeats { keep(try KeyedArchiver.archivedData(withRootObject: objects)) }
default:
    print("unknown operation \(arguments[1])")
    exit(2)
}
