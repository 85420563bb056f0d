import AppDefaults
@_spi(Testing) import AppRuntime
import AppSandbox
import Foundation
import Locking
import PropertyList
import Testing

/// Per-key observation (closures and AsyncSequence), didChangeNotification, and
/// changes another writer saved.
@Suite("Observation")
struct ObservationTests {
    final class Recorder: Sendable {
        private let changes = Locked<[DefaultsChange]>([])
        func record(_ change: DefaultsChange) { changes.withLock { $0.append(change) } }
        var all: [DefaultsChange] { changes.withLock { $0 } }
    }

    @Test("An observer hears every change of its key's winning value, and nothing else")
    func closureObservation() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let defaults = try fixture.defaults()
        let recorder = Recorder()
        let token = defaults.observe("volume") { recorder.record($0) }
        defaults.register(["volume": 0.5])
        defaults.set(0.8, forKey: "volume")
        defaults.set(0.8, forKey: "volume")
        defaults.set(1, forKey: "other")
        defaults.removeObject(forKey: "volume")
        #expect(
            recorder.all == [
                DefaultsChange(key: "volume", oldValue: nil, newValue: 0.5, isExternal: false),
                DefaultsChange(key: "volume", oldValue: 0.5, newValue: 0.8, isExternal: false),
                DefaultsChange(key: "volume", oldValue: 0.8, newValue: 0.5, isExternal: false),
            ])
        token.cancel()
        defaults.set(0.1, forKey: "volume")
        #expect(recorder.all.count == 3, "a cancelled observation must stay silent")
    }

    @Test("Releasing the token ends the observation")
    func tokenLifetime() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let defaults = try fixture.defaults()
        let recorder = Recorder()
        do {
            let token = defaults.observe("k") { recorder.record($0) }
            defaults.set(1, forKey: "k")
            withExtendedLifetime(token) {}
        }
        defaults.set(2, forKey: "k")
        #expect(recorder.all.map(\.newValue) == [1])
    }

    @Test("changes(forKey:) and values(for:) deliver changes as async sequences")
    func asyncSequences() async throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let defaults = try fixture.defaults()
        let key = Defaults.Key("rows", default: 4)
        var changes = defaults.changes(forKey: "rows").makeAsyncIterator()
        var values = defaults.values(for: key).makeAsyncIterator()
        defaults[key] = 5
        defaults.removeValue(for: key)
        #expect(await changes.next()?.newValue == 5)
        #expect(await changes.next()?.newValue == nil)
        #expect(await values.next() == 5)
        #expect(await values.next() == 4, "a removed key's stream yields the default")
    }

    @Test("didChangeNotification is posted on every set, even one that changes nothing")
    func notification() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let defaults = try fixture.defaults()
        let other = try fixture.defaults()
        let count = Recorder()
        let observer = NotificationCenter.default.addObserver(
            forName: Defaults.didChangeNotification, object: defaults, queue: nil
        ) { _ in
            count.record(DefaultsChange(key: "", oldValue: nil, newValue: nil, isExternal: false))
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        defaults.set(1, forKey: "a")
        defaults.set(1, forKey: "a")
        defaults.removeObject(forKey: "a")
        other.set(1, forKey: "a")
        #expect(count.all.count == 3, "one per set on this Defaults, none for another")
    }

    @Test("Another writer's saved change is noticed by the file watch and delivered as external")
    func externalChangesAreDelivered() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let watcher = try fixture.make(fixture.configuration(watch: true))
        let recorder = Recorder()
        let token = watcher.observe("color") { recorder.record($0) }
        defer { token.cancel() }
        let writer = try fixture.defaults()
        writer.set("blue", forKey: "color")
        try writer.flush()
        #expect(recorder.all.isEmpty, "nothing is read before the watch runs")
        fixture.scheduler.advance(by: .milliseconds(500))
        #expect(recorder.all == [DefaultsChange(key: "color", oldValue: nil, newValue: "blue", isExternal: true)])
        #expect(watcher.string(forKey: "color") == "blue")
        fixture.scheduler.advance(by: .milliseconds(500))
        #expect(recorder.all.count == 1, "an unchanged file must not deliver again")

        // A local unsaved change wins over the other writer's value for the same key.
        watcher.set("red", forKey: "color")
        writer.set("green", forKey: "color")
        writer.set("square", forKey: "shape")
        try writer.flush()
        watcher.checkForExternalChanges()
        #expect(watcher.string(forKey: "color") == "red")
        #expect(watcher.string(forKey: "shape") == "square")
        try watcher.flush()
        #expect(try fixture.file("com.example.Homepwner") == ["color": "red", "shape": "square"])
    }

    @Test(
        "An observer may save and read from its handler, also when a save delivers another writer's change",
        .timeLimit(.minutes(1)))
    func handlersMayCallBack() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let defaults = try fixture.defaults()
        let other = try fixture.defaults()
        let recorder = Recorder()
        let token = defaults.observe("k") { [defaults] change in
            try? defaults.flush()
            defaults.synchronize()
            recorder.record(change)
            _ = defaults.string(forKey: "k")
        }
        defer { token.cancel() }
        defaults.set("local", forKey: "k")
        other.set("theirs", forKey: "k")
        try other.flush()
        defaults.set("mine", forKey: "unrelated")
        try defaults.flush()  // reads the file other replaced and delivers "theirs"
        #expect(recorder.all.map(\.newValue) == ["local", "theirs"])
        #expect(recorder.all.last?.isExternal == true)
    }
}
