/// libFuzzer's entry point, the same for every target: each input goes to the
/// `checkFuzzInput` of the target's own file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    checkFuzzInput(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}

/// What every fuzz target checks: reading never crashes, hangs or runs away (the
/// fuzzer watches for that), and whatever reads successfully survives a binary round
/// trip unchanged; a difference is a bug and stops the fuzzer. The XML writer gets the
/// value too: what it writes must read back (XML keeps dates to the second, so not
/// always to the same value).
enum FuzzCheck {
    /// Tighter than the defaults so one input cannot take long.
    static let limits = PropertyListLimits(maxDepth: 128, maxObjectCount: 200_000, maxByteCount: 16 << 20)

    static func readAndRoundTrip(_ bytes: [UInt8], as format: PropertyListFormat) {
        let reader = PropertyListReader(limits: limits)
        guard let value = try? reader.read(bytes, as: format) else { return }
        do {
            let written = try PropertyListWriter.binary.write(value)
            let back = try reader.read(written, as: .binary)
            if back != value {
                fatalError("binary round trip changed the value")
            }
            if let xml = try? PropertyListWriter.xml.write(value) {
                _ = try PropertyListReader().read(xml, as: .xml)
            }
        } catch {
            fatalError("a value that was read cannot be written and read back: \(error)")
        }
    }
}
