import PropertyList
import Testing

/// Editing a value tree by key path with plutil's rules; a refused edit changes nothing.
struct KeyPathEditingTests {
    var tree: PropertyListValue = ["items": ["a", "b"], "owner": ["name": "Joe"], "count": 2]

    @Test mutating func insertAddsKeysAndInsertsBeforeAnIndex() throws {
        try tree.insert("new", at: "owner.city")
        try tree.insert("first", at: "items.0")
        try tree.insert("last", at: "items.3")
        #expect(tree.value(at: "owner.city") == "new")
        #expect(tree.value(at: "items") == ["first", "a", "b", "last"])
    }

    @Test mutating func appendGoesAtTheEndOfTheNamedArray() throws {
        try tree.insert("c", at: "items", appending: true)
        #expect(tree.value(at: "items") == ["a", "b", "c"])
        let error = #expect(throws: PropertyListError.self) { try tree.insert("x", at: "owner.name", appending: true) }
        #expect(error?.code == .invalidEdit)
    }

    @Test mutating func refusedEditsChangeNothing() throws {
        let before = tree
        let exists = #expect(throws: PropertyListError.self) { try tree.insert("x", at: "owner.name") }
        #expect(exists?.code == .invalidEdit)
        #expect(exists?.keyPath == "owner.name")
        let pastTheEnd = #expect(throws: PropertyListError.self) { try tree.insert("x", at: "items.5") }
        #expect(pastTheEnd?.code == .keyPathNotFound)
        let noParent = #expect(throws: PropertyListError.self) { try tree.replace("x", at: "nobody.name") }
        #expect(noParent?.code == .keyPathNotFound)
        let intoScalar = #expect(throws: PropertyListError.self) { try tree.insert("x", at: "count.x") }
        #expect(intoScalar?.code == .keyPathNotFound)
        let missing = #expect(throws: PropertyListError.self) { try tree.remove(at: "items.2") }
        #expect(missing?.code == .keyPathNotFound)
        let root = #expect(throws: PropertyListError.self) { try tree.remove(at: PropertyListKeyPath(components: [])) }
        #expect(root?.code == .invalidEdit)
        #expect(tree == before)
    }

    @Test mutating func replaceOverwritesOrAppends() throws {
        try tree.replace("Ann", at: "owner.name")
        try tree.replace("B", at: "items.1")
        try tree.replace("C", at: "items.2")
        try tree.replace(3, at: "count")
        #expect(tree == ["items": ["a", "B", "C"], "owner": ["name": "Ann"], "count": 3])
    }

    @Test mutating func removeTakesOutOneValue() throws {
        try tree.remove(at: "items.0")
        try tree.remove(at: "owner.name")
        #expect(tree == ["items": ["b"], "owner": [:], "count": 2])
    }
}
