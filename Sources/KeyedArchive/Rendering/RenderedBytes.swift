/// What a sink that writes bytes as it goes has written: the bytes not yet handed over,
/// and how many it has handed over before.
struct RenderedBytes {
    var pending: [UInt8] = []
    private(set) var taken = 0

    var count: Int { taken + pending.count }

    /// The pending bytes, handed over; the next ones start in a buffer of the same size,
    /// so a chunk is not regrown from nothing.
    mutating func take() -> [UInt8] {
        taken += pending.count
        let chunk = pending
        pending = []
        pending.reserveCapacity(chunk.count)
        return chunk
    }
}

/// A sink whose output is bytes (JSON, text): its counts and ``take()`` come from its
/// ``RenderedBytes``.
protocol ArchiveByteSink: ArchiveRenderSink {
    var rendered: RenderedBytes { get set }
}

extension ArchiveByteSink {
    var byteCount: Int { rendered.count }
    var pendingByteCount: Int { rendered.pending.count }

    mutating func take() -> [UInt8] { rendered.take() }
}
