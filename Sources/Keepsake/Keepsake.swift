@_exported import AppDefaults
@_exported import AppLifecycle
@_exported import AppRuntime
@_exported import AppSandbox
@_exported import AppStores
@_exported import KeyedArchive
@_exported import PropertyList
