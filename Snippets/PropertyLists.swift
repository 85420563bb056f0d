// Writes a property list as binary and XML, reads it back whatever its format, edits
// it by key path, and stores it durably in a container.
import Foundation
import Keepsake

var item: PropertyListValue = [
    "name": "Rusty Spork",
    "serialNumber": "E6R1X",
    "valueInDollars": 42,
    "dateCreated": .date(Date()),
]
let binary = try PropertyListWriter.binary.write(item)  // bplist00, Apple's layout
let xml = try PropertyListWriter.xml.write(item)
let (back, format) = try PropertyListReader().readWithFormat(binary)
print(format, back == item, back["name"]?.stringValue ?? "")  // binary true Rusty Spork

try item.replace(43, at: "valueInDollars")  // the key paths of plutil
print(item.value(at: "valueInDollars")?.int64Value ?? 0)  // 43

// Foundation's shapes, as PropertyListSerialization takes and gives them.
let data = try PropertyListWriter.xml.data(fromPropertyList: ["Manny", "Moe", "Jack"])
let (names, _) = try PropertyListReader().propertyList(from: data)
print(names as? [String] ?? [])  // ["Manny", "Moe", "Jack"]

let container = try AppContainer.temporary(identifier: "com.example.PropertyLists")
defer { try? container.destroy() }
let documents = container.directory(.documents)
try documents.write(Data(xml), to: "item.plist")  // temporary file, fsync, rename, fsync of the folder
print(try PropertyListReader().read(documents.contents(of: "item.plist"))["serialNumber"] ?? "-")  // "E6R1X"
