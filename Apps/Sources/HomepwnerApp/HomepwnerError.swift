import Foundation
import Hummingbird
import PropertyList

/// Why a request was refused, with the HTTP status it is answered with.
///
/// Every refusal leaves the app's data as it was: requests are validated before
/// anything is changed.
public struct HomepwnerError: KeepsakeError {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<HomepwnerError>

    public var code: Code
    public var message: String
    public var context: [String] { [] }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode<HomepwnerError> {
    /// Lets `catch .notFound` match a thrown ``HomepwnerError`` by its code.
    public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// A form field is missing or malformed.
    public static let badRequest = Self("badRequest")
    /// No item has the key in the URL, or the item has no photo.
    public static let notFound = Self("notFound")
    /// The body is larger than the app accepts.
    public static let contentTooLarge = Self("contentTooLarge")
    /// The body is not a kind the route accepts (a photo that is not JPEG or PNG).
    public static let unsupportedMediaType = Self("unsupportedMediaType")
    /// A request from another site tried to change the app's data.
    public static let forbidden = Self("forbidden")
    /// The request names a host this server does not answer for.
    public static let misdirectedRequest = Self("misdirectedRequest")
    /// The app could not read or write its container.
    public static let storageFailed = Self("storageFailed")
    /// A database was asked for, but this build has no database client (built
    /// without the package's `Database` trait).
    public static let databaseUnavailable = Self("databaseUnavailable")

    /// The HTTP status the request is answered with; a code without one of its own
    /// is a server error.
    var status: HTTPResponse.Status {
        let statuses: [Self: HTTPResponse.Status] = [
            .badRequest: .badRequest, .notFound: .notFound, .contentTooLarge: .contentTooLarge,
            .unsupportedMediaType: .unsupportedMediaType, .forbidden: .forbidden,
            .misdirectedRequest: .misdirectedRequest, .databaseUnavailable: .serviceUnavailable,
        ]
        return statuses[self] ?? .internalServerError
    }
}

extension HomepwnerError: HTTPResponseError {
    public var status: HTTPResponse.Status { code.status }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        let body = "\(status.code) \(status.reasonPhrase): \(message)\n"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
