import BenchmarkData
import Foundation
import PropertyList

// The property-list pairs again, timed without the benchmark harness. The harness
// links a malloc interposer that puts a size header on every allocation and answers
// malloc_usable_size itself, which Swift arrays call on every allocation; that taxes
// us far more than Foundation. Best of N runs, same data, same process.
// Usage: swift run -c release PlainRatios [runs]

let runs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 10 : 10

let value = HomepwnerRecords.value(count: 100_000)
let object = HomepwnerRecords.foundationObject(count: 100_000)
let binary = try PropertyListWriter.binary.write(value)
let xml = try PropertyListWriter.xml.write(value)

let pairs: [(String, () throws -> Void, () throws -> Void)] = [
    (
        "binary read 100k", { _ = try PropertyListReader().read(binary) },
        { _ = try PropertyListSerialization.propertyList(from: Data(binary), format: nil) }
    ),
    (
        "binary write 100k", { _ = try PropertyListWriter.binary.write(value) },
        { _ = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0) }
    ),
    (
        "xml read 100k", { _ = try PropertyListReader().read(xml) },
        { _ = try PropertyListSerialization.propertyList(from: Data(xml), format: nil) }
    ),
    (
        "xml write 100k", { _ = try PropertyListWriter.xml.write(value) },
        { _ = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0) }
    ),
]

print("| case (best of \(runs)) | keepsake | Foundation | keepsake is |")
print("|:--|--:|--:|--:|")
for (name, ours, theirs) in pairs {
    let us = try bestOf(runs, ours)
    let them = try bestOf(runs, theirs)
    print(
        "| \(name) | \(String(format: "%.1f", us)) ms | \(String(format: "%.1f", them)) ms | \(String(format: "%.1f", them / us))× faster |"
    )
}
