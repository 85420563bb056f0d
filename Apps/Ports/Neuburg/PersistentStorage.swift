//
//  PersistentStorage.swift
//  Neuburg, "Persistent Storage": the sandbox, files, archiving, coordination and
//  user defaults, in today's Swift spelling of the book's calls.
//

import Foundation
import Keepsake

class Person: NSObject, KeyedCoding {
    var firstName : String
    var lastName : String
    override var description : String {
        return self.firstName + " " + self.lastName
    }
    init(firstName:String, lastName:String) {
        self.firstName = firstName
        self.lastName = lastName
        super.init()
    }
    func encode(with coder: KeyedEncoder) {
        // do not call super in this case
        coder.encode(self.lastName, forKey: "last")
        coder.encode(self.firstName, forKey: "first")
    }
    required init(coder: KeyedDecoder) {
        self.lastName = coder.decodeObject(forKey: "last")! as! String
        self.firstName = coder.decodeObject(forKey: "first")! as! String
        // do not call super init(coder:) in this case
        super.init()
    }
}

class ViewController {

    // The sandbox: standard directories, a folder, a file, a listing.
    func files() throws -> URL {
        let fm = FileManager.default
        let docsurl = try AppContainer.main.url(for: .documentDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        let suppurl = try AppContainer.main.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        print(suppurl.lastPathComponent)
        let myfolder = docsurl.appendingPathComponent("MyFolder")
        try fm.createDirectory(at: myfolder, withIntermediateDirectories: true, attributes: nil)
        try FileSystem.default.write("howdy", to: myfolder.appendingPathComponent("file1.txt"))
        let arr = try fm.contentsOfDirectory(at: docsurl, includingPropertiesForKeys: nil, options: [])
        arr.map{$0.lastPathComponent}.sorted().forEach{print($0)}
        return docsurl
    }

    // Archiving a Person to a file and back.
    func archiving(docsurl: URL) throws -> URL {
        let moi = Person(firstName: "Matt", lastName: "Neuburg")
        let moidata = try KeyedArchiver.archivedData(withRootObject: moi)
        let moifile = docsurl.appendingPathComponent("moi.txt")
        try FileSystem.default.write(moidata, to: moifile)
        let persondata = try Data(contentsOf: moifile)
        let person = try KeyedUnarchiver.unarchiveObject(with: persondata) as! Person
        print(person) // Matt Neuburg
        return moifile
    }

    // Reading a Person through a file coordinator.
    func coordinated(moifile: URL, queue: OperationQueue, done: @escaping (Person?) -> Void) {
        let fc = FileCoordinator()
        let intent = FileAccessIntent.readingIntent(with: moifile, options: [])
        fc.coordinate(with: [intent], queue: queue) {
            (err:Error?) in
            let persondata = try! Data(contentsOf: intent.url)
            let person = try? KeyedUnarchiver.unarchiveObject(with: persondata) as? Person
            done(person)
        }
    }

    // User defaults.
    func preferences() throws {
        try Defaults.standard.register(defaults: [
            "cardMatrixRows" : 4,
            "cardMatrixColumns" : 3,
        ])
        let rows = Defaults.standard.integer(forKey: "cardMatrixRows")
        Defaults.standard.set(rows + 1, forKey: "cardMatrixRows")
        print("rows \(rows)")
    }
}
