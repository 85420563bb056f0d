// Only Foundation's value types (Data, Date) are used by this layer; none of its
// property-list or archiving code. FoundationEssentials keeps the dependency small
// where the toolchain splits it out.
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
#else
@_exported import Foundation
#endif
