@_exported import PropertyList
@_exported import AppSandbox
