import AppSandbox
import Foundation
import Hummingbird
import PropertyList

/// Why a request was refused, with the HTTP status it is answered with.
///
/// Every refusal leaves the app's data as it was: requests are validated before
/// anything is changed.
package struct HomepwnerError: KeepsakeError {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    package typealias Code = ErrorCode<HomepwnerError>

    package var code: Code
    package var message: String
    package var context: [String] { [] }

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode<HomepwnerError> {
    /// Lets `catch .notFound` match a thrown ``HomepwnerError`` by its code.
    package static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// A form field is missing or malformed.
    package static let badRequest = Self("badRequest")
    /// No item has the key in the URL, or the item has no photo.
    package static let notFound = Self("notFound")
    /// The body is larger than the app accepts.
    package static let contentTooLarge = Self("contentTooLarge")
    /// The body is not a kind the route accepts (a photo that is not JPEG or PNG).
    package static let unsupportedMediaType = Self("unsupportedMediaType")
    /// A request from another site tried to change the app's data.
    package static let forbidden = Self("forbidden")
    /// The request names a host this server does not answer for.
    package static let misdirectedRequest = Self("misdirectedRequest")
    /// The app could not read or write its container.
    package static let storageFailed = Self("storageFailed")
    /// The disk, or the user's quota, is full: the change was not made. Reads still
    /// work, and writes do again once there is space.
    package static let insufficientStorage = Self("insufficientStorage")
    /// A database was asked for, but this build has no database client (built
    /// without the package's `Database` trait).
    package static let databaseUnavailable = Self("databaseUnavailable")

    /// The HTTP status the request is answered with; a code without one of its own
    /// is a server error.
    var status: HTTPResponse.Status {
        let statuses: [Self: HTTPResponse.Status] = [
            .badRequest: .badRequest, .notFound: .notFound, .contentTooLarge: .contentTooLarge,
            .unsupportedMediaType: .unsupportedMediaType, .forbidden: .forbidden,
            .misdirectedRequest: .misdirectedRequest, .databaseUnavailable: .serviceUnavailable,
            .insufficientStorage: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"),
        ]
        return statuses[self] ?? .internalServerError
    }
}

extension HomepwnerError {
    /// A store's `error` while it did `what`: `.insufficientStorage` when the file
    /// layer underneath ran out of space, else `.storageFailed`.
    static func storage(_ what: String, _ error: any Error) -> HomepwnerError {
        var cause: (any Error)? = error
        while let current = cause, !(current is SandboxError) {
            cause = (current as? any KeepsakeError)?.underlyingError
        }
        guard (cause as? SandboxError)?.code == .noSpace else {
            return HomepwnerError(.storageFailed, "\(what): \(error)")
        }
        return HomepwnerError(
            .insufficientStorage, "\(what): the disk is full, so nothing was changed; try again once there is space")
    }
}

extension HomepwnerError: HTTPResponseError {
    package var status: HTTPResponse.Status { code.status }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        let body = "\(status.code) \(status.reasonPhrase): \(message)\n"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
