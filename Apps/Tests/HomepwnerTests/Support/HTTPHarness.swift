import AppSandbox
import Foundation
import HomepwnerApp
import Hummingbird
import HummingbirdTesting

/// A Homepwner server in a throwaway container, driven in-process through
/// HummingbirdTesting's router client.
@MainActor
struct HTTPHarness {
    let server: HomepwnerServer
    let container: AppContainer

    init(limits: Inventory.Limits = .init()) throws {
        container = try AppContainer.temporary(identifier: HomepwnerServer.identifier)
        server = try HomepwnerServer(container: container, limits: limits, log: LifecycleLog(echo: false))
        server.application.launch()
    }

    var inventory: Inventory { server.inventory }

    /// Starts a harness and runs `body` with it and a client, as ``run(allowedHosts:pageSize:_:)``.
    static func run(
        limits: Inventory.Limits = .init(), allowedHosts: AllowedHosts = .loopback, pageSize: Int = 100,
        _ body: @MainActor @Sendable (HTTPHarness, Client) async throws -> Void
    ) async throws {
        let harness = try HTTPHarness(limits: limits)
        try await harness.run(allowedHosts: allowedHosts, pageSize: pageSize) { client in
            try await body(harness, client)
        }
    }

    /// Runs `body` with a client, then removes the container. The test client always
    /// names the host `localhost`.
    func run(
        allowedHosts: AllowedHosts = .loopback, pageSize: Int = 100,
        _ body: @MainActor @Sendable (Client) async throws -> Void
    ) async throws {
        defer { try? container.destroy() }
        var routes = server.routes
        routes.allowedHosts = allowedHosts
        routes.pageSize = pageSize
        let app = Application(router: routes.router())
        try await app.test(.router) { client in try await body(Client(client: client)) }
    }

    struct Client: Sendable {
        let client: any TestClientProtocol

        func get(_ uri: String) async throws -> TestResponse {
            try await client.execute(uri: uri, method: .get)
        }

        func post(_ uri: String, form: [(String, String)]) async throws -> TestResponse {
            let body = form.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
            return try await post(uri, body: Array(body.utf8), contentType: "application/x-www-form-urlencoded")
        }

        func post(_ uri: String, body: [UInt8], contentType: String?, headers extra: HTTPFields = [:]) async throws
            -> TestResponse
        {
            var headers = extra
            if let contentType { headers[.contentType] = contentType }
            return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(bytes: body))
        }

        func delete(_ uri: String) async throws -> TestResponse {
            try await client.execute(uri: uri, method: .delete)
        }

        /// Uploads `data` as the `field` part of a multipart form.
        func upload(
            _ uri: String, data: [UInt8], field: String = "photo", filename: String = "photo.png",
            partType: String = "image/png"
        ) async throws -> TestResponse {
            let (body, type) = Multipart.body(data: data, field: field, filename: filename, partType: partType)
            return try await post(uri, body: body, contentType: type)
        }

        static func escape(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        }
    }
}

enum Multipart {
    static let boundary = "----KeepsakeBoundary7MA4YWxkTrZu0gW"

    static func body(data: [UInt8], field: String, filename: String, partType: String) -> ([UInt8], String) {
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n".utf8)
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(filename)\"\r\nContent-Type: \(partType)\r\n\r\n"
                .utf8)
        body += data
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var bytes: [UInt8] { Array(body.readableBytesView) }
    var location: String? { headers[.location] }
}

/// Small images made in the tests: a PNG and a JPEG (valid headers, enough to be
/// recognised; the app does not decode pixels).
enum TestImages {
    static let png: [UInt8] = {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += Array("pretend IHDR and pixels".utf8)
        return bytes
    }()

    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array("pretend JFIF".utf8) + [0xFF, 0xD9]
}
