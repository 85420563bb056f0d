// Stands in for UIKit, which would call the view controller's methods on iOS: runs each
// example once and prints what it prints. Not part of the book, so not counted.
import Foundation

let controller = ViewController()
let docsurl = try controller.files()
let moifile = try controller.archiving(docsurl: docsurl)
let coordinated: String = await withCheckedContinuation { finished in
    controller.coordinated(moifile: moifile, queue: OperationQueue()) { person in
        finished.resume(returning: person.map { "\($0)" } ?? "nil")
    }
}
print("coordinated \(coordinated)")
try controller.preferences()
