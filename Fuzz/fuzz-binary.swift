// The fuzz target for the binary reader; built by scripts/fuzz.sh together with
// the PropertyList sources as one module.

func checkFuzzInput(_ bytes: [UInt8]) {
    FuzzCheck.readAndRoundTrip(bytes, as: .binary)
}
