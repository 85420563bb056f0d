import Foundation
import KeyedArchive

/// A base class and a subclass that chain `encode(with:)` and `init(coder:)` to super,
/// as the books describe for subclasses of NSCoding classes.
class Asset: KeyedSecureCoding {
    class var supportsSecureCoding: Bool { true }
    var label: String

    init(label: String) { self.label = label }

    func encode(with coder: KeyedEncoder) {
        coder.encode(label, forKey: "label")
    }

    required init(coder: KeyedDecoder) throws {
        label = try coder.decode(String.self, forKey: "label")
    }
}

final class Camera: Asset {
    var megapixels: Double

    init(label: String, megapixels: Double) {
        self.megapixels = megapixels
        super.init(label: label)
    }

    override func encode(with coder: KeyedEncoder) {
        super.encode(with: coder)
        coder.encode(megapixels, forKey: "megapixels")
    }

    required init(coder: KeyedDecoder) throws {
        megapixels = coder.decodeDouble(forKey: "megapixels")
        try super.init(coder: coder)
    }
}

/// A struct adopts the protocol without any base class.
struct Point: KeyedSecureCoding, Equatable {
    static var supportsSecureCoding: Bool { true }
    var x: Int
    var y: Int

    init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    func encode(with coder: KeyedEncoder) {
        coder.encode(x, forKey: "x")
        coder.encode(y, forKey: "y")
    }

    init(coder: KeyedDecoder) throws {
        x = coder.decodeInteger(forKey: "x")
        y = coder.decodeInteger(forKey: "y")
    }
}

/// A tree whose children point back to their parent: the parent pointer is encoded
/// conditionally and decoded as a back reference.
final class Folder: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var name: String
    weak var parent: Folder?
    var children: [Folder] = []

    init(name: String, children: [Folder] = []) {
        self.name = name
        self.children = children
        for child in children { child.parent = self }
    }

    func encode(with coder: KeyedEncoder) {
        coder.encode(name, forKey: "name")
        coder.encodeConditionalObject(parent, forKey: "parent")
        coder.encode(children, forKey: "children")
    }

    init(coder: KeyedDecoder) throws {
        name = try coder.decode(String.self, forKey: "name")
        children = try coder.decode([Folder].self, forKey: "children")
        coder.decodeBackReference(Folder.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    }
}

/// A linked node decoded with a plain (not back-reference) decode, so a cycle is an error.
final class Node: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var value: Int
    var next: Node?

    init(value: Int, next: Node? = nil) {
        self.value = value
        self.next = next
    }

    func encode(with coder: KeyedEncoder) {
        coder.encode(value, forKey: "value")
        coder.encode(next, forKey: "next")
    }

    init(coder: KeyedDecoder) throws {
        value = coder.decodeInteger(forKey: "value")
        next = try coder.decodeIfPresent(Node.self, forKey: "next")
    }
}

/// Version 2 of a record that version 1 stored as "price"; `init(coder:)` migrates.
struct PriceTag: KeyedSecureCoding, Equatable {
    static var supportsSecureCoding: Bool { true }
    static var archiveClassVersion: Int { 2 }
    var valueInDollars: Int

    init(valueInDollars: Int) { self.valueInDollars = valueInDollars }

    func encode(with coder: KeyedEncoder) {
        coder.encode(valueInDollars, forKey: "valueInDollars")
    }

    init(coder: KeyedDecoder) throws {
        if coder.version(forClassName: Self.archiveClassName) >= 2 {
            valueInDollars = coder.decodeInteger(forKey: "valueInDollars")
        } else {
            valueInDollars = coder.decodeInteger(forKey: "price")
        }
    }
}

/// Version 1 of the same record, as an old build wrote it.
struct PriceTagV1: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var price: Int

    func encode(with coder: KeyedEncoder) {
        coder.encode(price, forKey: "price")
    }

    init(price: Int) { self.price = price }

    init(coder: KeyedDecoder) throws {
        price = coder.decodeInteger(forKey: "price")
    }
}

/// A hierarchy where both classes declare a version: the base declares it as a
/// `class var` so the subclass can override it.
class VersionedBase: KeyedSecureCoding {
    class var supportsSecureCoding: Bool { true }
    class var archiveClassVersion: Int { 1 }
    var baseVersionSeen = -1

    init() {}

    func encode(with coder: KeyedEncoder) {}

    required init(coder: KeyedDecoder) throws {
        baseVersionSeen = coder.version(forClassName: VersionedBase.archiveClassName)
    }
}

final class VersionedChild: VersionedBase {
    override class var archiveClassVersion: Int { 3 }
    var childVersionSeen = -1
    var unqualifiedVersionSeen = -1

    override init() { super.init() }

    required init(coder: KeyedDecoder) throws {
        childVersionSeen = coder.version(forClassName: VersionedChild.archiveClassName)
        unqualifiedVersionSeen = coder.version(forClassName: "Elsewhere.VersionedChild")
        try super.init(coder: coder)
    }
}
