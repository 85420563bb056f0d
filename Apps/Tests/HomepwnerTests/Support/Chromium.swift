import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: commands in on fd 3, replies out on fd 4, each JSON
/// message ended by a NUL byte). Every wait is bounded.
final class Chromium {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The browser, when installed (`.ci/run` installs Debian's `chromium`).
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    private let browser: ChildProcess
    private let commands: Int32
    private let replies: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1
    private var sessionID: String?
    private let scratch: TemporaryDirectory
    /// Not made beforehand: Chromium makes its profile folder itself.
    let profile: URL

    init(width: Int = 1100, height: Int = 800) throws {
        guard let path = Self.path else { throw Failure(description: "chromium is not installed") }
        scratch = TemporaryDirectory("chromium-profile")
        profile = scratch.file("profile")
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw Failure(description: "pipe failed") }
        // The child's ends move above fds 3 and 4, which the runner dup2s them onto: one
        // left on 3 or 4 could be overwritten before it is copied.
        let childIn = fcntl(toChild[0], F_DUPFD_CLOEXEC, 10)
        let childOut = fcntl(fromChild[1], F_DUPFD_CLOEXEC, 10)
        Glibc.close(toChild[0])
        Glibc.close(fromChild[1])
        // The browser holds its own copies once started.
        defer {
            Glibc.close(childIn)
            Glibc.close(childOut)
        }
        commands = toChild[1]
        replies = fromChild[0]
        _ = fcntl(commands, F_SETFD, FD_CLOEXEC)
        _ = fcntl(replies, F_SETFD, FD_CLOEXEC)

        browser = try ChildProcess(
            URL(fileURLWithPath: path),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--remote-debugging-pipe",
                "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)", "about:blank",
            ],
            input: .inherit, output: .discard, errors: .discard, passing: [childIn, childOut])
    }

    /// Attaches to the first page, so later commands go to it.
    func attachToPage() throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let targets = try send("Target.getTargets", session: false)["targetInfos"] as? [[String: Any]] ?? []
            if let page = targets.first(where: { $0["type"] as? String == "page" }),
                let id = page["targetId"] as? String
            {
                let attached = try send("Target.attachToTarget", ["targetId": id, "flatten": true], session: false)
                sessionID = attached["sessionId"] as? String
                _ = try send("Page.enable")
                _ = try send("Runtime.enable")
                return
            }
            usleep(100_000)
        }
        throw Failure(description: "chromium opened no page")
    }

    /// Sends one DevTools command and returns its result.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:], session: Bool = true, timeout: Duration = .seconds(20))
        throws -> [String: Any]
    {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if session, let sessionID { message["sessionId"] = sessionID }
        var bytes = Array(try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "chromium closed its pipe") }
            written += n
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            let reply = try readMessage(deadline: deadline)
            guard reply["id"] as? Int == id else { continue }  // events and other replies
            if let error = reply["error"] as? [String: Any] {
                throw Failure(description: "\(method): \(error["message"] ?? error)")
            }
            return reply["result"] as? [String: Any] ?? [:]
        }
    }

    private func readMessage(deadline: ContinuousClock.Instant) throws -> [String: Any] {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let data = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] { return object }
                continue
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw Failure(description: "no reply from chromium in time") }
            var descriptor = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + 1, 1000))
            guard poll(&descriptor, 1, milliseconds) >= 0 else { continue }
            if descriptor.revents == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(replies, &chunk, chunk.count)
            guard n > 0 else { throw Failure(description: "chromium closed its pipe") }
            buffer += chunk[..<n]
        }
    }

    /// Evaluates `expression` in the page and returns its value (JSON-able values).
    func evaluate(_ expression: String) throws -> Any? {
        let result = try send(
            "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] as? [String: Any] {
            throw Failure(description: "script failed: \(exception["text"] ?? exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Waits until `expression` is true in the page (navigations in between are fine).
    func waitUntil(_ expression: String, timeout: Duration = .seconds(20)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? evaluate(expression)) as? Bool == true { return }
            usleep(50_000)
        }
        throw Failure(description: "timed out waiting for: \(expression)")
    }

    /// Loads `url` and waits until its document is complete.
    func navigate(to url: String) throws {
        _ = try send("Page.navigate", ["url": url])
        try waitUntil("location.href === \(Self.quote(url)) && document.readyState === 'complete'")
    }

    /// Runs `action` (which submits a form or follows a link) and waits until the
    /// next document has loaded.
    func submitAndWait(_ action: String) throws {
        _ = try evaluate("window.__before = true; \(action); true")
        try waitUntil("window.__before === undefined && document.readyState === 'complete'")
    }

    /// Sets the file of the `<input type=file>` matching `selector`.
    func setFile(_ selector: String, path: String) throws {
        let root = try send("DOM.getDocument")
        guard let rootID = (root["root"] as? [String: Any])?["nodeId"] as? Int else {
            throw Failure(description: "no document")
        }
        let node = try send("DOM.querySelector", ["nodeId": rootID, "selector": selector])
        guard let nodeID = node["nodeId"] as? Int, nodeID != 0 else {
            throw Failure(description: "no element \(selector)")
        }
        try send("DOM.setFileInputFiles", ["files": [path], "nodeId": nodeID])
    }

    /// A PNG screenshot of the page.
    func screenshot(to url: URL) throws {
        let result = try send("Page.captureScreenshot", ["format": "png"])
        guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot data")
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    static func quote(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast()
            .description
    }

    func close() {
        _ = try? send("Browser.close", session: false, timeout: .seconds(5))
        // A browser that outlives the wait is killed by the runner.
        _ = try? browser.waitForExit(within: .seconds(10))
        Glibc.close(commands)
        Glibc.close(replies)
        scratch.remove()
    }
}
