public import AppSandbox
public import Foundation

extension UbiquitousKeyValueStore {
    /// A replica's changes that the shared log does not have yet, and when a push last
    /// succeeded: what a replica cut off from the database holds for it.
    public struct Outbox: Sendable, Equatable {
        /// Changes made here and not yet pushed (only the latest of each key counts).
        public var pendingChanges: Int
        /// When a push last succeeded; `nil` when this replica never pushed.
        public var lastPush: Date?

        public init(pendingChanges: Int, lastPush: Date?) {
            self.pendingChanges = pendingChanges
            self.lastPush = lastPush
        }
    }

    /// The outbox of the store in `container`, read without opening the store, so that
    /// it can be read while the app holds it (`keepsake cloud status`); `nil` when the
    /// container has no store.
    /// - Throws: ``UbiquitousStoreError`` `.storageFailed` when its file cannot be read.
    public static func outbox(in container: AppContainer) throws(UbiquitousStoreError) -> Outbox? {
        let (directory, fileName) = location(in: container)
        return try UbiquitousStoreFile.onDisk(named: fileName, in: directory).map {
            Outbox(pendingChanges: $0.pending.count, lastPush: $0.lastPush)
        }
    }

    /// Where a container keeps its store: a file beside the app's preferences.
    static func location(in container: AppContainer) -> (directory: SandboxDirectory, fileName: String) {
        (container.directory(.preferences), "\(container.identifier).ubiquitous-kvs.plist")
    }
}
