@_exported import AppSandbox
@_exported import KeyedArchive
@_exported import PropertyList
