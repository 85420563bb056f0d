// A child process for the defaults' cross-process and crash tests; not part of the library.
//
//   DefaultsTestHelper set CONTAINERS APP KEY VALUE
//       sets KEY to the string VALUE and exits normally, without flush or synchronize
//   DefaultsTestHelper set-and-hang CONTAINERS APP KEY VALUE DELAY_MS
//       sets KEY with a write delay of DELAY_MS, prints "set", then waits to be killed
//   DefaultsTestHelper read CONTAINERS APP KEY
//       prints KEY's string value, or "(absent)"
//   DefaultsTestHelper crash-writer CONTAINERS APP
//       saves "counter" = 1, 2, 3… (with a large "payload") forever, flushing each,
//       printing "saved N" after each save
//   DefaultsTestHelper hammer CONTAINERS GROUP SUITE NAME ROUNDS
//       ROUNDS times: sets NAME-i = i and "shared" = "NAME-i" in the suite, and saves
//       (every round, or on the short write delay every third round); prints "done"
//   DefaultsTestHelper keys CONTAINERS APP PREFIX COUNT
//       sets PREFIX-0 … PREFIX-(COUNT-1) in the app's domain, flushing after each; prints "done"
//   DefaultsTestHelper hold-lock CONTAINERS APP
//       takes the app domain's cross-process lock through FileCoordinator, prints
//       "locked", then waits to be killed
//   DefaultsTestHelper standard-set KEY VALUE
//       sets KEY in Defaults.standard (the app's own container, from KEEPSAKE_APP_ID
//       or the executable's name), prints AppContainer.main's identifier and folder,
//       and exits normally without flush
//   DefaultsTestHelper standard-read KEY
//       prints KEY's string value in Defaults.standard, or "(absent)"
//   DefaultsTestHelper watches CONTAINERS APP
//       prints the inotify descriptors open before, while 10 watching Defaults live,
//       and after they are released (waiting up to 5 s for their threads to end)
import AppDefaults
import AppSandbox
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    fail("usage: DefaultsTestHelper COMMAND ARGUMENTS… (see the list at the top of main.swift)")
}
let containers = URL(fileURLWithPath: arguments[2])

func container(_ identifier: String) -> AppContainer {
    do {
        return try AppContainer(identifier: identifier, containersDirectory: containers)
    } catch {
        fail("container: \(error)")
    }
}

func configuration(writeDelay: Duration = .milliseconds(50)) -> Defaults.Configuration {
    var configuration = Defaults.Configuration()
    configuration.arguments = []
    configuration.writeDelay = writeDelay
    configuration.externalChangeInterval = nil
    configuration.watchesFiles = false
    configuration.errorHandler = { error in FileHandle.standardError.write(Data("reported: \(error)\n".utf8)) }
    return configuration
}

/// Saves now; a failed save ends the helper with the error.
func flushOrFail(_ defaults: Defaults) {
    do {
        try defaults.flush()
    } catch {
        fail("flush failed: \(error)")
    }
}

switch arguments[1] {
case "set" where arguments.count == 6:
    let defaults = Defaults(container: container(arguments[3]), configuration: configuration(writeDelay: .seconds(60)))
    defaults.set(arguments[5], forKey: arguments[4])
    exit(0)

case "set-and-hang" where arguments.count == 7:
    guard let delay = Int(arguments[6]) else { fail("DELAY_MS must be a number") }
    let defaults = Defaults(
        container: container(arguments[3]), configuration: configuration(writeDelay: .milliseconds(delay)))
    defaults.set(arguments[5], forKey: arguments[4])
    say("set")
    while true { pause() }

case "read" where arguments.count == 5:
    let defaults = Defaults(container: container(arguments[3]), configuration: configuration())
    say(defaults.string(forKey: arguments[4]) ?? "(absent)")

case "crash-writer" where arguments.count == 4:
    // Only the flushes save: a scheduled save between the two sets below, on a busy machine,
    // would rightly write the new counter beside the old payload.
    let defaults = Defaults(
        container: container(arguments[3]), configuration: configuration(writeDelay: .seconds(3600)))
    var counter = defaults.integer(forKey: "counter")
    while true {
        counter += 1
        defaults.set(counter, forKey: "counter")
        defaults.set(
            Data(repeating: UInt8(truncatingIfNeeded: counter), count: 50_000 + (counter % 7) * 20_000),
            forKey: "payload")
        flushOrFail(defaults)
        say("saved \(counter)")
    }

case "hammer" where arguments.count == 7:
    guard let rounds = Int(arguments[6]) else { fail("ROUNDS must be a number") }
    let name = arguments[5]
    let defaults: Defaults
    do {
        defaults = try Defaults(
            suiteName: arguments[4], container: container(arguments[3]),
            configuration: configuration(writeDelay: .milliseconds(1)))
    } catch {
        fail("suite: \(error)")
    }
    for round in 0..<rounds {
        defaults.set(round, forKey: "\(name)-\(round)")
        defaults.set("\(name)-\(round)", forKey: "shared")
        if round % 3 != 2 { flushOrFail(defaults) }
    }
    flushOrFail(defaults)
    say("done")

case "keys" where arguments.count == 6:
    guard let count = Int(arguments[5]) else { fail("COUNT must be a number") }
    let defaults = Defaults(container: container(arguments[3]), configuration: configuration())
    for index in 0..<count {
        defaults.set(index, forKey: "\(arguments[4])-\(index)")
        flushOrFail(defaults)
    }
    say("done")

case "hold-lock" where arguments.count == 4:
    let app = container(arguments[3])
    do {
        try app.directory(.preferences).create()
        try FileCoordinator().coordinate(
            writingItemAt: app.preferencesDirectory.appendingPathComponent("\(arguments[3]).plist")
        ) { _ in
            say("locked")
            while true { pause() }
        }
    } catch {
        fail("lock: \(error)")
    }

case "standard-set" where arguments.count == 4:
    Defaults.standard.set(arguments[3], forKey: arguments[2])
    say("\(AppContainer.main.identifier) \(AppContainer.main.url.path)")
    exit(0)

case "standard-read" where arguments.count == 3:
    say(Defaults.standard.string(forKey: arguments[2]) ?? "(absent)")

case "watches" where arguments.count == 4:
    func inotifyDescriptors() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == "anon_inode:inotify"
        }.count
    }
    var watching = configuration()
    watching.watchesFiles = true
    let before = inotifyDescriptors()
    var all = (0..<10).map { _ in Defaults(container: container(arguments[3]), configuration: watching) }
    let during = inotifyDescriptors()
    all.removeAll()
    let deadline = ContinuousClock.now + .seconds(5)
    while inotifyDescriptors() > before, ContinuousClock.now < deadline { usleep(5_000) }
    say("before \(before) during \(during) after \(inotifyDescriptors())")

default:
    fail("unknown command or wrong arguments: \(arguments.dropFirst().joined(separator: " "))")
}
