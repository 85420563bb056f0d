// Public: the inlinable lock calls below reach the C library in the caller's module.
#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// A value and the lock that guards it: the one way Keepsake guards shared mutable state.
///
/// It reads as `Synchronization.Mutex` does (`withLock { $0 … }`), but copies of a
/// `Locked` share one value and one lock, like a reference. The lock is a pthread mutex
/// rather than `Mutex`'s futex word because ThreadSanitizer intercepts pthread locks and
/// so sees the ordering they give; it sees none for `Mutex` on Linux and reports every
/// access that `Mutex` guards as a race, which would hide the real ones.
public struct Locked<Value>: @unchecked Sendable {
    // @unchecked: the value is reached only through `withLock`, with the mutex held, and
    // it is handed in and out as `sending`, as `Mutex` does, so no caller keeps an alias.
    @usableFromInline let storage: Storage

    // Inlinable, as `Mutex`'s are: a call specialized for its value type costs the two
    // pthread calls and nothing else.
    @inlinable
    public init(_ initialValue: sending Value) {
        storage = Storage(initialValue)
    }

    /// Calls `body` with the value while holding the lock, and returns what it returns.
    /// `body` must not take this same lock again: the mutex is not recursive.
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try storage.withLock(body)
    }
}

extension Locked {
    /// The value and the mutex, each at an address of its own that never moves. They are
    /// reached through pointers held in `let`s, not through a Swift stored `var`, since
    /// TSan takes every access to a `var` (a `ManagedBuffer`'s header, say) for a write,
    /// and so reports the accesses two threads make to find the lock before taking it.
    @usableFromInline
    final class Storage {
        @usableFromInline let value: ValueAddress
        @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

        @inlinable
        init(_ initialValue: sending Value) {
            value = ValueAddress(pointer: .allocate(capacity: 1))
            mutex = .allocate(capacity: 1)
            value.pointer.initialize(to: initialValue)
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init: \(status)")
        }

        @inlinable
        func withLock<Result, Failure: Error>(
            _ body: (inout sending Value) throws(Failure) -> sending Result
        ) throws(Failure) -> sending Result {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointer.pointee)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            mutex.deallocate()
            value.pointer.deinitialize(count: 1)
            value.pointer.deallocate()
        }
    }

    /// The value's address.
    // @unchecked Sendable: it lets the value go to `body` as `sending`, which the
    // compiler cannot prove for memory that `Storage` owns; the lock proves it, as it
    // does for `Mutex`, whose value is reached the same way.
    @usableFromInline
    struct ValueAddress: @unchecked Sendable {
        @usableFromInline let pointer: UnsafeMutablePointer<Value>

        @inlinable
        init(pointer: UnsafeMutablePointer<Value>) { self.pointer = pointer }
    }
}
