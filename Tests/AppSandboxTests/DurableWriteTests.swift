import Foundation
import TestSupport
import Testing

@testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

@Suite("Durable atomic writes")
struct DurableWriteTests {
    /// A folder of each test's own (a suite instance is made per test), removed after it.
    let folder = TemporaryDirectory("keepsake-tests")

    static let errnos: [Int32] = [ENOSPC, EIO, EACCES, EROFS, EINTR]

    static func expectedCode(_ errno: Int32) -> SandboxError.Code {
        switch errno {
        case ENOSPC: .noSpace
        case EIO: .ioError
        case EACCES: .permissionDenied
        case EROFS: .readOnly
        default: .ioError
        }
    }

    /// Every step × every errno: a typed error (or a correct retry for EINTR), the
    /// previous file byte-identical, no temporary file left.
    @Test(arguments: WriteStep.allCases, errnos)
    func faultAtEveryStep(step: WriteStep, errno: Int32) throws {
        let target = folder.file("items.archive")
        let previous = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try previous.write(to: target)
        let replacement = Data(repeating: 0xAB, count: 70_000)

        let plan = FaultPlan(failing: step, with: errno)
        let fileSystem = FileSystem(system: plan.systemCalls)
        let retried = errno == EINTR && [.open, .write, .rename, .close].contains(step)
        if retried {
            try fileSystem.write(replacement, to: target)
            #expect(try Data(contentsOf: target) == replacement, "EINTR at \(step) must be retried to success")
        } else {
            let error = #expect(throws: SandboxError.self) { try fileSystem.write(replacement, to: target) }
            #expect(error?.code == Self.expectedCode(errno))
            #expect(error?.errno == errno)
            #expect(error?.path == target.path)
            #expect(try Data(contentsOf: target) == previous, "a failed save must leave the old file byte-identical")
        }
        #expect(try folder.names() == ["items.archive"], "no temporary or backup file may be left behind")
        if step == .close {
            #expect(plan.temporaryCloseCalls == 1, "close is never retried, EINTR included")
        }
    }

    @Test("A failed directory fsync removes a file that did not exist before")
    func directoryFsyncFailureOnNewFile() throws {
        let plan = FaultPlan(failing: .directoryFsync, with: EIO)
        let error = #expect(throws: SandboxError.self) {
            try FileSystem(system: plan.systemCalls).write(Data("new".utf8), to: folder.file("fresh"))
        }
        #expect(error?.code == .ioError)
        #expect(try folder.names().isEmpty)
    }

    @Test("Short writes are continued until everything is written")
    func shortWrites() throws {
        var calls = SystemCalls.live
        calls.write = { fd, buffer throws(Errno) in
            try SystemCalls.live.write(fd, UnsafeRawBufferPointer(rebasing: buffer.prefix(7)))
        }
        let content = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) })
        try FileSystem(system: calls).write(content, to: folder.file("short"))
        #expect(try Data(contentsOf: folder.file("short")) == content)
    }

    @Test("When cleanup fails too, the original error is the one thrown")
    func originalErrorWins() throws {
        try Data("old".utf8).write(to: folder.file("f"))
        var calls = FaultPlan(failing: .fsync, with: EIO).systemCalls
        calls.unlinkat = { _, _, _ throws(Errno) in throw Errno(EACCES) }
        let error = #expect(throws: SandboxError.self) {
            try FileSystem(system: calls).write(Data("new".utf8), to: folder.file("f"))
        }
        #expect(error?.code == .ioError)
        #expect(error?.errno == EIO)
        #expect(try Data(contentsOf: folder.file("f")) == Data("old".utf8))
    }

    @Test("The replaced file keeps its permission bits and owner")
    func modeAndOwnerKept() throws {
        let target = folder.file("secret")
        try Data("v1".utf8).write(to: target)
        chmod(target.path, 0o640)
        let changeOwner = getuid() == 0
        if changeOwner { chown(target.path, 4321, 8765) }
        try FileSystem.default.write(Data("v2".utf8), to: target)
        var info = stat()
        stat(target.path, &info)
        #expect(info.st_mode & 0o7777 == 0o640)
        if changeOwner {
            #expect(info.st_uid == 4321)
            #expect(info.st_gid == 8765)
        }
        #expect(try Data(contentsOf: target) == Data("v2".utf8))
    }

    @Test("A new file gets the usual mode for new files (0666 less the umask)")
    func newFileMode() throws {
        let mask = umask(0o022)
        defer { umask(mask) }
        try FileSystem.default.write(Data("x".utf8), to: folder.file("new"))
        var info = stat()
        stat(folder.file("new").path, &info)
        #expect(info.st_mode & 0o777 == 0o644)
    }

    @Test("Writing through a symbolic link replaces its target and keeps the link")
    func writeFollowsLink() throws {
        try Data("old".utf8).write(to: folder.file("real"))
        try FileManager.default.createSymbolicLink(atPath: folder.file("alias").path, withDestinationPath: "real")
        try FileSystem.default.write(Data("new".utf8), to: folder.file("alias"))
        #expect(try Data(contentsOf: folder.file("real")) == Data("new".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.file("alias").path) == "real")
    }

    @Test("Writing onto a directory fails with isADirectory and changes nothing")
    func writeOntoDirectory() throws {
        try FileManager.default.createDirectory(at: folder.file("dir"), withIntermediateDirectories: false)
        let error = #expect(throws: SandboxError.self) { try FileSystem.default.write(Data(), to: folder.file("dir")) }
        #expect(error?.code == .isADirectory)
        #expect(try folder.names() == ["dir"])
    }

    @Test("Strings are written and read in the encoding asked for")
    func stringEncodings() throws {
        let text = "Grüße, 世界"
        try FileSystem.default.write(text, to: folder.file("utf16"), encoding: .utf16LittleEndian)
        #expect(try Data(contentsOf: folder.file("utf16")) == text.data(using: .utf16LittleEndian))
        #expect(try FileSystem.default.string(contentsOf: folder.file("utf16"), encoding: .utf16LittleEndian) == text)

        let error = #expect(throws: SandboxError.self) {
            try FileSystem.default.write(text, to: folder.file("ascii"), encoding: .ascii)
        }
        #expect(error?.code == .invalidEncoding)
        #expect(!FileManager.default.fileExists(atPath: folder.file("ascii").path))

        try Data([0xFF, 0xFE, 0xFD]).write(to: folder.file("bad"))
        let decodeError = #expect(throws: SandboxError.self) {
            try FileSystem.default.string(contentsOf: folder.file("bad"))
        }
        #expect(decodeError?.code == .invalidEncoding)
    }
}
