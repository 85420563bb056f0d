// libFuzzer entry point for `keepsake unarchive`'s renderer; built by scripts/fuzz.sh
// together with the PropertyList and KeyedArchive sources as one module.
//
// Each input is rendered as text and as JSON. Rendering may fail with a typed error,
// never crash, hang or run away (the fuzzer watches for that); text streamed in small
// chunks must equal text rendered whole, and JSON must be JSON.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    UnarchiveFuzzCheck.check(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}

enum UnarchiveFuzzCheck {
    static func check(_ bytes: [UInt8]) {
        let limits = FuzzCheck.limits
        guard let text = try? ArchiveRenderer.render(bytes, as: .text, limits: limits) else { return }
        var streamed: [UInt8] = []
        do {
            try ArchiveRenderer.render(bytes, as: .text, limits: limits, chunkSize: 7) { streamed += $0 }
        } catch {
            fatalError("text rendered whole but not in chunks: \(error)")
        }
        if streamed != text { fatalError("text rendered in chunks differs from text rendered whole") }
        let json: [UInt8]
        do {
            json = try ArchiveRenderer.render(bytes, as: .json, limits: limits)
        } catch {
            fatalError("an archive rendered as text but not as JSON: \(error)")
        }
        do {
            _ = try PropertyListReader(limits: PropertyListLimits(maxDepth: 1 << 20)).read(json, as: .json)
        } catch {
            fatalError(
                "the JSON rendering is not JSON: \(error)\n\(String(decoding: json.prefix(2000), as: UTF8.self))")
        }
        _ = try? ArchiveRenderer.render(bytes, as: .propertyList(.binary), limits: limits)
    }
}
