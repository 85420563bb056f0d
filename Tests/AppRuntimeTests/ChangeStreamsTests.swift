import AppRuntime
import Locking
import Testing

/// The one way the layers hand out changes as async sequences.
struct ChangeStreamsTests {
    @Test("A stream gets what is yielded after it was made, in order, and ends when the source finishes")
    func streamsGetLaterElementsAndEnd() async {
        let source = ChangeStreams<Int>()
        source.yield(0)
        let first = source.makeStream()
        let second = source.makeStream()
        for value in 1...3 { source.yield(value) }
        source.finish()
        source.yield(4)
        var seen: [[Int]] = []
        for stream in [first, second] {
            var values: [Int] = []
            for await value in stream { values.append(value) }
            seen.append(values)
        }
        #expect(seen == [[1, 2, 3], [1, 2, 3]])
    }

    @Test("A stream made after the source finished ends at once")
    func streamAfterFinishEnds() async {
        let source = ChangeStreams<Int>()
        source.finish()
        var count = 0
        for await _ in source.makeStream() { count += 1 }
        #expect(count == 0)
    }

    @Test("A consumer that stops reading stops the observation behind an observing stream")
    func observingStreamCancelsItsObservation() async {
        let cancelled = Locked(false)
        let handler = Locked<(@Sendable (String) -> Void)?>(nil)
        let stream = ChangeStreams<String>.observing { yield in
            handler.withLock { $0 = yield }
            return ObservationToken { cancelled.withLock { $0 = true } }
        }
        let received = Locked<[String]>([])
        let reading = Task { for await value in stream { received.withLock { $0.append(value) } } }
        handler.withLock { $0 }?("first")
        while received.withLock({ $0.isEmpty }) { await Task.yield() }
        #expect(!cancelled.withLock { $0 }, "the observation lasts while the stream is read")
        reading.cancel()
        await reading.value
        #expect(cancelled.withLock { $0 }, "the observation must end with the consumer")
    }
}
