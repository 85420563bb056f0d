public struct BinaryPropertyList: Sendable {
    public init(bytes: [UInt8], limits: PropertyListLimits = .default) throws(PropertyListError) {
        throw PropertyListError(.unknownFormat, "not yet implemented")
    }
    public func topValue() throws(PropertyListError) -> PropertyListValue {
        throw PropertyListError(.unknownFormat, "not yet implemented")
    }
}
