import Foundation
import Hummingbird

/// Why a request was refused, with the HTTP status it is answered with.
///
/// Every refusal leaves the app's data as it was: requests are validated before
/// anything is changed.
public struct HomepwnerError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let status: HTTPResponse.Status
        public var description: String { "\(status.code) \(status.reasonPhrase)" }

        /// A form field is missing or malformed.
        public static let badRequest = Code(status: .badRequest)
        /// No item has the key in the URL, or the item has no photo.
        public static let notFound = Code(status: .notFound)
        /// The body is larger than the app accepts.
        public static let contentTooLarge = Code(status: .contentTooLarge)
        /// The body is not a kind the route accepts (a photo that is not JPEG or PNG).
        public static let unsupportedMediaType = Code(status: .unsupportedMediaType)
        /// A request from another site tried to change the app's data.
        public static let forbidden = Code(status: .forbidden)
        /// The request names a host this server does not answer for.
        public static let misdirectedRequest = Code(status: .misdirectedRequest)
        /// The app could not read or write its container.
        public static let storageFailed = Code(status: .internalServerError)
        /// A database was asked for, but this build has no database client (built
        /// without the package's `Database` trait).
        public static let databaseUnavailable = Code(status: .serviceUnavailable)
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension HomepwnerError.Code {
    /// Lets `catch HomepwnerError.Code.notFound` match.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? HomepwnerError)?.code == code
    }
}

extension HomepwnerError: HTTPResponseError {
    public var status: HTTPResponse.Status { code.status }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        let body = "\(code): \(message)\n"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
