/// A growable run of bytes that writers fill: an append is a store into memory the sink
/// holds, without `Array.append`'s uniqueness check and generic path on every call, which
/// made up most of the XML writer's time.
///
/// ``collect(estimatedCount:_:)`` writes straight into the array it returns. A sink
/// that grew by doubling and was copied into an array at the end spent about a sixth of
/// the XML writer's time copying and faulting in buffers twice the document's size.
///
/// ```swift
/// let bytes = ByteSink.collect(estimatedCount: 64) { sink in
///     sink.append("<dict>\n")
///     sink.appendDecimal(-42)
/// }
/// ```
struct ByteSink: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// False while the sink writes into the caller's array; true once it has outgrown
    /// that and moved to memory of its own.
    private var ownsBase: Bool

    /// A sink writing into `buffer`, which it does not free.
    private init(writingInto buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
        capacity = buffer.count
        ownsBase = false
    }

    deinit { if ownsBase { base.deallocate() } }

    /// The bytes `body` writes into the sink it is given and hands back, written in
    /// place into an array made with room for `estimatedCount` of them. When `body`
    /// writes more, the sink moves to memory of its own and the bytes are copied once at
    /// the end; when it writes fewer, the array keeps the spare capacity, which costs
    /// address space but no memory until it is touched.
    static func collect<Failure: Error>(
        estimatedCount: Int, _ body: (consuming ByteSink) throws(Failure) -> ByteSink
    ) throws(Failure) -> [UInt8] {
        var failure: Failure?
        var outgrown: [UInt8]?
        let written = [UInt8](unsafeUninitializedCapacity: max(estimatedCount, 16)) { buffer, initializedCount in
            let sink: ByteSink
            do throws(Failure) {
                sink = try body(ByteSink(writingInto: buffer))
            } catch {
                failure = error
                return
            }
            if sink.ownsBase {
                outgrown = Array(UnsafeBufferPointer(start: sink.base, count: sink.count))
            } else {
                initializedCount = sink.count
            }
        }
        if let failure { throw failure }
        return outgrown ?? written
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if extra > capacity &- count { grow(toFit: extra) }
    }

    @inline(never)
    private mutating func grow(toFit extra: Int) {
        var newCapacity = capacity * 2
        while newCapacity - count < extra { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        if ownsBase { base.deallocate() }
        base = newBase
        capacity = newCapacity
        ownsBase = true
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).initialize(from: start, count: bytes.count)
        count &+= bytes.count
    }

    @inline(__always)
    mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// `count` copies of `byte` (indentation).
    @inline(__always)
    mutating func append(_ byte: UInt8, count repeats: Int) {
        guard repeats > 0 else { return }
        reserve(repeats)
        (base + count).initialize(repeating: byte, count: repeats)
        count &+= repeats
    }

    /// `value` in decimal, with a `-` when negative.
    mutating func appendDecimal(_ value: Int64) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            appendDecimal(value.magnitude)
        } else {
            appendDecimal(UInt64(value))
        }
    }

    /// `value` in decimal.
    mutating func appendDecimal(_ value: UInt64) {
        reserve(20)
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var remaining = value
        var length = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            repeat {
                scratch[23 - length] = UInt8(truncatingIfNeeded: remaining % 10) &+ UInt8(ascii: "0")
                remaining /= 10
                length += 1
            } while remaining != 0
            (base + count).initialize(
                from: scratch.baseAddress!.assumingMemoryBound(to: UInt8.self) + (24 - length), count: length)
        }
        count &+= length
    }
}
