import Hummingbird

/// Refuses what a page of another site could make a browser send, and tells browsers
/// not to guess content types.
///
/// - Every request must address an allowed host (``AllowedHosts``): DNS rebinding
///   sends the attacker's name in `Host`. Refused with `421 Misdirected Request`.
/// - A request that changes something (any method but `GET`, `HEAD`, `OPTIONS`) must
///   come from this app's own pages: `Sec-Fetch-Site`, when sent, is `same-origin` or
///   `none` (typed by the user), and `Origin`, when sent, is this server's own. A form
///   or `fetch` with a `text/plain` body needs no preflight, so without this check any
///   web page could add items. Refused with `403 Forbidden`. Clients that send
///   neither header (curl, scripts) are not browsers and pass.
/// - Every response carries `X-Content-Type-Options: nosniff`, so an uploaded photo is
///   never run as a script or page.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let allowedHosts: AllowedHosts

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let host = request.head.authority
        if let host, !allowedHosts.allows(authority: host) {
            throw HomepwnerError(
                .misdirectedRequest, "this server does not answer for the host \"\(host.prefix(100))\"")
        }
        if ![.get, .head, .options].contains(request.method) {
            try Self.checkSameOrigin(request, host: host)
        }
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    private static func checkSameOrigin(_ request: Request, host: String?) throws {
        let fetchSite = request.headers.first { $0.name.canonicalName == "sec-fetch-site" }?.value
        if let site = fetchSite?.lowercased(), site != "same-origin", site != "none" {
            throw HomepwnerError(.forbidden, "a \(site.prefix(20)) request cannot change this app's data")
        }
        if let origin = request.headers[.origin] {
            guard let host, origin.lowercased() == "http://\(host.lowercased())" else {
                throw HomepwnerError(.forbidden, "a request from \(origin.prefix(100)) cannot change this app's data")
            }
        }
    }
}
