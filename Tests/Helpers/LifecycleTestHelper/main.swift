// A small app for the lifecycle's child-process tests: an Application with an item
// store in a given container, listening to signals, printing every callback.
//
//   LifecycleTestHelper CONTAINERS_DIR [--grace MS] [--limit MS] [--background-task]
//
// Prints one line per event (`didFinishLaunching`, `willResignActive`, …,
// `didSuspend`), `store count=N dirty=BOOL` after each automatic save point, and
// `expired` when a background task's time runs out. Reads commands on standard input:
// `add NAME` (adds an item without saving), `rename OLD NEW` (changes an item in place,
// through its reference, as the books' controllers do), `save`. Exits 0 after
// `willTerminate`.

import AppLifecycle
import AppSandbox
import AppStores
import Foundation
import KeyedArchive
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A class with a `var`, as the books write their models: it lives on the main actor
/// with the store, and needs no `Sendable`.
final class Note: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var name: String
    init(name: String) { self.name = name }
    func encode(with coder: KeyedEncoder) { coder.encode(name, forKey: "name") }
    init(coder: KeyedDecoder) throws { name = try coder.decode(String.self, forKey: "name") }
}

final class Delegate: ApplicationDelegate {
    let startsBackgroundTask: Bool
    init(startsBackgroundTask: Bool) { self.startsBackgroundTask = startsBackgroundTask }

    func applicationDidFinishLaunching(_ application: Application) { say("didFinishLaunching") }
    func applicationWillResignActive(_ application: Application) { say("willResignActive") }
    func applicationDidBecomeActive(_ application: Application) { say("didBecomeActive") }
    func applicationWillEnterForeground(_ application: Application) { say("willEnterForeground") }
    func applicationWillTerminate(_ application: Application) { say("willTerminate") }
    func applicationDidEnterBackground(_ application: Application) {
        say("didEnterBackground")
        guard startsBackgroundTask else { return }
        // Work that never finishes: only the expiration handler ends it.
        let task = Box()
        task.id = application.beginBackgroundTask(withName: "upload") {
            say("expired")
            application.endBackgroundTask(task.id)
        }
    }
}

/// The task's identifier, for its own expiration handler; on the main actor with both.
@MainActor
final class Box {
    var id = Application.BackgroundTaskIdentifier.invalid
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let containers = arguments.first else {
    say("usage: LifecycleTestHelper CONTAINERS_DIR [--grace MS] [--limit MS] [--background-task]")
    exit(2)
}
func milliseconds(after flag: String, default value: Int, in arguments: [String]) -> Duration {
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count, let ms = Int(arguments[index + 1])
    else {
        return .milliseconds(value)
    }
    return .milliseconds(ms)
}

let container = try AppContainer(
    identifier: "org.keepsake.lifecycle-helper", containersDirectory: URL(fileURLWithPath: containers))
let store = try ItemStore<Note>(container: container)
let application = Application(
    delegate: Delegate(startsBackgroundTask: arguments.contains("--background-task")),
    configuration: .init(
        backgroundGracePeriod: milliseconds(after: "--grace", default: 3000, in: arguments),
        backgroundTimeLimit: milliseconds(after: "--limit", default: 30000, in: arguments)))
store.attach(to: application)
let reporter = application.addObserver { event in
    switch event {
    case .didEnterBackground, .willTerminate: say("store count=\(store.count) dirty=\(store.isDirty)")
    case .didSuspend: say("didSuspend")
    default: break
    }
}

/// Runs one command, on the main actor with the store and the lifecycle.
@MainActor func handle(_ line: String) {
    if line.hasPrefix("add ") {
        store.add(Note(name: String(line.dropFirst(4))))
        say("added \(line.dropFirst(4))")
    } else if line.hasPrefix("rename "), case let names = line.split(separator: " "), names.count == 3 {
        for note in store.allItems where note.name == names[1] { note.name = String(names[2]) }
        say("renamed \(names[2]) dirty=\(store.isDirty)")
    } else if line == "save" {
        do {
            try store.save()
            say("saved")
        } catch {
            say("save failed: \(error)")
        }
    }
}

// Standard input blocks, so it is read on a thread of its own; the lines are handled on
// the main actor, in order.
let (lines, nextLine) = AsyncStream<String>.makeStream()
Thread {
    while let line = readLine() { nextLine.yield(line) }
    nextLine.finish()
}.start()
Task { @MainActor in
    for await line in lines { handle(line) }
}

await application.run(sources: [SignalEventSource()])
say("exiting")
withExtendedLifetime(reporter) {}
exit(0)
