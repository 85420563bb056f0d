import AppStores
import Foundation

/// What the inventory asks of the photos it shares with other instances. The one
/// carrier is ``SharedInventory``'s photos on PostgreSQL, built only with the package's
/// `Database` trait; the inventory sees this instead, so that Homepwner's default build
/// compiles no database client.
@MainActor
package protocol PhotoSharing: AnyObject {
    /// The local copies of the shared photos, which pages are served from.
    var cache: BlobStore { get }
    /// Whether the item has a photo, as last read.
    func contains(_ key: String) -> Bool
    /// The photo's version, for URLs that change when it does.
    func version(of key: String) -> Int64?
    /// Stores the photo for every instance; returns once it is durable there.
    func set(_ data: Data, forKey key: String) async throws
    /// The photo, from the local copy when it is current; nil if there is none.
    func data(forKey key: String, maxBytes: Int) async throws -> Data?
    /// Removes the photo for every instance.
    func delete(forKey key: String) async throws
}

/// What waits to be pushed to the database, and when a push last succeeded: shown on
/// the settings page of a shared inventory.
package struct Outbox: Sendable, Equatable {
    /// Items that differ from what the database was last told.
    package var pendingItems: Int
    /// Settings changes not yet in the database.
    package var pendingSettings: Int
    package var lastPush: Date?
    /// Why the last exchange failed; `nil` once one succeeds.
    package var lastError: String?
    /// Items from the database being taken in (a first sync of a large inventory): how
    /// many are in, of how many; `nil` when none are waiting.
    package var itemsReceived: (done: Int, total: Int)? {
        receivedTotal > 0 ? (receivedDone, receivedTotal) : nil
    }
    private var receivedDone = 0
    private var receivedTotal = 0

    package init(
        pendingItems: Int, pendingSettings: Int, lastPush: Date?, lastError: String?,
        itemsReceived: (done: Int, total: Int)? = nil
    ) {
        self.pendingItems = pendingItems
        self.pendingSettings = pendingSettings
        self.lastPush = lastPush
        self.lastError = lastError
        (receivedDone, receivedTotal) = itemsReceived ?? (0, 0)
    }
}
