import Foundation

/// When a preferences save happened, comparable across the processes of one boot.
///
/// Saves of a domain take its cross-process lock, so their clock readings under it
/// follow one another. The clock counts from the boot (`DispatchTime`: the system's
/// monotonic clock), shared by every process and never set back; between boots, which
/// cannot both hold a lock, the wall clock orders them.
struct PreferencesStamp: Equatable, Sendable {
    /// The kernel's id of this boot (`/proc/sys/kernel/random/boot_id`).
    var boot: String
    /// Nanoseconds since the boot.
    var sinceBoot: UInt64
    /// Seconds since 1970.
    var wallClock: Double

    /// This boot's id; `nil` where the system gives none that stays the same for the
    /// whole boot. Without it no record is ever taken for an earlier boot's.
    static let currentBoot: String? = {
        #if os(Linux)
        if let id = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) {
            return id.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #endif
        return nil
    }()

    /// Whether the stamp is of an earlier boot than this one, as far as is known.
    var isOfAnEarlierBoot: Bool { Self.currentBoot.map { boot != $0 } ?? false }

    /// Read while holding the domain's lock.
    static func now() -> PreferencesStamp {
        return PreferencesStamp(
            boot: currentBoot ?? "", sinceBoot: DispatchTime.now().uptimeNanoseconds,
            wallClock: Date().timeIntervalSince1970)
    }

    func isLater(than other: PreferencesStamp) -> Bool {
        boot == other.boot ? sinceBoot > other.sinceBoot : wallClock > other.wallClock
    }

    // MARK: Bytes

    /// The boot id's length (1 byte), the id, then `sinceBoot` and the wall clock's
    /// bits, each 8 bytes little-endian.
    func encoded() -> Data {
        let id = Array(boot.utf8.prefix(255))
        var bytes = Data([UInt8(id.count)])
        bytes.append(contentsOf: id)
        for value in [sinceBoot, wallClock.bitPattern] {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// Decodes a stamp at the start of `bytes`; returns it and the bytes after it.
    static func decode(_ bytes: Data) -> (PreferencesStamp, Data)? {
        guard let length = bytes.first.map(Int.init), bytes.count >= 1 + length + 16 else { return nil }
        let start = bytes.startIndex
        guard let boot = String(validating: bytes[(start + 1)..<(start + 1 + length)], as: UTF8.self) else {
            return nil
        }
        func word(at offset: Int) -> UInt64 {
            bytes[(start + offset)..<(start + offset + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        let stamp = PreferencesStamp(
            boot: boot, sinceBoot: word(at: 1 + length), wallClock: Double(bitPattern: word(at: 9 + length)))
        return (stamp, bytes[(start + 17 + length)...])
    }
}
