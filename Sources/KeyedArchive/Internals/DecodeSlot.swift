import Foundation

/// What the unarchiver knows about one UID: nothing yet, being decoded (reaching it
/// again is a cycle), its decoded value, or the class it describes. Strings and data
/// get their own cases so the common typed decodes need no dynamic cast.
enum DecodeSlot {
    case empty
    case decoding
    case string(String)
    case data(Data)
    case value(Any)
    /// A class description (`{$classname, $classes}`), cached where its UID is.
    case classDescription(ArchivedClass)
}
