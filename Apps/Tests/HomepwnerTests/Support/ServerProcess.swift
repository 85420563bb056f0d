import Foundation
import Synchronization
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The built `homepwner` executable run as a child process on a free port, as a user
/// runs it; stopped with `SIGTERM` and started again over the same container.
final class ServerProcess: @unchecked Sendable {
    // @unchecked: `process` is set once in init; the output buffer is behind a Mutex.
    static let executable: URL? = BuiltProducts.executable(named: "homepwner")

    struct Failure: Error, CustomStringConvertible { var description: String }

    let process = Process()
    final class OutputBuffer: Sendable {
        let text = Mutex("")
    }

    private let output = OutputBuffer()
    private(set) var port = 0
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
        process.executableURL = executable
        process.arguments = arguments ?? ["--port", "0", "--container", containers.path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        let line = try waitForOutput(matching: "is serving http://127.0.0.1:", timeout: timeout)
        guard let range = line.range(of: "http://127.0.0.1:"),
            let port = Int(line[range.upperBound...].prefix { $0.isNumber })
        else {
            throw Failure(description: "no port in: \(line)")
        }
        self.port = port
    }

    var log: String { output.text.withLock { $0 } }

    /// How much output there is so far, for ``waitForOutput(matching:since:timeout:)``.
    var mark: Int { log.utf8.count }

    /// The first output line containing `text` (printed after `mark`), waiting at most
    /// `timeout` for it.
    @discardableResult
    func waitForOutput(matching text: String, since mark: Int = 0, timeout: Duration = .seconds(10)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let recent = String(decoding: log.utf8.dropFirst(mark), as: UTF8.self)
            if let line = recent.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if !process.isRunning, !log.contains(text) {
                throw Failure(
                    description: "homepwner exited (\(process.terminationStatus)) before printing \"\(text)\":\n\(log)")
            }
            usleep(20_000)
        }
        throw Failure(description: "homepwner did not print \"\(text)\" within \(timeout):\n\(log)")
    }

    /// Sends `SIGTERM` and waits (bounded) for the process to exit; returns its status.
    @discardableResult
    func terminate(timeout: Duration = .seconds(20)) throws -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure(description: "homepwner did not exit within \(timeout) of SIGTERM:\n\(log)")
        }
        usleep(50_000)  // let the output reader drain
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
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
}

/// A real 64×48 PNG, so a browser can decode it.
enum RealImages {
    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAwCAIAAAAuKetIAAAAQ0lEQVR42u3PQQkAAAgEsEtiTiMaywp+hcEKLNXzWgQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQErhZRfWjxIIKtDwAAAABJRU5ErkJggg=="
    )!
}

/// A fresh folder for containers, removed by the caller.
func temporaryFolder(_ name: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
