import Foundation
import TestSupport

/// One client of one replica: random creates, edits and deletes of its own items, and
/// settings changes, each recorded with what came of it; a read of the replica after
/// each. An operation whose answer was lost (the replica killed, say) is settled by
/// reading the replica once it answers again: what it holds then is durable.
struct JepsenClient {
    let replica: Int
    let cluster: JepsenCluster
    let history: JepsenHistory
    var random: SplitMix64
    /// This client's items the replica holds, by name: key and version.
    private var live: [String: (key: String, version: Int)] = [:]
    private var created = 0
    private var serialsSet = 0
    static let maximumLiveItems = 25
    /// Whether this client sets serial numbers on the old-model replica's items: the
    /// first replica does, when there is one.
    private var setsSerials: Bool { replica == 0 && cluster.oldModelReplica.map { $0 != replica } ?? false }

    init(replica: Int, cluster: JepsenCluster, history: JepsenHistory, seed: UInt64) {
        self.replica = replica
        self.cluster = cluster
        self.history = history
        random = SplitMix64(seed: seed)
    }

    /// An operation's outcome: answered (with the status), or not answered at all.
    private enum Outcome {
        case answered(Int)
        case lost(String)
    }

    mutating func run(until deadline: ContinuousClock.Instant) async {
        while ContinuousClock.now < deadline {
            guard let base = cluster.baseURL(replica) else {
                try? await Task.sleep(for: .milliseconds(50))
                continue
            }
            let roll = random.next() % 100
            if roll < 15 {
                await setCurrencyFormat(base)
            } else if live.isEmpty || (roll < 50 && live.count < Self.maximumLiveItems) {
                await create(base)
            } else if roll < 85 {
                await edit(base)
            } else if setsSerials && roll < 93 {
                await setSerialOfOldModelItem(base)
            } else {
                await delete(base)
            }
            if let base = cluster.baseURL(replica) { await read(base) }
            try? await Task.sleep(for: .milliseconds(20 + Int(random.next() % 60)))
        }
    }

    private func send(_ method: String, _ url: URL, form: [(String, String)]? = nil) async -> Outcome {
        do {
            let reply = if let form { try await HTTP.postForm(url, form) } else { try await HTTP.send(method, url) }
            return .answered(reply.status)
        } catch {
            return .lost("\(error)")
        }
    }

