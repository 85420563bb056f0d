import Foundation
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The built `homepwner` executable run as a child process on a free port, as a user
/// runs it; stopped with `SIGTERM` and started again over the same container.
final class ServerProcess: Sendable {
    static let executable: URL? = BuiltProducts.executable(named: "homepwner")

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The server; its standard error goes into its standard output, one log in the
    /// order written.
    let child: ChildProcess
    let port: Int
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts the server with its containers in `containers` and waits (at most
    /// `timeout`) until it says where it serves.
    init(
        containers: URL, arguments: [String]? = nil, environment: [String: String] = [:],
        timeout: Duration = .seconds(30)
    ) throws {
        guard let executable = Self.executable else {
            throw Failure(description: "build the homepwner product first (swift build)")
        }
        let child = try ChildProcess(
            executable, arguments ?? ["--port", "0", "--container", containers.path], environment: environment,
            input: .discard, errors: .intoOutput)
        let line = try Self.waitForOutput(
            of: child, matching: "is serving http://127.0.0.1:", since: 0, timeout: timeout)
        guard let range = line.range(of: "http://127.0.0.1:"),
            let port = Int(line[range.upperBound...].prefix { $0.isNumber })
        else {
            throw Failure(description: "no port in: \(line)")
        }
        self.child = child
        self.port = port
    }

    /// Ends the server even when a test still holds ``child``.
    deinit { child.end() }

    /// Everything the server printed so far, standard output and error together.
    var log: String { child.output }

    /// How much output there is so far, for ``waitForOutput(matching:since:timeout:)``.
    var mark: Int { log.utf8.count }

    /// The first output line containing `text` (printed after `mark`), waiting at most
    /// `timeout` for it.
    @discardableResult
    func waitForOutput(matching text: String, since mark: Int = 0, timeout: Duration = .seconds(10)) throws -> String {
        try Self.waitForOutput(of: child, matching: text, since: mark, timeout: timeout)
    }

    private static func waitForOutput(
        of child: ChildProcess, matching text: String, since mark: Int, timeout: Duration
    ) throws -> String {
        func found() -> String? {
            let recent = String(decoding: child.output.utf8.dropFirst(mark), as: UTF8.self)
            return recent.split(separator: "\n").first { $0.contains(text) }.map(String.init)
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = found() { return line }
            if !child.isRunning {
                // What it printed is all there only once its output is read to the end.
                let status = try child.waitForExit()
                if let line = found() { return line }
                throw Failure(description: "homepwner exited (\(status)) before printing \"\(text)\":\n\(child.output)")
            }
            usleep(20_000)
        }
        throw Failure(description: "homepwner did not print \"\(text)\" within \(timeout):\n\(child.output)")
    }

    /// Sends `SIGTERM` (unless the server has exited already) and waits, at most
    /// `timeout`, for it to exit and its output to end; returns its exit code, or 128
    /// plus the signal that ended it.
    @discardableResult
    func terminate(timeout: Duration = .seconds(20)) throws -> Int32 {
        child.signal(SIGTERM)
        let status: ChildProcess.Status
        do {
            status = try child.waitForExit(within: timeout)
        } catch let timedOut as ChildProcess.Timeout {
            // Ended by now: the runner kills a process that outlives the wait.
            throw Failure(
                description:
                    "homepwner, sent SIGTERM, timed out after \(timeout) waiting for \(timedOut.waitingFor):\n\(log)")
        }
        switch status {
        case .exited(let code): return code
        case .signalled(let signal): return 128 + signal
        }
    }
}

/// A minimal HTTP client for the child-process tests: no redirects followed, bounded
/// waits.
enum HTTP {
    struct Reply: Sendable {
        var status: Int
        var body: Data
        var headers: [String: String]
    }

    /// `@unchecked Sendable`: stateless.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 15
        configuration.httpMaximumConnectionsPerHost = 16
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    static func send(_ method: String, _ url: URL, body: Data? = nil, contentType: String? = nil) async throws -> Reply
    {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            headers[String(describing: key).lowercased()] = String(describing: value)
        }
        return Reply(status: http.statusCode, body: data, headers: headers)
    }

    static func postForm(_ url: URL, _ fields: [(String, String)]) async throws -> Reply {
        let body = fields.map {
            "\($0.0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        }
        .joined(separator: "&")
        return try await send("POST", url, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded")
    }

    struct ItemRow: Decodable, Equatable {
        var itemKey: String
        var name: String
        var serialNumber: String?
        var valueInDollars: Int
        var hasPhoto: Bool
    }

    static func items(_ base: URL) async throws -> [ItemRow] {
        let reply = try await send("GET", base.appendingPathComponent("api/items"))
        return try JSONDecoder().decode([ItemRow].self, from: reply.body)
    }

    static let currencyFormats = ["dollars", "cents", "code"]

    /// The currency format the settings page shows checked.
    static func currencyFormat(_ base: URL) async throws -> String? {
        let page = String(decoding: try await send("GET", base.appendingPathComponent("settings")).body, as: UTF8.self)
        return currencyFormats.first { page.contains("name=\"currencyFormat\" value=\"\($0)\" checked") }
    }
}

/// A real 64×48 PNG, so a browser can decode it.
enum RealImages {
    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAwCAIAAAAuKetIAAAAQ0lEQVR42u3PQQkAAAgEsEtiTiMaywp+hcEKLNXzWgQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQErhZRfWjxIIKtDwAAAABJRU5ErkJggg=="
    )!
}

/// A suite whose tests each start Homepwner on a containers folder of their own (Swift
/// Testing makes a suite instance per test), removed after the test.
protocol ContainersOfItsOwn {
    var scratch: TemporaryDirectory { get }
}

extension ContainersOfItsOwn {
    var containers: URL { scratch.url }
}
