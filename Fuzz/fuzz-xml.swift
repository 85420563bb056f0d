// libFuzzer entry point for the xml reader; built by scripts/fuzz.sh together with
// the PropertyList sources as one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzCheck.readAndRoundTrip(Array(UnsafeRawBufferPointer(start: start, count: count)), as: .xml)
    return 0
}
