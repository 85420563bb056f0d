extension PropertyListError {
    /// The same error with the dictionary key `key` put in front of its key path.
    ///
    /// Writers build a key path such as `items[3].name` only when they fail: each
    /// container level prefixes its component while the error unwinds, so the path
    /// costs nothing when writing succeeds.
    func inside(key: String) -> PropertyListError {
        var error = self
        error.keyPath = PropertyListKeyPath.text(key, before: keyPath)
        return error
    }

    /// The same error with the array index `index` put in front of its key path.
    func inside(index: Int) -> PropertyListError {
        var error = self
        error.keyPath = PropertyListKeyPath.text("[\(index)]", before: keyPath)
        return error
    }
}

extension PropertyListKeyPath {
    /// The key path text of `component` (a key, or `[index]`) followed by `rest`, as
    /// errors show it: `items[3].name`. Every layer's errors build their paths with it.
    package static func text(_ component: String, before rest: String?) -> String {
        guard let rest else { return component }
        return rest.hasPrefix("[") ? component + rest : component + "." + rest
    }
}

extension PropertyListError {
    /// What a writer throws for a container that would sit deeper than `maxDepth`
    /// containers; the levels above add its key path as the error unwinds.
    static func nestedTooDeeply(maxDepth: Int) -> PropertyListError {
        PropertyListError(.limitExceeded, "containers nested deeper than \(maxDepth)")
    }
}
