enum OpenStepPropertyListReader {
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, limits: PropertyListLimits) throws(PropertyListError) -> PropertyListValue {
        throw PropertyListError(.unknownFormat, "not yet implemented")
    }
}
