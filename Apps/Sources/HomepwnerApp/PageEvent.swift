/// A page lifecycle event as `/app.js` reports it to `POST /lifecycle`.
package enum PageEvent: String, Sendable, CaseIterable {
    /// `visibilitychange` to hidden: the app enters the background (and saves).
    case hidden
    /// `visibilitychange` to visible: the app enters the foreground.
    case visible
    /// `blur`: the app resigns active.
    case blur
    /// `focus`: the app becomes active.
    case focus
    /// `pagehide`: the page is going away. One server serves many pages, so this
    /// enters the background rather than ending the process; `SIGTERM` ends it.
    case pagehide
}
