// Drives an app through launch, a memory warning, the background and termination,
// as signals would, with an item store that saves itself on the way.
import Foundation
import Keepsake

final class AppDelegate: ApplicationDelegate {  // on the main actor, as UIKit's delegate
    func applicationDidBecomeActive(_ application: Application) { print("did become active") }
    func applicationDidReceiveMemoryWarning(_ application: Application) { print("memory warning") }
    func applicationDidEnterBackground(_ application: Application) { print("did enter background") }
    func applicationWillTerminate(_ application: Application) { print("will terminate") }
}

let container = try AppContainer.temporary(identifier: "com.example.Lifecycle")
defer { try? container.destroy() }

let app = Application(delegate: AppDelegate())
let itemStore = try ItemStore<String>(container: container)  // any archivable model will do
itemStore.attach(to: app)  // saves on entering the background and before terminating
let thumbnails = MemoryCache<String, Data>()  // emptied by every memory warning

app.launch()  // did finish launching, did become active
itemStore.add("Bike")
try await itemStore.flush()  // durable in the journal; the archive is written later
thumbnails.setObject(Data([0xFF, 0xD8, 0xFF]), forKey: "Bike")
app.simulateMemoryWarning()
print("thumbnails:", thumbnails.count)  // 0

app.send(.hidden)  // as SIGHUP or SIGTSTP: will resign active, did enter background
print(app.state, container.directory(.documents).fileExists("items.archive"))  // background true
app.send(.terminate)  // as SIGTERM: will terminate
print(app.state)  // notRunning
