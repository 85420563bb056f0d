import Locking

/// The class names every archiver and unarchiver of this process shares: the mappings
/// of ``KeyedArchiver/setClassName(_:for:)-(String?,_)`` and
/// ``KeyedUnarchiver/setClass(_:forClassName:)``, and the name each type was archived
/// under here, so that an unarchiver without a requested type (the books' one-liner)
/// finds a class again under the name it was written with, whatever that name is.
enum ProcessClassNames {
    /// `@unchecked Sendable`: a metatype is immutable and can be used from any thread;
    /// the compiler only lacks a way to say so for a protocol that is not `Sendable`.
    private struct CodingType: @unchecked Sendable {
        let type: any KeyedCoding.Type
    }

    private struct State {
        /// Set with `KeyedUnarchiver.setClass(_:forClassName:)`.
        var classesByName: [String: CodingType] = [:]
        /// Set with `KeyedArchiver.setClassName(_:for:)`.
        var namesByClass: [ObjectIdentifier: String] = [:]
        /// Every type archived by this process, by the name it was written under.
        var archived: [String: CodingType] = [:]
        /// What the runtime's lookup by name answered, found or not.
        var swiftTypes: [String: CodingType?] = [:]
    }

    /// Names come from archives: past this many, lookups are answered but not remembered.
    private static let swiftTypesLimit = 4_096

    private static let state = Locked(State())

    static func setClass(_ type: (any KeyedCoding.Type)?, forClassName name: String) {
        let entry = type.map(CodingType.init)
        state.withLock { $0.classesByName[name] = entry }
    }

    static func setClassName(_ name: String?, for type: any KeyedCoding.Type) {
        state.withLock { $0.namesByClass[ObjectIdentifier(type)] = name }
    }

    static func className(for type: any KeyedCoding.Type) -> String? {
        state.withLock { $0.namesByClass[ObjectIdentifier(type)] }
    }

    static func `class`(forClassName name: String) -> (any KeyedCoding.Type)? {
        state.withLock { $0.classesByName[name] }?.type
    }

    /// Every mapping set with `setClass`, for a new unarchiver to start from.
    static var classesByName: [String: any KeyedCoding.Type] {
        state.withLock { $0.classesByName }.mapValues(\.type)
    }

    /// Records that `type` was archived under `name`.
    static func noteArchived(_ type: any KeyedCoding.Type, as name: String) {
        let entry = CodingType(type: type)
        state.withLock { state in
            if state.archived[name] == nil { state.archived[name] = entry }
        }
    }

    /// The Swift type `name` names in this process (`_typeByName`), asked of the runtime
    /// once per name: its lookup walks the type metadata of every loaded image, and a
    /// store decoding one archive per row would otherwise pay it once per object.
    static func swiftType(named name: String) -> (any KeyedCoding.Type)? {
        if let known = state.withLock({ $0.swiftTypes[name] }) { return known?.type }
        let found = (_typeByName(name) as? any KeyedCoding.Type).map(CodingType.init)
        state.withLock { state in
            if state.swiftTypes.count < swiftTypesLimit { state.swiftTypes[name] = .some(found) }
        }
        return found?.type
    }

    /// The type this process archived under `name`, if any.
    static func archivedType(named name: String) -> (any KeyedCoding.Type)? {
        state.withLock { $0.archived[name] }?.type
    }
}
