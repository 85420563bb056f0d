/// The encodings of a property list.
///
/// Corresponds to `PropertyListSerialization.PropertyListFormat`, plus JSON, which
/// `plutil` reads and writes.
public enum PropertyListFormat: String, Sendable, CaseIterable {
    /// `bplist00`, Apple's compact binary form.
    case binary
    /// The XML form with Apple's DOCTYPE.
    case xml
    /// The old ASCII form (NeXTSTEP/OpenStep), also used by `.strings` files.
    case openStep
    /// JSON, which has no dates, data or UIDs.
    case json

    /// Guesses the format from the first bytes; `nil` when none fits.
    ///
    /// Text is recognised after an optional UTF-8 byte-order mark and white space. A
    /// leading `{` is ambiguous between JSON and OpenStep: it is JSON when the first
    /// thing inside is a quoted key followed by `:` or the braces are empty.
    public static func detect(_ bytes: [UInt8]) -> PropertyListFormat? {
        bytes.withUnsafeBytes(detect)
    }

    /// ``detect(_:)`` for bytes in any contiguous memory.
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> PropertyListFormat? {
        FormatSniffer(bytes: bytes.assumingMemoryBound(to: UInt8.self)).format
    }
}
