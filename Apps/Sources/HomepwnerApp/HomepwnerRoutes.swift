import AppSandbox
import Foundation
import Hummingbird

/// The routes of the Homepwner web app.
///
/// | Route | What |
/// |---|---|
/// | `GET /` | the item list, a page at a time (`?page=N`; `?sort=manual|name|value|date` overrides the setting) |
/// | `POST /items` | add an item (form: `name`, `serialNumber`, `valueInDollars`) |
/// | `POST /items/random` | add a random item |
/// | `GET /items/:key` | the item's page: edit form and photo |
/// | `POST /items/:key` | edit the item (same form as adding) |
/// | `POST /items/:key/delete`, `DELETE /items/:key` | delete the item and its photo |
/// | `POST /items/:key/move` | move it (form: `to`, the new index) |
/// | `GET /items/:key/photo` | the photo's bytes |
/// | `POST /items/:key/photo` | upload or replace it (multipart field `photo`, or a raw JPEG/PNG body) |
/// | `POST /items/:key/photo/delete`, `DELETE /items/:key/photo` | delete the photo |
/// | `GET /settings`, `POST /settings` | the settings page (user defaults) |
/// | `GET /container` | the container: directories, files, sizes, backup plan |
/// | `GET /lifecycle`, `POST /lifecycle` | the lifecycle log; page events (form: `event`) |
/// | `GET /api/items` | the items as JSON |
/// | `GET /api/revision` | the number of changes so far, which the pages poll to show others' changes |
///
/// Form posts answer `303 See Other` to the page to show next; refusals answer with
/// their status and a one-line plain-text reason. Every request must name an allowed
/// host, and every change must come from the app's own pages (see `RequestGuard`).
package struct HomepwnerRoutes: Sendable {
    package let inventory: Inventory
    package let lifecycle: LifecycleLog
    /// Called with each page event; the app turns them into lifecycle triggers.
    package let onPageEvent: @Sendable (PageEvent) async -> Void
    /// The largest form body accepted (photos have their own limit).
    package var maxFormBytes = 64 << 10
    /// How many items one page of the list shows.
    package var pageSize = 100
    /// The names a request's `Host` may give.
    package var allowedHosts = AllowedHosts.loopback

    package init(
        inventory: Inventory, lifecycle: LifecycleLog, onPageEvent: @escaping @Sendable (PageEvent) async -> Void
    ) {
        self.inventory = inventory
        self.lifecycle = lifecycle
        self.onPageEvent = onPageEvent
    }

    /// A router with every route.
    package func router() -> Router<BasicRequestContext> {
        let router = Router()
        let routes = self
        router.add(middleware: RequestGuard(allowedHosts: allowedHosts))
        router.get("/") { request, _ in try await routes.listPage(request) }
        router.get("/items") { _, _ in Response.redirect(to: "/", type: .normal) }
        router.post("/items") { request, _ in
            let form = try await routes.form(request)
            try await routes.inventory.createItem(
                name: form["name"], serialNumber: form["serialNumber"], valueInDollars: form["valueInDollars"])
            return Response.redirect(to: "/", type: .normal)
        }
        router.post("/items/random") { _, _ in
            try await routes.inventory.createRandomItem()
            return Response.redirect(to: "/", type: .normal)
        }
        router.get("/items/:key") { _, context in try await routes.itemPage(context.parameters.require("key")) }
        router.post("/items/:key") { request, context in
            let key = try context.parameters.require("key")
            let form = try await routes.form(request)
            try await routes.inventory.updateItem(
                forKey: key, name: form["name"], serialNumber: form["serialNumber"],
                valueInDollars: form["valueInDollars"])
            return Response.redirect(to: "/items/\(escapePath(key))", type: .normal)
        }
        router.post("/items/:key/delete") { _, context in
            try await routes.inventory.deleteItem(forKey: context.parameters.require("key"))
            return Response.redirect(to: "/", type: .normal)
        }
        router.delete("/items/:key") { _, context in
            try await routes.inventory.deleteItem(forKey: context.parameters.require("key"))
            return Response(status: .noContent)
        }
        router.post("/items/:key/move") { request, context in
            let key = try context.parameters.require("key")
            let form = try await routes.form(request)
            guard let text = form["to"], let index = Int(text) else {
                throw HomepwnerError(.badRequest, "to must be the item's new index")
            }
            try await routes.inventory.moveItem(forKey: key, to: index)
            return Response.redirect(to: "/", type: .normal)
        }
        router.get("/items/:key/photo") { _, context in
            let photo = try await routes.inventory.photo(forKey: context.parameters.require("key"))
            var headers = HTTPFields()
            headers[.contentType] = photo.mimeType
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: photo.data)))
        }
        router.post("/items/:key/photo") { request, context in
            let key = try context.parameters.require("key")
            guard await routes.inventory.item(forKey: key) != nil else { throw Inventory.noItem(key) }
            let photo = try await routes.uploadedPhoto(request)
            try await routes.inventory.setPhoto(photo, forKey: key)
            return Response.redirect(to: "/items/\(escapePath(key))", type: .normal)
        }
        router.post("/items/:key/photo/delete") { _, context in
            let key = try context.parameters.require("key")
            try await routes.inventory.deletePhoto(forKey: key)
            return Response.redirect(to: "/items/\(escapePath(key))", type: .normal)
        }
        router.delete("/items/:key/photo") { _, context in
            try await routes.inventory.deletePhoto(forKey: context.parameters.require("key"))
            return Response(status: .noContent)
        }
        router.get("/settings") { request, _ in
            await routes.settingsPage(saved: request.uri.queryParameters["saved"] != nil)
        }
        router.post("/settings") { request, _ in
            let form = try await routes.form(request)
            try await routes.inventory.updateSettings(
                sortOrder: form["sortOrder"], currencyFormat: form["currencyFormat"],
                showSerialNumbers: form["showSerialNumbers"] != nil)
            return Response.redirect(to: "/settings?saved=1", type: .normal)
        }
        router.get("/container") { _, _ in try await routes.containerPage() }
        router.get("/lifecycle") { _, _ in routes.lifecyclePage() }
        router.post("/lifecycle") { request, _ in
            let form = try await routes.form(request)
            guard let name = form["event"], let event = PageEvent(rawValue: name) else {
                throw HomepwnerError(
                    .badRequest, "event must be one of \(PageEvent.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            await routes.onPageEvent(event)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(
                status: .ok, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: routes.lifecycle.state + "\n")))
        }
        router.get("/api/items") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try await routes.itemsJSON())))
        }
        router.get("/api/revision") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(
                status: .ok, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "\(await routes.inventory.revision)\n")))
        }
        router.get("/app.js") { _, _ in routes.asset(Assets.script, type: "text/javascript; charset=utf-8") }
        router.get("/style.css") { _, _ in routes.asset(Assets.stylesheet, type: "text/css; charset=utf-8") }
        return router
    }

    // MARK: Pages

    @MainActor
    func listPage(_ request: Request) throws -> Response {
        var order = inventory.sortOrder
        if let requested = request.uri.queryParameters["sort"] {
            guard let parsed = SortOrder(rawValue: String(requested)) else {
                throw HomepwnerError(
                    .badRequest, "sort must be one of \(SortOrder.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            order = parsed
        }
        var number = 1
        if let requested = request.uri.queryParameters["page"] {
            guard let parsed = Int(requested), parsed >= 1 else {
                throw HomepwnerError(.badRequest, "page must be a number from 1")
            }
            number = parsed
        }
        let page = ItemPage(inventory.items(sortedBy: order), number: number, size: pageSize)
        var photos: [String: String] = [:]
        for item in page.items { photos[item.itemKey] = inventory.photoPath(forKey: item.itemKey) }
        return html(
            Pages.layout(
                title: "Items", current: "/", state: lifecycle.state, revision: inventory.revision,
                body: Pages.itemList(
                    page, order: order, format: inventory.currencyFormat, showsSerials: inventory.showsSerialNumbers,
                    photoPaths: photos)))
    }

    @MainActor
    func itemPage(_ key: String) throws -> Response {
        guard let item = inventory.item(forKey: key) else { throw Inventory.noItem(key) }
        return html(
            Pages.layout(
                title: item.name, current: "", state: lifecycle.state, revision: inventory.revision,
                body: Pages.itemDetail(
                    item, format: inventory.currencyFormat, photoPath: inventory.photoPath(forKey: key),
                    maxPhotoBytes: inventory.limits.maxPhotoBytes)))
    }

    @MainActor
    func settingsPage(saved: Bool) -> Response {
        html(
            Pages.layout(
                title: "Settings", current: "/settings", state: lifecycle.state, revision: inventory.revision,
                body: Pages.settings(
                    order: inventory.sortOrder, format: inventory.currencyFormat,
                    showsSerials: inventory.showsSerialNumbers, saved: saved, outbox: inventory.outbox?())))
    }

    @MainActor
    func containerPage() throws -> Response {
        let container = inventory.container
        let summary: ContainerSummary
        let plan: BackupPlan
        do {
            summary = try ContainerSummary(container: container)
            plan = try BackupPlan(container: container)
        } catch {
            throw HomepwnerError(.storageFailed, "could not read the container: \(error)")
        }
        let backedUp = Set(plan.items.map(\.path))
        var body =
            "<p>Container <code>\(escapeHTML(container.identifier))</code> at <code>\(escapeHTML(container.url.path))</code></p>\n"
        body +=
            "<h2>Directories</h2>\n<table id=\"directories\"><thead><tr><th>Directory</th><th>Files</th><th>Size</th><th>Backed up</th></tr></thead><tbody>\n"
        for row in summary.rows {
            let path = row.directory.pathComponents.joined(separator: "/")
            func isInside(_ other: AppContainer.Directory) -> Bool {
                row.directory.pathComponents.starts(with: other.pathComponents)
            }
            let included =
                BackupPlan.includedDirectories.contains(where: isInside)
                && !BackupPlan.skippedDirectories.contains(where: isInside)
            body +=
                "<tr data-directory=\"\(escapeHTML(path))/\"><td><code>\(escapeHTML(path))/</code></td><td>\(row.fileCount)</td><td>\(Pages.byteCount(row.byteCount))</td><td>\(included ? "yes" : "no")</td></tr>\n"
        }
        body +=
            "</tbody></table>\n<h2>Files</h2>\n<table id=\"files\"><thead><tr><th>Path</th><th>Size</th><th>In a backup</th></tr></thead><tbody>\n"
        for (path, size) in Self.files(in: container.url) {
            body +=
                "<tr><td><code>\(escapeHTML(path))</code></td><td>\(size) bytes</td><td>\(backedUp.contains(path) ? "yes" : "no")</td></tr>\n"
        }
        body += "</tbody></table>\n<h2>A backup would include</h2>\n<ul id=\"backup\">\n"
        for item in plan.items where item.kind == .file {
            body += "<li><code>\(escapeHTML(item.path))</code> (\(item.size) bytes)</li>\n"
        }
        body +=
            "</ul>\n<p>\(plan.items.filter { $0.kind == .file }.count) files, \(plan.totalBytes) bytes in all. <code>Library/Caches/</code> and <code>tmp/</code> are never backed up.</p>\n"
        return html(Pages.layout(title: "Container", current: "/container", state: lifecycle.state, body: body))
    }

    /// Every regular file under `root`, as container-relative paths with sizes.
    static func files(in root: URL) -> [(String, Int64)] {
        let base = root.standardizedFileURL.path
        var out: [(String, Int64)] = []
        guard
            let enumerator = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey])
        else { return [] }
        for case let url as URL in enumerator {
            guard let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey]),
                values.isRegularFile == true
            else { continue }
            var path = url.standardizedFileURL.path
            if path.hasPrefix(base + "/") { path.removeFirst(base.count + 1) }
            out.append((path, Int64(values.fileSize ?? 0)))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    func lifecyclePage() -> Response {
        let entries = lifecycle.entries.reversed().map { entry in
            "<li><time>\(Pages.isoDate(entry.date))</time> <code>\(escapeHTML(entry.message))</code></li>"
        }.joined(separator: "\n")
        return html(
            Pages.layout(
                title: "Lifecycle", current: "/lifecycle", state: lifecycle.state,
                body: """
                    <p>State: <strong id="state">\(escapeHTML(lifecycle.state))</strong>. Hide this tab, switch windows or come back: the page reports
                    <code>visibilitychange</code>, <code>blur</code>, <code>focus</code> and <code>pagehide</code>, and the app moves between
                    active, inactive and background, saving when it enters the background. <code>SIGTERM</code> saves and ends the server.</p>
                    <ol id="log" reversed>\n\(entries)\n</ol>
                    """))
    }

    @MainActor
    func itemsJSON() throws -> [UInt8] {
        struct Row: Encodable {
            var itemKey: String, name: String, serialNumber: String?, valueInDollars: Int, dateCreated: Date,
                hasPhoto: Bool
        }
        let rows = inventory.allItems.map {
            Row(
                itemKey: $0.itemKey, name: $0.name, serialNumber: $0.serialNumber, valueInDollars: $0.valueInDollars,
                dateCreated: $0.dateCreated, hasPhoto: inventory.hasPhoto(forKey: $0.itemKey))
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(rows))
    }

    // MARK: Bodies

    func html(_ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Collects at most `limit` bytes of the body.
    /// - Throws: ``HomepwnerError`` `.contentTooLarge` past the limit.
    func body(_ request: Request, limit: Int, what: String) async throws -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw HomepwnerError(.contentTooLarge, "the \(what) is \(length) bytes; the limit is \(limit)")
        }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as HomepwnerError {
            throw error
        } catch {
            throw HomepwnerError(.contentTooLarge, "the \(what) is larger than \(limit) bytes")
        }
    }

    /// The fields of a urlencoded form body (`sendBeacon`'s `text/plain` too).
    func form(_ request: Request) async throws -> URLEncodedForm {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.isEmpty || type.hasPrefix("application/x-www-form-urlencoded") || type.hasPrefix("text/plain") else {
            if type.hasPrefix("multipart/form-data") {
                throw HomepwnerError(.unsupportedMediaType, "send this form as application/x-www-form-urlencoded")
            }
            throw HomepwnerError(
                .unsupportedMediaType, "expected a form (application/x-www-form-urlencoded), got \(type.prefix(80))")
        }
        return try URLEncodedForm(bytes: try await body(request, limit: maxFormBytes, what: "form"))
    }

    /// The photo of an upload: the `photo` part of a multipart form, or a raw
    /// `image/jpeg` / `image/png` body.
    func uploadedPhoto(_ request: Request) async throws -> Data {
        let type = request.headers[.contentType] ?? ""
        let limit = inventory.limits.maxPhotoBytes
        if let boundary = MultipartForm.boundary(fromContentType: type) {
            // Room for the part headers and boundaries around the photo.
            let bytes = try await body(request, limit: limit + 16 << 10, what: "upload")
            let form = try MultipartForm(bytes: bytes, boundary: boundary)
            guard let part = form.part(named: "photo") else {
                throw HomepwnerError(.badRequest, "the upload has no field named photo")
            }
            return Data(part.body)
        }
        let lower = type.lowercased()
        guard lower.hasPrefix("image/jpeg") || lower.hasPrefix("image/png") else {
            throw HomepwnerError(
                .unsupportedMediaType, "upload a photo as multipart/form-data or image/jpeg or image/png")
        }
        return Data(try await body(request, limit: limit, what: "photo"))
    }
}
