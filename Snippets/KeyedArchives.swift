// Archives objects in NSKeyedArchiver's format, reads them back with secure decoding,
// and maps the class name another app wrote to a class of this program.
import Foundation
import Keepsake

final class Person: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String
    init(name: String) { self.name = name }
    func encode(with coder: KeyedEncoder) { coder.encode(name, forKey: "name") }
    init(coder: KeyedDecoder) throws { name = try coder.decode(String.self, forKey: "name") }
}

let container = try AppContainer.temporary(identifier: "com.example.KeyedArchives")
defer { try? container.destroy() }
let url = container.documentsDirectory.appendingPathComponent("people.archive")

try KeyedArchiver.archive([Person(name: "Matt"), Person(name: "Ada")], to: url)  // binary, durable
let data = try FileSystem.default.contents(of: url)
let people = try KeyedUnarchiver.unarchivedObject(ofClass: [Person].self, from: data) ?? []
print(people.map(\.name))  // ["Matt", "Ada"]: the class asked for is allowed

do {
    _ = try KeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self], from: data)  // Person not allowed
} catch {
    print(error.code, error.className ?? "")  // classNotAllowed, and the class named in the archive
}

// An archive from the iOS app names the class with that app's module.
KeyedArchiver.setClassName("Contacts.Person", for: Person.self)
let fromPhone = try KeyedArchiver.archivedData(withRootObject: Person(name: "Grace"))
KeyedUnarchiver.setClass(Person.self, forClassName: "Contacts.Person")
let grace = try KeyedUnarchiver.unarchivedObject(ofClass: Person.self, from: fromPhone)
print(grace?.name ?? "-")  // Grace
