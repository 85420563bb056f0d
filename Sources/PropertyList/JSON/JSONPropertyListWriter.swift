struct JSONPropertyListWriter {
    var options: JSONWritingOptions
    func write(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        throw PropertyListError(.unsupportedValue, "not yet implemented")
    }
}
