import Locking

/// The async sequences a source of changes hands out: each ``makeStream()`` is an
/// `AsyncStream` of every element yielded from then on, buffered until read, that ends
/// when the source finishes (at once, when it already has). The one way the layers
/// offer changes as sequences: the lifecycle's events and memory warnings, the
/// defaults' changes of a key (``observing(_:)``).
///
/// ```swift
/// let changes = ChangeStreams<String>()
/// Task { for await change in changes.makeStream() { print(change) } }
/// changes.yield("saved")
/// changes.finish()
/// ```
public final class ChangeStreams<Element: Sendable>: Sendable {
    private struct State {
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        var nextID = 0
        var isFinished = false
    }

    private let state = Locked(State())

    public init() {}

    /// A stream of every element yielded after this call; a consumer that stops
    /// reading is forgotten.
    public func makeStream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let id = state.withLock { state -> Int? in
            guard !state.isFinished else { return nil }
            defer { state.nextID += 1 }
            state.continuations[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        // Set outside the lock: it runs when the consumer stops, which may be at once,
        // and it takes the lock.
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `element` to every stream; never call it under a lock the consumers take.
    public func yield(_ element: Element) {
        for continuation in state.withLock({ Array($0.continuations.values) }) { continuation.yield(element) }
    }

    /// Ends every stream, and those made from now on.
    public func finish() {
        let ending = state.withLock { state in
            state.isFinished = true
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in ending { continuation.finish() }
    }

    /// A stream of what `observe` reports, for as long as it is read: the observation
    /// `observe` starts is cancelled when the consumer stops.
    public static func observing(
        _ observe: (@escaping @Sendable (Element) -> Void) -> ObservationToken
    ) -> AsyncStream<Element> {
        AsyncStream { continuation in
            let observation = observe { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }
}
