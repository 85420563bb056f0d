@_exported import AppDefaults
@_exported import AppSandbox
@_exported import KeyedArchive
@_exported import PropertyList
