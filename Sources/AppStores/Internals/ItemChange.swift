import Foundation
import KeyedArchive

/// One change to an ``ItemStore``'s items, as its journal records it and as replay
/// applies it. Each applies to the items exactly as the store's method did, so that
/// replaying the records in order on the checkpoint rebuilds the items in memory.
///
/// Encoded as one byte of kind, two little-endian 64-bit indexes, then the keyed
/// archive of the item (or of every item, for `replaceAll`).
enum ItemChange<Model: KeyedArchivable> {
    case insert(Model, at: Int)
    case remove(at: Int)
    case replace(Model, at: Int)
    case move(from: Int, to: Int)
    case replaceAll([Model])

    func apply(to items: inout [Model]) {
        switch self {
        case .insert(let item, let index):
            items.insert(item, at: min(max(index, 0), items.count))
        case .remove(let index):
            if items.indices.contains(index) { items.remove(at: index) }
        case .replace(let item, let index):
            if items.indices.contains(index) { items[index] = item }
        case .move(let from, let to):
            guard items.indices.contains(from), items.indices.contains(to) else { return }
            items.insert(items.remove(at: from), at: to)
        case .replaceAll(let all):
            items = all
        }
    }

    private enum Kind: UInt8 {
        case insert = 1
        case remove, replace, move, replaceAll
    }
    private static var headerSize: Int { 17 }

    /// - Throws: ``StoreError`` `.encodingFailed` when the item cannot be archived.
    func encoded() throws(StoreError) -> Data {
        let (kind, first, second, archive): (Kind, Int, Int, Data)
        do {
            switch self {
            case .insert(let item, let index):
                (kind, first, second, archive) = (
                    .insert, index, 0, try KeyedArchiver.archivedData(withRootObject: item)
                )
            case .remove(let index): (kind, first, second, archive) = (.remove, index, 0, Data())
            case .replace(let item, let index):
                (kind, first, second, archive) = (
                    .replace, index, 0, try KeyedArchiver.archivedData(withRootObject: item)
                )
            case .move(let from, let to): (kind, first, second, archive) = (.move, from, to, Data())
            case .replaceAll(let items):
                (kind, first, second, archive) = (
                    .replaceAll, 0, 0, try KeyedArchiver.archivedData(withRootObject: items)
                )
            }
        } catch {
            throw StoreError(.encodingFailed, "cannot archive the changed item", underlyingError: error)
        }
        var data = Data([kind.rawValue])
        withUnsafeBytes(of: Int64(first).littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(second).littleEndian) { data.append(contentsOf: $0) }
        data.append(archive)
        return data
    }

    /// - Throws: ``StoreError`` `.corruptArchive` for a record this model cannot read.
    init(decoding data: Data) throws(StoreError) {
        let bytes = [UInt8](data)
        guard bytes.count >= Self.headerSize, let kind = Kind(rawValue: bytes[0]) else {
            throw StoreError(.corruptArchive, "a journal record of \(bytes.count) bytes names no change")
        }
        func index(at offset: Int) -> Int {
            Int(
                truncatingIfNeeded: bytes.withUnsafeBytes {
                    Int64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int64.self))
                })
        }
        let (first, second) = (index(at: 1), index(at: 9))
        let archive = Data(bytes[Self.headerSize...])
        do {
            switch kind {
            case .insert: self = .insert(try Self.item(from: archive), at: first)
            case .remove: self = .remove(at: first)
            case .replace: self = .replace(try Self.item(from: archive), at: first)
            case .move: self = .move(from: first, to: second)
            case .replaceAll:
                // A nil root throws; a model's fields may hold collections (see ArchiveFileBackend).
                self = .replaceAll(
                    try KeyedUnarchiver.unarchivedStoredObject(ofClass: [Model].self, from: archive) ?? [])
            }
        } catch {
            throw StoreError(
                .corruptArchive, "a journal record holds no archive of \(Model.self) items", underlyingError: error)
        }
    }

    /// The item an archive holds; the unarchiver throws for a nil root, so the
    /// optional it returns is never `nil` here.
    private static func item(from archive: Data) throws -> Model {
        guard let item = try KeyedUnarchiver.unarchivedStoredObject(ofClass: Model.self, from: archive) else {
            throw KeyedUnarchiver.rootNotFound()
        }
        return item
    }
}
