#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A string as a table key that equals only a string of the same bytes. Swift's `==`
/// finds `é` and `e` + U+0301 equal; merged into one archived object, one would come
/// back as the other. Foundation's archiver, whose `isEqual:` is literal, keeps both.
struct ExactString: Hashable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    /// Compared here rather than through the plist writer's own test of sameness,
    /// which, in another module, is a call per comparison (+1.3% encoding 100k items).
    static func == (left: ExactString, right: ExactString) -> Bool {
        let inPlace = left.string.utf8.withContiguousStorageIfAvailable { mine in
            right.string.utf8.withContiguousStorageIfAvailable { theirs in
                mine.count == theirs.count
                    && (mine.isEmpty || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0)
            }
        }
        return (inPlace ?? nil) ?? left.string.utf8.elementsEqual(right.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        let hashedInPlace: Void? = string.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashedInPlace == nil {
            for byte in string.utf8 { hasher.combine(byte) }
        }
    }
}
