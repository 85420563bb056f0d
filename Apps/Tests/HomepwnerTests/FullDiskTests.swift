import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Homepwner on a disk that fills up: a small tmpfs mounted for the test (which needs
/// the right to mount, as CI's root has).
@Suite(
    "Full disk", .serialized,
    .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"),
    .enabled(if: SmallDisk.canMount, "mounting a tmpfs needs root (or CAP_SYS_ADMIN)"))
struct FullDiskTests {
    @Test(
        "kill -9, then the disk fills: the restart serves every item and photo, writes get 507, and once there is space they work and the photo is filed"
    )
    func fullDiskAfterACrash() async throws {
        let disk = try SmallDisk(megabytes: 8)
        defer { disk.unmount() }
        let photo = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

        let first = try ServerProcess(containers: disk.url)
        for name in ["lamp", "chair", "desk"] {
            #expect(
                try await HTTP.postForm(first.baseURL.appendingPathComponent("items"), [("name", name)]).status == 303)
        }
        let key = try #require(try await HTTP.items(first.baseURL).first?.itemKey)
        let upload = try await HTTP.send(
            "POST", first.baseURL.appendingPathComponent("items/\(key)/photo"), body: photo, contentType: "image/jpeg")
        #expect(upload.status == 303)
        first.child.signal(SIGKILL)
        try first.child.waitForExit()

        // The photo's file was written without fsync: a power cut may leave it empty,
        // and the journal holds it. Then nothing more fits.
        let filed = disk.url.appendingPathComponent("com.bignerdranch.Homepwner/Documents/images/\(key)")
        try Data().write(to: filed)
        try disk.fill()
        let second = try ServerProcess(containers: disk.url)
        #expect(try await HTTP.items(second.baseURL).map(\.name) == ["lamp", "chair", "desk"])
        let served = try await HTTP.send("GET", second.baseURL.appendingPathComponent("items/\(key)/photo"))
        #expect(served.status == 200 && served.body == photo, "the photo is served from the journal")
        #expect(FileManager.default.contents(atPath: filed.path) == Data(), "no room to file it")
        #expect(try await HTTP.send("GET", second.baseURL).status == 200)

        // A few small writes may still fit in the journal's last page; the disk is full soon after.
        var added: [String] = []
        var refusal: HTTP.Reply?
        for attempt in 0..<400 where refusal == nil {
            let name = "full-\(attempt)-" + String(repeating: "x", count: 150)
            let reply = try await HTTP.postForm(second.baseURL.appendingPathComponent("items"), [("name", name)])
            if reply.status == 303 { added.append(name) } else { refusal = reply }
        }
        let refused = try #require(refusal, "400 creates on a full 8 MB disk were all acknowledged")
        #expect(refused.status == 507, "\(String(decoding: refused.body, as: UTF8.self))")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("the disk is full"))
        #expect(try await HTTP.items(second.baseURL).map(\.name) == ["lamp", "chair", "desk"] + added)

        disk.emptyFiller()
        #expect(
            try await HTTP.postForm(second.baseURL.appendingPathComponent("items"), [("name", "after")]).status == 303)
        // The photo's file is written by the store's own retry (its wait grows to a minute).
        let deadline = ContinuousClock.now + .seconds(70)
        while FileManager.default.contents(atPath: filed.path) != photo {
            try #require(ContinuousClock.now < deadline, "the photo was not filed within 70 s of space coming back")
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try second.terminate() == 0, "\(second.log)")
        let third = try ServerProcess(containers: disk.url)
        #expect(try await HTTP.items(third.baseURL).map(\.name) == ["lamp", "chair", "desk"] + added + ["after"])
        #expect(try await HTTP.send("GET", third.baseURL.appendingPathComponent("items/\(key)/photo")).body == photo)
        #expect(try third.terminate() == 0)
    }
}

/// A tmpfs of a few megabytes, mounted in a temporary folder, and a file that fills it.
final class SmallDisk: Sendable {
    let scratch = TemporaryDirectory("homepwner-full-disk")
    var url: URL { scratch.url.appendingPathComponent("disk") }
    private var filler: URL { url.appendingPathComponent("filler") }

    /// Whether this process may mount one: tried once.
    static let canMount: Bool = {
        guard let disk = try? SmallDisk(megabytes: 1) else { return false }
        disk.unmount()
        return true
    }()

    struct Failure: Error, CustomStringConvertible { var description: String }

    init(megabytes: Int) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let mount = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", url.path])
        guard mount.exitCode == 0 else { throw Failure(description: "mount: \(mount.errorText)") }
    }

    /// Writes the filler until the disk refuses more.
    func fill() throws {
        guard FileManager.default.createFile(atPath: filler.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: filler.path)
        else {
            throw Failure(description: "cannot write \(filler.path)")
        }
        defer { try? handle.close() }
        while (try? handle.write(contentsOf: Data(count: 64 << 10))) != nil {}
        // The last pages a partial write may have left.
        while (try? handle.write(contentsOf: Data(count: 512))) != nil {}
    }

    func emptyFiller() { try? FileManager.default.removeItem(at: filler) }

    func unmount() {
        _ = try? ChildProcess.run(URL(fileURLWithPath: "/bin/umount"), [url.path])
        scratch.remove()
    }
}
