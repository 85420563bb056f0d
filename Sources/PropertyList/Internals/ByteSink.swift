/// A growable run of bytes that writers fill: an append is a store into memory the sink
/// owns, without `Array.append`'s uniqueness check and generic path on every call, which
/// made up most of the XML writer's time.
///
/// ```swift
/// var sink = ByteSink(capacity: 4096)
/// sink.append("<dict>\n")
/// sink.appendDecimal(-42)
/// let bytes = sink.bytes()
/// ```
struct ByteSink: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

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
        base.deallocate()
        base = newBase
        capacity = newCapacity
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

    /// The bytes written, as an array; the sink is gone after.
    consuming func bytes() -> [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }
}
