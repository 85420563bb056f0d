import AppRuntime
import AppSandbox
import Foundation

/// Reports a terminal's focus changes as ``LifecycleTrigger/focusLost`` and
/// ``LifecycleTrigger/focusGained`` (will resign active / did become active).
///
/// When standard input and output are both a terminal, it turns on xterm's focus
/// reporting (`CSI ? 1004 h`), reads standard input for the reports (`CSI I` focus in,
/// `CSI O` focus out) and turns reporting off again when cancelled. It consumes
/// standard input, so add it only to an app that does not read its input otherwise.
/// Without a terminal it returns at once.
public struct TerminalFocusEventSource: LifecycleEventSource {
    public init() {}

    public func run(for application: Application) async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { return }
        let enable = "\u{1B}[?1004h"
        let disable = "\u{1B}[?1004l"
        try? StandardStream.output.write(enable)
        defer { try? StandardStream.output.write(disable) }
        let reader = BlockingReader(fd: STDIN_FILENO)
        // The reader thread parses; the triggers reach the main actor in order.
        let (triggers, sink) = AsyncStream<LifecycleTrigger>.makeStream()
        async let sending: Void = {
            for await trigger in triggers { await application.send(trigger) }
        }()
        // Only the reader thread touches the parser.
        nonisolated(unsafe) var parser = TerminalFocusParser()
        await reader.read { bytes in
            for trigger in parser.feed(bytes) { sink.yield(trigger) }
        }
        sink.finish()
        await sending
    }
}

/// Finds focus reports (`ESC [ I`, `ESC [ O`) in a byte stream that may split them
/// across reads.
struct TerminalFocusParser: Sendable {
    private var pending: [UInt8] = []

    init() {}

    /// The focus changes reported in `bytes`, in order; other input is skipped.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [LifecycleTrigger] {
        var triggers: [LifecycleTrigger] = []
        for byte in bytes {
            switch (pending.count, byte) {
            case (_, 0x1B):
                pending = [0x1B]
            case (1, UInt8(ascii: "[")):
                pending.append(byte)
            case (2, UInt8(ascii: "I")):
                triggers.append(.focusGained)
                pending = []
            case (2, UInt8(ascii: "O")):
                triggers.append(.focusLost)
                pending = []
            default:
                pending = []
            }
        }
        return triggers
    }
}

/// Reads a descriptor on a thread of its own (polling so cancellation is noticed within
/// a quarter second) and hands each chunk to a callback.
final class BlockingReader: Sendable {
    let fd: Int32
    private let stop = StopFlag()

    init(fd: Int32) { self.fd = fd }

    func read(_ body: @escaping @Sendable (ArraySlice<UInt8>) -> Void) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let fd = self.fd
                let stop = self.stop
                BackgroundThread.start(name: "keepsake.reader") {
                    var buffer = [UInt8](repeating: 0, count: 256)
                    while !stop.isSet {
                        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                        let ready = poll(&descriptor, 1, 250)
                        if ready < 0, errno == EINTR { continue }
                        if ready <= 0 { if ready < 0 { break } else { continue } }
                        let count = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
                        if count < 0, errno == EINTR { continue }
                        if count <= 0 { break }
                        body(buffer[0..<count])
                    }
                    continuation.resume()
                }
            }
        } onCancel: {
            stop.set()
        }
    }
}

private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
