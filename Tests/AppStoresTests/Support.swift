import AppSandbox
import Foundation
import KeyedArchive
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The seeds' `Item`, as an app ports it.
struct Item: KeyedCoding, Sendable, Equatable {
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    var itemKey: String

    init(name: String, valueInDollars: Int = 0, serialNumber: String? = nil, itemKey: String = UUID().uuidString) {
        self.name = name
        self.valueInDollars = valueInDollars
        self.serialNumber = serialNumber
        self.itemKey = itemKey
    }

    func encode(with coder: KeyedEncoder) {
        coder.encode(name, forKey: "name")
        coder.encode(valueInDollars, forKey: "valueInDollars")
        coder.encode(serialNumber, forKey: "serialNumber")
        coder.encode(itemKey, forKey: "itemKey")
    }

    init(coder: KeyedDecoder) throws {
        name = try coder.decode(String.self, forKey: "name")
        valueInDollars = coder.decodeInteger(forKey: "valueInDollars")
        serialNumber = try coder.decodeIfPresent(String.self, forKey: "serialNumber")
        itemKey = try coder.decode(String.self, forKey: "itemKey")
    }
}

/// The seeds' `Item` as the books write it: a class whose properties controllers
/// change in place, with no `Sendable` anywhere.
final class BookItem: KeyedCoding {
    var name: String
    init(name: String) { self.name = name }
    func encode(with coder: KeyedEncoder) { coder.encode(name, forKey: "name") }
    required init(coder: KeyedDecoder) throws { name = try coder.decode(String.self, forKey: "name") }
}

/// A temporary container whose `write` system call can be made to fail with a chosen
/// `errno`, to reproduce a full disk. Removed by `destroy()`.
final class FaultyContainer: Sendable {
    let container: AppContainer
    private final class Switch: Sendable {
        let errno = Mutex<Int32?>(nil)
    }
    private let failing = Switch()

    init() throws {
        let base = try AppContainer.temporary(identifier: "org.keepsake.stores-tests")
        var calls = SystemCalls.live
        let live = SystemCalls.live
        let failing = self.failing
        calls.write = { fd, buffer throws(Errno) in
            if let code = failing.errno.withLock({ $0 }) { throw Errno(code) }
            return try live.write(fd, buffer)
        }
        container = AppContainer(identifier: base.identifier, url: base.url, system: calls)
    }

    /// Makes every write fail with `errno` until `heal()`.
    func failWrites(with errno: Int32 = ENOSPC) { failing.errno.withLock { $0 = errno } }
    func heal() { failing.errno.withLock { $0 = nil } }

    func destroy() { try? container.destroy() }
}
