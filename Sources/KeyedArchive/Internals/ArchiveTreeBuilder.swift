import Foundation

/// Turns finished archive content into the property-list tree Foundation would build:
/// `{$archiver, $objects, $top, $version}`. Dictionary keys are sorted, as in
/// Foundation's XML output.
struct ArchiveTreeBuilder {
    let content: ArchiveContent

    func tree() -> PropertyListValue {
        let objects = content.entries.map(value(of:))
        let top = dictionary(content.topFields[...])
        return [
            "$archiver": .string(ArchiveFormat.archiverName),
            "$objects": .array(objects),
            "$top": .dictionary(top),
            "$version": .integer(ArchiveFormat.version),
        ]
    }

    private func value(of entry: ArchiveEntry) -> PropertyListValue {
        switch entry {
        case .string(let string): return .string(string)
        case .data(let data): return .data(data)
        case .integer(let integer): return .integer(integer)
        case .unsignedInteger(let integer): return .unsignedInteger(integer)
        case .real(let real): return .real(real)
        case .float(let float): return .float(float)
        case .bool(let bool): return .bool(bool)
        case .instance(let classUID, let range):
            var fields = dictionary(content.fields[range])
            fields["$class"] = .uid(PropertyListUID(UInt64(classUID)))
            return .dictionary(PropertyListDictionary(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        case .classDescription(let chain, let versions):
            var description: PropertyListDictionary = [
                "$classes": .array(chain.map { .string($0) }),
                "$classname": .string(chain[0]),
            ]
            if !versions.isEmpty { description["$classversions"] = .array(versions.map { .integer(Int64($0)) }) }
            return .dictionary(description)
        case .pending:
            return .string(ArchiveFormat.null)
        }
    }

    private func dictionary(_ fields: ArraySlice<ArchiveField>) -> PropertyListDictionary {
        var result = PropertyListDictionary(minimumCapacity: fields.count + 1)
        for field in fields.sorted(by: { $0.key < $1.key }) {
            result[field.key] = value(of: content.resolve(field.value))
        }
        return result
    }

    private func value(of field: ArchiveFieldValue) -> PropertyListValue {
        switch field {
        case .uid(let uid): return .uid(PropertyListUID(UInt64(uid)))
        case .integer(let integer): return .integer(integer)
        case .unsignedInteger(let integer): return .unsignedInteger(integer)
        case .real(let real): return .real(real)
        case .float(let float): return .float(float)
        case .bool(let bool): return .bool(bool)
        case .data(let data): return .data(data)
        case .uids(let range): return .array(content.uidPool[range].map { .uid(PropertyListUID(UInt64($0))) })
        case .conditional: return value(of: content.resolve(field))
        }
    }
}
