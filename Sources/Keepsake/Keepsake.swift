@_exported import KeyedArchive
@_exported import PropertyList
