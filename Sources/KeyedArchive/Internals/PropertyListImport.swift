// The archive layer is built on the property-list layer and exposes its value types
// (limits, formats, values) in its own API. The fuzz build compiles both layers as one
// module, where there is nothing to import.
#if canImport(PropertyList)
@_exported import PropertyList
#endif
