// libFuzzer entry point for the json reader; built by scripts/fuzz.sh together with
// the PropertyList sources as one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzCheck.readAndRoundTrip(Array(UnsafeRawBufferPointer(start: start, count: count)), as: .json)
    return 0
}
