/// What the encoder remembers per Swift type.
struct EncodedTypeInfo {
    var isReference: Bool
    /// The UID of the type's class entry, once one instance is finished.
    var classUID: Int?
}
