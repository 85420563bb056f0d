import AppRuntime
public import Foundation

/// `NSFileCoordinator`'s own shapes, for code written against Apple's API: options, an
/// error pointer instead of `throws`, and an accessor run on an operation queue.
extension FileCoordinator {
    /// Options of a coordinated read. Corresponds to `NSFileCoordinator.ReadingOptions`.
    /// Accepted so Apple's calls compile; every read takes the same shared lock.
    public struct ReadingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
        public static let forUploading = ReadingOptions(rawValue: 1 << 3)
    }

    /// Options of a coordinated write. Corresponds to `NSFileCoordinator.WritingOptions`.
    /// Accepted so Apple's calls compile; every write takes the same exclusive lock.
    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }

    /// Runs `reader` while no one writes the item at `url`; when the lock cannot be
    /// taken, `reader` is not called and `outError` receives the ``SandboxError``.
    /// Corresponds to `coordinate(readingItemAt:options:error:byAccessor:)`.
    ///
    /// ```swift
    /// var error: NSError?
    /// FileCoordinator().coordinate(readingItemAt: url, options: [], error: &error) { url in
    ///     person = try? KeyedUnarchiver.unarchivedObject(ofClass: Person.self, contentsOf: url)
    /// }
    /// ```
    public func coordinate(
        readingItemAt url: URL, options: ReadingOptions = [], error outError: UnsafeMutablePointer<NSError?>?,
        byAccessor reader: (URL) -> Void
    ) {
        report(into: outError) { try coordinate(readingItemAt: url) { reader($0) } }
    }

    /// Runs `writer` while no one else reads or writes the item at `url`; when the lock
    /// cannot be taken, `writer` is not called and `outError` receives the
    /// ``SandboxError``. Corresponds to `coordinate(writingItemAt:options:error:byAccessor:)`.
    public func coordinate(
        writingItemAt url: URL, options: WritingOptions = [], error outError: UnsafeMutablePointer<NSError?>?,
        byAccessor writer: (URL) -> Void
    ) {
        report(into: outError) { try coordinate(writingItemAt: url) { writer($0) } }
    }

    /// Reads one item and writes another under one coordination. Corresponds to
    /// `coordinate(readingItemAt:options:writingItemAt:options:error:byAccessor:)`.
    public func coordinate(
        readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [], writingItemAt writingURL: URL,
        options writingOptions: WritingOptions = [], error outError: UnsafeMutablePointer<NSError?>?,
        byAccessor body: (URL, URL) -> Void
    ) {
        report(into: outError) {
            try coordinate(readingItemAt: readingURL, writingItemAt: writingURL) { body($0, $1) }
        }
    }

    /// Waits for every intent's lock on a thread of its own, then runs `accessor` on
    /// `queue` with `nil`, holding the locks until it returns; when a lock cannot be
    /// taken, runs it with the error instead. Returns at once. Corresponds to
    /// `coordinate(with:queue:byAccessor:)`; as with Apple's, the accessor reads and
    /// writes through each intent's ``FileAccessIntent/url``, and a queue that never
    /// runs (the main queue of a program that blocks its main thread) never runs it.
    ///
    /// ```swift
    /// let intent = FileAccessIntent.writingIntent(with: moiFile, options: [])
    /// FileCoordinator().coordinate(with: [intent], queue: .main) { error in
    ///     guard error == nil else { return }
    ///     try? KeyedArchiver.archive(person, to: intent.url)
    /// }
    /// ```
    public func coordinate(
        with intents: [FileAccessIntent], queue: OperationQueue,
        byAccessor accessor: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let wait = LockFile.Wait(timeout: timeout, isCancelled: { false })
        BackgroundThread.start(name: "keepsake.lock") {
            do {
                // This thread holds the locks until the accessor has run on `queue`.
                try self.coordinate(intents, wait: wait) {
                    queue.addOperations([BlockOperation { accessor(nil) }], waitUntilFinished: true)
                }
            } catch {
                let failure = error as? SandboxError ?? SandboxError(.systemError, String(describing: error))
                queue.addOperation { accessor(failure) }
            }
        }
    }

    private func report(into outError: UnsafeMutablePointer<NSError?>?, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            outError?.pointee = Self.nsError(error)
        }
    }

    /// `error` as an `NSError` that still says what failed: on Linux `as NSError`
    /// keeps only the type's name. The ``SandboxError`` itself is the underlying error.
    private static func nsError(_ error: any Error) -> NSError {
        let sandboxError = error as? SandboxError
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: String(describing: error), NSUnderlyingErrorKey: error,
        ]
        if let path = sandboxError?.path { userInfo[NSFilePathErrorKey] = path }
        return NSError(
            domain: "Keepsake.SandboxError", code: Int(sandboxError?.errno ?? 0), userInfo: userInfo)
    }
}
