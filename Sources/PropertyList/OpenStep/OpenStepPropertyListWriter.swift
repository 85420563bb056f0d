enum OpenStepPropertyListWriter {
    static func write(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        throw PropertyListError(.unsupportedValue, "not yet implemented")
    }
}
