// Stand-ins with the names and methods of the AppStores layer, which
// are not in this branch yet. They keep state in memory only; this file goes away when
// that layer lands and the app switches to it.
import Foundation
import Synchronization

final class ItemStore<Model: Sendable>: Sendable {
    private struct State { var items: [Model] = []; var version = 0; var savedVersion = 0 }
    private let state = Mutex(State())

    init() {}

    var allItems: [Model] { state.withLock { $0.items } }
    var isDirty: Bool { state.withLock { $0.version != $0.savedVersion } }

    func add(_ item: Model) { mutate { $0.append(item) } }

    func removeAll(where predicate: (Model) -> Bool) -> Int {
        state.withLock { state in
            let before = state.items.count
            state.items.removeAll(where: predicate)
            if state.items.count != before { state.version += 1 }
            return before - state.items.count
        }
    }

    func move(from: Int, to: Int) -> Bool {
        state.withLock { state in
            guard state.items.indices.contains(from), state.items.indices.contains(to) else { return false }
            let item = state.items.remove(at: from)
            state.items.insert(item, at: to)
            state.version += 1
            return true
        }
    }

    func updateAll(where predicate: (Model) -> Bool, _ body: (inout Model) -> Void) -> Int {
        state.withLock { state in
            var count = 0
            for index in state.items.indices where predicate(state.items[index]) {
                body(&state.items[index])
                count += 1
            }
            if count > 0 { state.version += 1 }
            return count
        }
    }

    func save() throws { state.withLock { $0.savedVersion = $0.version } }

    func saveIfDirty() throws { if isDirty { try save() } }

    private func mutate(_ body: (inout [Model]) -> Void) {
        state.withLock { body(&$0.items); $0.version += 1 }
    }
}

enum ImageKind: String, Sendable, Hashable {
    case jpeg, png, unknown

    init(bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(8))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { self = .jpeg }
        else if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { self = .png }
        else { self = .unknown }
    }

    var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .unknown: "application/octet-stream"
        }
    }
}

final class BlobStore: Sendable {
    private let blobs = Mutex([String: Data]())
    init() {}
    func set(_ data: Data, forKey key: String) throws { blobs.withLock { $0[key] = data } }
    func data(forKey key: String) throws -> Data? { blobs.withLock { $0[key] } }
    func delete(forKey key: String) throws { _ = blobs.withLock { $0.removeValue(forKey: key) } }
    func contains(key: String) -> Bool { blobs.withLock { $0[key] != nil } }
}