    /// The replica's items by name once it answers again (nil if it never does within a minute).
    private func settledItems() async -> [String: HTTP.ItemRow]? {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if cluster.isAnswering(replica), let base = cluster.baseURL(replica),
                let items = try? await HTTP.items(base)
            {
                return Dictionary(items.map { ($0.name, $0) }) { first, _ in first }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    private mutating func create(_ base: URL) async {
        created += 1
        let name = "r\(replica)-\(created)"
        let outcome = await send(
            "POST", base.appendingPathComponent("items"), form: [("name", name), ("valueInDollars", "0")])
        if case .answered(let status) = outcome, status != 303, status < 500 {
            history.failed("create", "status \(status)")
            return
        }
        guard let items = await settledItems() else { return history.failed("create", "the replica did not come back") }
        guard let item = items[name] else {
            if case .answered(303) = outcome {
                history.violation("replica \(replica) acknowledged \(name) but does not list it")
            }
            return history.failed("create", "\(outcome)")
        }
        live[name] = (item.itemKey, 0)
        history.took(name, owner: replica, key: item.itemKey, result: .present(version: 0), operation: "create")
    }

    private mutating func edit(_ base: URL) async {
        guard let name = live.keys.sorted().randomElement(using: &random), let (key, version) = live[name],
            history.claim(name)
        else {
            return
        }
        defer { history.release(name) }
        let next = version + 1
        let outcome = await send(
            "POST", base.appendingPathComponent("items/\(key)"),
            form: [("name", name), ("valueInDollars", String(next))])
        if case .answered(303) = outcome {
            live[name] = (key, next)
            return history.took(name, owner: replica, key: key, result: .present(version: next), operation: "edit")
        }
        guard let items = await settledItems() else { return history.failed("edit", "the replica did not come back") }
        switch items[name]?.valueInDollars {
        case next:
            live[name] = (key, next)
            history.took(name, owner: replica, key: key, result: .present(version: next), operation: "edit")
        case version:
            history.failed("edit", "\(outcome)")
        case let shown:
            history.violation(
                "replica \(replica) holds \(name) as \(shown.map { "v\($0)" } ?? "absent"), not v\(version) or v\(next)"
            )
        }
    }

    private mutating func delete(_ base: URL) async {
        guard let name = live.keys.sorted().randomElement(using: &random), let (key, _) = live[name],
            history.claim(name)
        else { return }
        defer { history.release(name) }
        let outcome = await send("DELETE", base.appendingPathComponent("items/\(key)"))
        if case .answered(204) = outcome {
            live[name] = nil
            return history.took(name, owner: replica, key: key, result: .deleted, operation: "delete")
        }
        guard let items = await settledItems() else { return history.failed("delete", "the replica did not come back") }
        if items[name] == nil {
            live[name] = nil
            history.took(name, owner: replica, key: key, result: .deleted, operation: "delete")
        } else {
            history.failed("delete", "\(outcome)")
        }
    }

    /// Sets a serial number on an item of the old-model replica, whose model has none,
    /// while its owner leaves it alone. The form carries the value the owner last
    /// acknowledged, once this replica shows it: the edit changes the serial number
    /// only. The owner waits until another replica of the current model shows the
    /// serial number, so that its next edit is a change from a row that holds it (the
    /// checks are of fields kept, not of which of two writes at once wins).
    private mutating func setSerialOfOldModelItem(_ base: URL) async {
        guard let owner = cluster.oldModelReplica,
            let (name, version) = history.presentItems(of: owner).randomElement(using: &random),
            let key = history.key(of: name), history.claim(name)
        else { return }
        defer { history.release(name) }
        let deadline = ContinuousClock.now + .seconds(5)
        while (try? await HTTP.items(base))?.first(where: { $0.name == name })?.valueInDollars != version {
            guard ContinuousClock.now < deadline else { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
        serialsSet += 1
        let serial = "S\(replica)-\(serialsSet)"
        let outcome = await send(
            "POST", base.appendingPathComponent("items/\(key)"),
            form: [("name", name), ("valueInDollars", String(version)), ("serialNumber", serial)])
        switch outcome {
        case .answered(303): history.setSerial(serial, on: name, acknowledged: true)
        case .answered(let status) where status < 500: return history.failed("serial", "status \(status)")
        default: history.setSerial(serial, on: name, acknowledged: false)
        }
        let shared = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < shared {
            if let other = (1..<cluster.count).first(where: { $0 != owner }), let base = cluster.baseURL(other),
                (try? await HTTP.items(base))?.first(where: { $0.name == name })?.serialNumber == serial
            {
                return
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private mutating func setCurrencyFormat(_ base: URL) async {
        let format = HTTP.currencyFormats[Int(random.next() % 3)]
        let outcome = await send(
            "POST", base.appendingPathComponent("settings"),
            form: [("sortOrder", "manual"), ("currencyFormat", format)])
        switch outcome {
        case .answered(303): history.settingAcknowledged(format)
        case .answered(let status) where status < 500: history.failed("setting", "status \(status)")
        default: history.settingMayHaveTaken(format)
        }
    }

    private func read(_ base: URL) async {
        let started = ContinuousClock.now
        guard let items = try? await HTTP.items(base) else { return }
        history.observed(
            Observation(
                replica: replica, started: started, ended: ContinuousClock.now,
                values: Dictionary(items.map { ($0.name, $0.valueInDollars) }) { first, _ in first }))
    }
}
