import Foundation

/// Escapes text for HTML element content and quoted attribute values.
func escapeHTML(_ text: some StringProtocol) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.append(character)
        }
    }
    return out
}

/// Percent-escapes an item key (or any text) for a URL path segment.
func escapePath(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
}

/// The server-rendered pages. They work without JavaScript; `/app.js` adds niceties
/// and reports the page's lifecycle.
enum Pages {
    /// A page; `revision` (the inventory's) makes the page update itself when the
    /// items or settings change, here or in another instance.
    static func layout(title: String, current: String, state: String, revision: Int? = nil, body: String) -> String {
        func link(_ path: String, _ name: String) -> String {
            "<a href=\"\(path)\"\(current == path ? " class=\"current\"" : "")>\(name)</a>"
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escapeHTML(title)) — Homepwner</title>
            <link rel="stylesheet" href="/style.css">
            <script src="/app.js" defer></script>
            </head>
            <body>
            <header><strong>Homepwner</strong> \(link("/", "Items")) \(link("/settings", "Settings")) \(link("/container", "Container")) \(link("/lifecycle", "Lifecycle"))
            <span id="app-state" title="application state">\(escapeHTML(state))</span></header>
            <main\(revision.map { " data-revision=\"\($0)\"" } ?? "")>
            <h1>\(escapeHTML(title))</h1>
            \(body)
            </main>
            </body>
            </html>

            """
    }

    /// One page of the item list: the rows of `page`, with the count and total of every
    /// item and links to the other pages.
    static func itemList(
        _ page: ItemPage, order: SortOrder, format: CurrencyFormat, showsSerials: Bool, photoPaths: [String: String]
    ) -> String {
        let items = page.items
        var rows = ""
        for (position, item) in items.enumerated() {
            let index = page.offset + position
            let key = escapePath(item.itemKey)
            var moves = ""
            if order == .manual {
                moves = """
                    <form method="post" action="/items/\(key)/move" class="inline"><input type="hidden" name="to" value="\(index - 1)"><button \(index == 0 ? "disabled" : "") title="Move up">↑</button></form>\
                    <form method="post" action="/items/\(key)/move" class="inline"><input type="hidden" name="to" value="\(index + 1)"><button \(index == page.totalCount - 1 ? "disabled" : "") title="Move down">↓</button></form>
                    """
            }
            let thumb =
                photoPaths[item.itemKey].map {
                    "<img class=\"thumb\" src=\"\(escapeHTML($0))\" alt=\"photo of \(escapeHTML(item.name))\">"
                } ?? ""
            rows += """
                <tr data-key="\(escapeHTML(item.itemKey))">
                <td>\(thumb)</td>
                <td class="name"><a href="/items/\(key)">\(escapeHTML(item.name))</a></td>
                \(showsSerials ? "<td class=\"serial\">\(escapeHTML(item.serialNumber ?? "—"))</td>" : "")
                <td class="value">\(escapeHTML(format.format(item.valueInDollars)))</td>
                <td class="date"><time datetime="\(isoDate(item.dateCreated))">\(shortDate(item.dateCreated))</time></td>
                <td class="actions">\(moves)<form method="post" action="/items/\(key)/delete" class="inline delete"><button title="Delete">Delete</button></form></td>
                </tr>

