// Stands in for UIKit, which runs the chapter's app on iOS: it launches the app
// delegate, whose callback hands the stores to the items view controller, acts on the
// command line as the table and the detail view would, prints the list as the table
// shows it, then presses Home: the app enters the background, where the delegate
// saves. Not part of the chapter, so not counted.
//
//   HomepwnerPort [--ios-archive] [add NAME DOLLARS | rename INDEX NAME | photo INDEX FILE] [--wait]
//   HomepwnerPort --item-store [add NAME DOLLARS]
//
// `--item-store` keeps the book's `Item` but swaps the chapter's `ItemStore` class for
// the library's `ItemStore<Item>`, as the porting table allows: the store loads
// `Documents/items.archive` and its journal, each add is flushed, and the archive is
// written when the app enters the background.
// `--ios-archive` first registers the iOS app's class name (`Homepwner.Item`), so an
// archive copied from the device loads. `--wait` leaves Home to a signal: the app
// runs until `SIGTSTP` (background, then stopped) or `SIGTERM` (terminated).
import Foundation
import Keepsake

#if canImport(Glibc)
import Glibc
#endif

/// Stands in for the book's `ItemsViewController`, a table view controller the app
/// delegate hands the stores to.
@MainActor
class ItemsViewController {
    static let shown = ItemsViewController()
    var itemStore: ItemStore!
    var imageStore: ImageStore!
}

/// Stands in for UIKit's JPEG encoder: the photos here are JPEG or PNG bytes already.
func UIImageJPEGRepresentation(_ image: Data, _ compressionQuality: Double) -> Data? {
    image
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("HomepwnerPort: \(message)\n".utf8))
    exit(2)
}

// Each line reaches the pipe at once: a test may stop or kill the process next.
setvbuf(stdout, nil, _IOLBF, 0)

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--item-store" {
    arguments.removeFirst()
    await runOnTheLibrarysItemStore()
    exit(0)
}
if arguments.first == "--ios-archive" {
    arguments.removeFirst()
    KeyedUnarchiver.setClass(Item.self, forClassName: "Homepwner.Item")
}
let waitsForSignals = arguments.last == "--wait"
if waitsForSignals { arguments.removeLast() }

let application = Application(delegate: AppDelegate())
let controller = ItemsViewController.shown

@MainActor func item(at text: String) -> Item {
    guard let index = Int(text), controller.itemStore.allItems.indices.contains(index) else {
        fail("there is no item \(text)")
    }
    return controller.itemStore.allItems[index]
}

/// What the user does once the app is on screen, then the list as the table shows it.
@MainActor func actOnCommandLine() {
    switch arguments.first {
    case nil:
        break
    case "add" where arguments.count == 3:
        // The table's add button: the store's createItem().
        guard let dollars = Int(arguments[2]) else { fail("DOLLARS must be a whole number") }
        controller.itemStore.allItems.append(Item(name: arguments[1], serialNumber: nil, valueInDollars: dollars))
    case "rename" where arguments.count == 3:
        // The detail view: it changes the item it was given, in place.
        item(at: arguments[1]).name = arguments[2]
    case "photo" where arguments.count == 3:
        // The camera: the photo goes to the image store under the item's key.
        guard let photo = FileManager.default.contents(atPath: arguments[2]) else {
            fail("cannot read \(arguments[2])")
        }
        controller.imageStore.setImage(photo, forKey: item(at: arguments[1]).itemKey)
    default:
        fail("usage: HomepwnerPort [--ios-archive] [add NAME DOLLARS | rename INDEX NAME | photo INDEX FILE] [--wait]")
    }
    for item in controller.itemStore.allItems {
        let photo = controller.imageStore.image(forKey: item.itemKey) == nil ? "" : " (photo)"
        print("\(item.name): $\(item.valueInDollars)\(photo)")
    }
}

if waitsForSignals {
    // The app launches once the signal handlers are in place.
    let onScreen = application.addObserver(for: [.didFinishLaunching]) { _ in
        actOnCommandLine()
        print("waiting")
    }
    await application.run(sources: [SignalEventSource()])
    withExtendedLifetime(onScreen) {}
} else {
    application.launch()
    actOnCommandLine()
    application.send(.hidden)
}

/// `--item-store`: the book's `Item` on `ItemStore<Item>`, with an app delegate that
/// only launches.
@MainActor func runOnTheLibrarysItemStore() async {
    final class LaunchingDelegate: ApplicationDelegate {}
    let application = Application(delegate: LaunchingDelegate())
    let store: AppStores.ItemStore<Item>
    do {
        store = try AppStores.ItemStore<Item>(container: .main)
    } catch {
        fail("cannot load the items: \(error)")
    }
    store.attach(to: application)
    application.launch()
    switch arguments.first {
    case nil:
        break
    case "add" where arguments.count == 3:
        guard let dollars = Int(arguments[2]) else { fail("DOLLARS must be a whole number") }
        store.add(Item(name: arguments[1], serialNumber: nil, valueInDollars: dollars))
        do {
            try await store.flush()
        } catch {
            fail("the item was not saved: \(error)")
        }
    default:
        fail("usage: HomepwnerPort --item-store [add NAME DOLLARS]")
    }
    for item in store.allItems {
        print("\(item.name): $\(item.valueInDollars)")
    }
    application.send(.hidden)
    if let error = store.lastAutosaveError { fail("the archive was not written: \(error)") }
}
