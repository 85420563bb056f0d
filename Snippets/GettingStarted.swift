// Saves two notes in an item store, then opens the store again, as a relaunched app
// would, and finds them there.
import Foundation
import Keepsake

struct Note: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var text: String

    init(text: String) { self.text = text }

    func encode(with coder: KeyedEncoder) { coder.encode(text, forKey: "text") }

    init(coder: KeyedDecoder) throws { text = try coder.decode(String.self, forKey: "text") }
}

let container = try AppContainer.temporary(identifier: "com.example.Notes")  // an app: AppContainer.main
defer { try? container.destroy() }

do {
    let store = try ItemStore<Note>(container: container)  // Documents/items.archive and its journal
    store.add(Note(text: "Buy milk"))
    store.add(Note(text: "Call the plumber"))
    try await store.flush()  // durable: both changes are in the journal, fsynced
}  // the store is released here and gives up its journal, as a process does when it ends

let reopened = try ItemStore<Note>(container: container)  // replays the journal
for note in reopened.allItems { print(note.text) }  // Buy milk, Call the plumber
print(try container.directory(.documents).contentsOfDirectory())  // ["items.archive.journal"]
