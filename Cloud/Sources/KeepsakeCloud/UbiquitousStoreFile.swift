import AppSandbox
import Foundation
import PropertyList

/// What a replica keeps on disk: its name, every change it knows of, which of its own
/// are not yet in the shared log, and how far it has read that log. A binary plist in
/// the container's `Library/Preferences/`, beside the app's preferences, replaced
/// durably on every change.
struct UbiquitousStoreFile: Equatable {
    var replica: String
    var position: Int64 = 0
    var lastTimestamp: HybridTimestamp?
    /// Every known change, in timestamp order.
    var log: [KeyValueChange] = []
    var pending: Set<HybridTimestamp> = []

    init(replica: String) {
        self.replica = replica
    }

    /// Each change as `[key, milliseconds, counter, replica, pending, value?]`.
    var propertyList: PropertyListValue {
        var root = PropertyListDictionary()
        root["replica"] = .string(replica)
        root["position"] = .integer(position)
        if let lastTimestamp {
            root["clock"] = .array([.integer(lastTimestamp.milliseconds), .integer(lastTimestamp.counter)])
        }
        root["log"] = .array(
            log.map { change in
                var fields: [PropertyListValue] = [
                    .string(change.key), .integer(change.timestamp.milliseconds), .integer(change.timestamp.counter),
                    .string(change.timestamp.replica), .bool(pending.contains(change.timestamp)),
                ]
                if let value = change.value { fields.append(value) }
                return .array(fields)
            })
        return .dictionary(root)
    }

    /// - Throws: ``UbiquitousStoreError`` `.storageFailed` for a file that is not one.
    init(propertyList: PropertyListValue) throws(UbiquitousStoreError) {
        func corrupt(_ what: String) -> UbiquitousStoreError {
            UbiquitousStoreError(.storageFailed, "the store's file is damaged: \(what)")
        }
        guard let root = propertyList.dictionaryValue, let replica = root["replica"]?.stringValue,
            let position = root["position"]?.int64Value, let log = root["log"]?.arrayValue
        else { throw corrupt("replica, position or log missing") }
        self.replica = replica
        self.position = position
        if let clock = root["clock"]?.arrayValue {
            guard clock.count == 2, let milliseconds = clock[0].int64Value, let counter = clock[1].int64Value else {
                throw corrupt("clock")
            }
            lastTimestamp = HybridTimestamp(milliseconds: milliseconds, counter: counter, replica: replica)
        }
        for (index, entry) in log.enumerated() {
            guard let fields = entry.arrayValue, fields.count == 5 || fields.count == 6,
                let key = fields[0].stringValue, let milliseconds = fields[1].int64Value,
                let counter = fields[2].int64Value, let author = fields[3].stringValue,
                let isPending = fields[4].boolValue
            else { throw corrupt("change \(index)") }
            let timestamp = HybridTimestamp(milliseconds: milliseconds, counter: counter, replica: author)
            if let previous = self.log.last, !(previous.timestamp < timestamp) {
                throw corrupt("change \(index) is out of order")
            }
            self.log.append(KeyValueChange(key: key, value: fields.count == 6 ? fields[5] : nil, timestamp: timestamp))
            if isPending { pending.insert(timestamp) }
        }
    }

    /// The file in `directory`: `nil` when there is none yet.
    /// - Throws: ``UbiquitousStoreError`` `.storageFailed`; a damaged file is left as it is.
    static func load(named name: String, in directory: SandboxDirectory) throws(UbiquitousStoreError) -> Self? {
        let data: Data
        do {
            data = try directory.contents(of: name)
        } catch .noSuchFile {
            return nil
        } catch {
            throw UbiquitousStoreError(.storageFailed, "cannot read \(name)", underlyingError: error)
        }
        do {
            return try Self(propertyList: PropertyListReader().read(data))
        } catch let error as UbiquitousStoreError {
            throw error
        } catch {
            throw UbiquitousStoreError(.storageFailed, "\(name) is not a property list", underlyingError: error)
        }
    }

    /// Replaces the file durably; on failure the previous one is intact.
    /// - Throws: ``UbiquitousStoreError`` `.storageFailed`.
    func save(named name: String, in directory: SandboxDirectory) throws(UbiquitousStoreError) {
        do {
            let bytes = try PropertyListWriter.binary.write(propertyList)
            try directory.create()
            try directory.write(Data(bytes), to: name)
        } catch {
            throw UbiquitousStoreError(.storageFailed, "cannot write \(name)", underlyingError: error)
        }
    }
}
