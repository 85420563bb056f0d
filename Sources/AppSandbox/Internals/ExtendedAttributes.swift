#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `f*xattr` calls, which Swift's C-library module does not import on Linux
/// (`<sys/xattr.h>` is not part of it). They are looked up once with `dlsym`; where the
/// C library lacks them every call fails with `ENOTSUP`, which sends the caller to
/// its fallback exactly as a file system without extended attributes would.
enum ExtendedAttributes {
    #if canImport(Darwin)
    static func get(_ fd: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int {
        fgetxattr(fd, name, value, size, 0, 0)
    }
    static func set(_ fd: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int) -> Int {
        Int(fsetxattr(fd, name, value, size, 0, 0))
    }
    static func remove(_ fd: Int32, _ name: UnsafePointer<CChar>) -> Int {
        Int(fremovexattr(fd, name, 0))
    }
    #else
    private typealias GetFunction = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    private typealias SetFunction = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    private typealias RemoveFunction = @convention(c) (Int32, UnsafePointer<CChar>) -> Int32

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }

    private static let getFunction = symbol("fgetxattr", as: GetFunction.self)
    private static let setFunction = symbol("fsetxattr", as: SetFunction.self)
    private static let removeFunction = symbol("fremovexattr", as: RemoveFunction.self)

    static func get(_ fd: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int {
        guard let getFunction else {
            errno = ENOTSUP
            return -1
        }
        return getFunction(fd, name, value, size)
    }
    static func set(_ fd: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int) -> Int {
        guard let setFunction else {
            errno = ENOTSUP
            return -1
        }
        return Int(setFunction(fd, name, value, size, 0))
    }
    static func remove(_ fd: Int32, _ name: UnsafePointer<CChar>) -> Int {
        guard let removeFunction else {
            errno = ENOTSUP
            return -1
        }
        return Int(removeFunction(fd, name))
    }
    #endif
}
