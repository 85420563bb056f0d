extension SandboxDirectory {
    /// Marks the item at `relativePath` (a folder: with everything in it) as excluded
    /// from backups, or clears the mark. The mark persists with the item.
    /// Corresponds to `URLResourceValues.isExcludedFromBackup` set through
    /// `URL.setResourceValues(_:)`.
    ///
    /// ```swift
    /// try container.directory(.documents).setExcludedFromBackup(true, for: "Downloads")
    /// ```
    public func setExcludedFromBackup(_ excluded: Bool, for relativePath: String) throws(SandboxError) {
        try withItem(relativePath, followFinalLink: true) { location throws(SandboxError) in
            try BackupExclusions(container: container).set(excluded, at: location, key: key(for: location))
        }
    }

    /// Whether the item at `relativePath` itself carries the exclusion mark (an item
    /// inside an excluded folder is left out of backups without carrying it).
    public func isExcludedFromBackup(_ relativePath: String) throws(SandboxError) -> Bool {
        try withItem(relativePath, followFinalLink: true) { location throws(SandboxError) in
            let exclusions = BackupExclusions(container: container)
            return try exclusions.isExcluded(at: location, key: key(for: location), list: try exclusions.readList())
        }
    }

    /// The item's path from the container root, the key of the fallback list.
    func key(for location: Location) -> String {
        (kind.pathComponents + location.components).joined(separator: "/")
    }
}