                """
        }
        let sortLinks = SortOrder.allCases.map { candidate in
            candidate == order
                ? "<strong>\(candidate.rawValue)</strong>"
                : "<a href=\"/?sort=\(candidate.rawValue)\">\(candidate.rawValue)</a>"
        }.joined(separator: " · ")
        var pages = ""
        if page.pageCount > 1 {
            func link(_ number: Int, _ label: String) -> String {
                "<a href=\"/?sort=\(order.rawValue)&amp;page=\(number)\">\(label)</a>"
            }
            let previous = page.number > 1 ? link(page.number - 1, "← Previous") : "← Previous"
            let next = page.number < page.pageCount ? link(page.number + 1, "Next →") : "Next →"
            pages =
                "<p class=\"pages\" id=\"pages\">\(previous) · page \(page.number) of \(page.pageCount) · \(next)</p>"
        }
        let count = page.totalCount
        return """
            <p class="sort">Sort: \(sortLinks)</p>
            \(pages)
            <table id="items">
            <thead><tr><th></th><th>Name</th>\(showsSerials ? "<th>Serial number</th>" : "")<th>Value</th><th>Date created</th><th></th></tr></thead>
            <tbody>
            \(rows.isEmpty ? "<tr><td colspan=\"6\" class=\"empty\">No items yet.</td></tr>" : rows)
            </tbody>
            <tfoot><tr><td></td><td id="item-count">\(count) item\(count == 1 ? "" : "s")</td>\(showsSerials ? "<td></td>" : "")<td id="total" class="value">\(escapeHTML(format.format(page.totalValue)))</td><td colspan="2"></td></tr></tfoot>
            </table>
            <h2>Add an item</h2>
            <form method="post" action="/items" id="new-item">
            <label>Name <input name="name" required maxlength="200"></label>
            <label>Serial number <input name="serialNumber" maxlength="64"></label>
            <label>Value in dollars <input name="valueInDollars" type="number" min="0" step="1" value="0"></label>
            <button>Add</button>
            </form>
            <form method="post" action="/items/random" id="random-item"><button>Add a random item</button></form>
            """
    }

    static func itemDetail(_ item: Item, format: CurrencyFormat, photoPath: String?, maxPhotoBytes: Int) -> String {
        let key = escapePath(item.itemKey)
        let photo =
            photoPath.map { path in
                """
                <p><img id="photo" class="photo" src="\(escapeHTML(path))" alt="photo of \(escapeHTML(item.name))"></p>
                <form method="post" action="/items/\(key)/photo/delete"><button>Delete photo</button></form>
                """
            } ?? "<p class=\"empty\">No photo.</p>"
        return """
            <form method="post" action="/items/\(key)" id="edit-item">
            <label>Name <input name="name" required maxlength="200" value="\(escapeHTML(item.name))"></label>
            <label>Serial number <input name="serialNumber" maxlength="64" value="\(escapeHTML(item.serialNumber ?? ""))"></label>
            <label>Value in dollars <input name="valueInDollars" type="number" min="0" step="1" value="\(item.valueInDollars)"></label>
            <p>Created <time datetime="\(isoDate(item.dateCreated))">\(shortDate(item.dateCreated))</time>; key <code>\(escapeHTML(item.itemKey))</code></p>
            <button>Save</button>
            </form>
            <h2>Photo</h2>
            \(photo)
            <form method="post" action="/items/\(key)/photo" enctype="multipart/form-data" id="photo-upload">
            <label>\(photoPath != nil ? "Replace photo" : "Upload a photo") (JPEG or PNG, at most \(maxPhotoBytes >> 20) MiB) <input type="file" name="photo" accept="image/jpeg,image/png" required></label>
            <button>Upload</button>
            </form>
            <form method="post" action="/items/\(key)/delete" class="delete"><button>Delete item</button></form>
            <p><a href="/">Back to the items</a></p>
            """
    }

    static func settings(
        order: SortOrder, format: CurrencyFormat, showsSerials: Bool, saved: Bool, outbox: Outbox?
    ) -> String {
        let orders = SortOrder.allCases.map {
            "<label><input type=\"radio\" name=\"sortOrder\" value=\"\($0.rawValue)\"\($0 == order ? " checked" : "")> \(escapeHTML($0.title))</label>"
        }.joined(separator: "<br>\n")
        let formats = CurrencyFormat.allCases.map {
            "<label><input type=\"radio\" name=\"currencyFormat\" value=\"\($0.rawValue)\"\($0 == format ? " checked" : "")> \(escapeHTML($0.title))</label>"
        }.joined(separator: "<br>\n")
        return """
            \(saved ? "<p class=\"notice\">Settings saved.</p>" : "")
            <form method="post" action="/settings" id="settings">
            <fieldset><legend>Sort order</legend>\(orders)</fieldset>
            <fieldset><legend>Currency format</legend>\(formats)</fieldset>
            <fieldset><legend>List</legend><label><input type="checkbox" name="showSerialNumbers" value="on"\(showsSerials ? " checked" : "")> Show serial numbers</label></fieldset>
            <button>Save settings</button>
            </form>
            <p>Settings live in user defaults (<code>Library/Preferences/</code>); a first run registers their defaults.</p>
            \(outbox.map(Self.outbox) ?? "")
            """
    }

    /// What waits for the database: every change is durable here first.
    static func outbox(_ outbox: Outbox) -> String {
        let lastPush =
            outbox.lastPush.map { "<time datetime=\"\(isoDate($0))\">\(escapeHTML(shortDate($0)))</time>" } ?? "never"
        let problem = outbox.lastError.map { "<br>Last attempt failed: \(escapeHTML(String($0.prefix(200))))" } ?? ""
        let receiving =
            outbox.itemsReceived.map {
                "<br>Taking in the database's items: <strong id=\"received-items\">\($0.done)</strong> of \($0.total)."
            } ?? ""
        return """
            <p id="outbox">Waiting for the database: <strong id="pending-items">\(outbox.pendingItems)</strong> items, \
            <strong id="pending-settings">\(outbox.pendingSettings)</strong> settings. Last sent: \(lastPush).\(problem)\
            \(receiving)</p>
            """
    }

    static func shortDate(_ date: Date) -> String {
        date.formatted(.dateTime.year().month(.abbreviated).day().hour().minute())
    }

    static func isoDate(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func byteCount(_ count: Int64) -> String {
        count < 1024 ? "\(count) bytes" : ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }
}
