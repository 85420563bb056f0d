import Foundation

/// When a preferences save happened, comparable across the processes of one boot and
/// across boots, whatever the wall clock says.
///
/// Saves of a domain take its cross-process lock, so their clock readings under it
/// follow one another. Within a boot the clock counts from the boot (`DispatchTime`:
/// the system's monotonic clock), shared by every process and never set back. Between
/// boots, which cannot both hold a lock, the domain's count of boots orders them
/// (``bootNumber``, kept beside the plist by ``PreferencesJournal``): a machine without
/// a real-time clock, a VM restored from a snapshot or an NTP step backwards moves the
/// wall clock, never that count. The wall clock is kept for messages, and orders only
/// stamps written before boots were counted.
struct PreferencesStamp: Equatable, Sendable {
    /// The kernel's id of this boot (`/proc/sys/kernel/random/boot_id`).
    var boot: String
    /// Nanoseconds since the boot.
    var sinceBoot: UInt64
    /// Seconds since 1970.
    var wallClock: Double
    /// Which of the domain's boots the stamp was taken in; `nil` in stamps written
    /// before boots were counted.
    var bootNumber: UInt64?

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

    /// Read while holding the domain's lock, in the boot the domain numbers `bootNumber`.
    static func now(bootNumber: UInt64) -> PreferencesStamp {
        PreferencesStamp(
            boot: currentBoot ?? "", sinceBoot: DispatchTime.now().uptimeNanoseconds,
            wallClock: Date().timeIntervalSince1970, bootNumber: bootNumber)
    }

    func isLater(than other: PreferencesStamp) -> Bool {
        if boot == other.boot { return sinceBoot > other.sinceBoot }
        switch (bootNumber, other.bootNumber) {
        case (let mine?, let theirs?) where mine != theirs: return mine > theirs
        // A stamp of a counted boot follows every stamp written before boots were counted.
        case (_?, nil): return true
        case (nil, _?): return false
        // Two boots of one number: the count was lost; the wall clock is all there is.
        default: return wallClock > other.wallClock
        }
    }

    // MARK: Bytes

    /// The boot id's length (1 byte), the id, then `sinceBoot`, the wall clock's bits
    /// and the boot number, each 8 bytes little-endian. Stamps written before boots were
    /// counted end after the wall clock.
    func encoded() -> Data {
        let id = Array(boot.utf8.prefix(255))
        var bytes = Data([UInt8(id.count)])
        bytes.append(contentsOf: id)
        for value in [sinceBoot, wallClock.bitPattern] + (bootNumber.map { [$0] } ?? []) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// Decodes a stamp at the start of `bytes`, with a boot number or without one;
    /// returns it and the bytes after it.
    static func decode(_ bytes: Data, numbered: Bool) -> (PreferencesStamp, Data)? {
        let size = numbered ? 24 : 16
        guard let length = bytes.first.map(Int.init), bytes.count >= 1 + length + size else { return nil }
        let start = bytes.startIndex
        guard let boot = String(validating: bytes[(start + 1)..<(start + 1 + length)], as: UTF8.self) else {
            return nil
        }
        func word(at offset: Int) -> UInt64 {
            bytes[(start + offset)..<(start + offset + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        let stamp = PreferencesStamp(
            boot: boot, sinceBoot: word(at: 1 + length), wallClock: Double(bitPattern: word(at: 9 + length)),
            bootNumber: numbered ? word(at: 17 + length) : nil)
        return (stamp, bytes[(start + 1 + length + size)...])
    }

    /// A stamp that is the whole of `bytes` (the folded file), numbered or not.
    static func decodeWhole(_ bytes: Data) -> PreferencesStamp? {
        guard let length = bytes.first.map(Int.init) else { return nil }
        return decode(bytes, numbered: bytes.count == 1 + length + 24)?.0
    }
}
