// Registers fallback values, changes and observes preferences, and saves them
// durably without synchronize(), as a binary plist in Library/Preferences.
import Foundation
import Keepsake

let container = try AppContainer.temporary(identifier: "com.example.Defaults")
defer { try? container.destroy() }

do {
    let defaults = Defaults(container: container)  // an app: Defaults.standard
    try defaults.register(defaults: ["cardMatrixRows": 4, "cardMatrixColumns": 3])
    print(defaults.integer(forKey: "cardMatrixRows"))  // 4, the registered value

    let token = defaults.observe("cardMatrixRows") { change in
        print("rows:", change.newValue?.int64Value ?? 0)  // rows: 5
    }
    defaults.set(5, forKey: "cardMatrixRows")  // saved on its own within 200 ms

    let columns = Defaults.Key("cardMatrixColumns", default: 3)  // a typed key
    defaults[columns] = 4
    try defaults.flush()  // durable now: in the journal, fsynced, and in the plist
    token.cancel()
}  // released here: whatever is left is saved and the journal folded into the plist

let plist = container.preferencesDirectory.appendingPathComponent("com.example.Defaults.plist")
let (saved, format) = try PropertyListReader().readWithFormat([UInt8](FileSystem.default.contents(of: plist)))
print(format, saved["cardMatrixRows"] ?? "-", saved["cardMatrixColumns"] ?? "-")  // binary 5 4
