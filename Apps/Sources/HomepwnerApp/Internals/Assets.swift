/// The stylesheet and script served at `/style.css` and `/app.js`.
enum Assets {
    static let stylesheet = """
        body { font: 15px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
        header { background: #1f4e79; color: white; padding: .6em 1em; }
        header a { color: #dfe9f3; margin-left: 1em; text-decoration: none; }
        header a.current { color: white; font-weight: bold; }
        #app-state { float: right; font-size: 90%; opacity: .8; }
        main { padding: 0 1em 2em; max-width: 60em; }
        table { border-collapse: collapse; width: 100%; background: white; }
        th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid #ddd; }
        td.value, #items th:nth-child(4) { text-align: right; font-variant-numeric: tabular-nums; }
        tfoot td { font-weight: bold; border-bottom: none; }
        img.thumb { width: 40px; height: 40px; object-fit: cover; border-radius: 4px; }
        img.photo { max-width: 320px; max-height: 320px; border: 1px solid #ccc; }
        form.inline { display: inline; }
        form label { display: inline-block; margin: .3em 1em .3em 0; }
        .empty { color: #888; }
        .notice { background: #e6f4e6; padding: .5em; }
        fieldset { margin: .6em 0; }
        """

    /// Niceties (confirming deletes, the state badge) and lifecycle reports: the
    /// page's `visibilitychange`, `blur`, `focus` and `pagehide` go to
    /// `POST /lifecycle`. Moving between the app's own pages is not reported as the
    /// page going away. A page that shows its revision asks `/api/revision` four times
    /// a second while visible and, when it moved on, replaces its content with the
    /// page's current one, unless a form on it is being filled in.
    static let script = """
        (function () {
          var navigating = false;
          function report(event) {
            if (navigating && event !== 'visible' && event !== 'focus') return;
            var body = new URLSearchParams({ event: event });
            if (event === 'hidden' || event === 'pagehide') {
              if (navigator.sendBeacon && navigator.sendBeacon('/lifecycle', body)) return;
            }
            fetch('/lifecycle', { method: 'POST', body: body, keepalive: true })
              .then(function (r) { return r.text(); })
              .then(function (state) { var b = document.getElementById('app-state'); if (b) b.textContent = state.trim(); })
              .catch(function () {});
          }
          document.addEventListener('visibilitychange', function () {
            report(document.visibilityState === 'hidden' ? 'hidden' : 'visible');
          });
          window.addEventListener('blur', function () { report('blur'); });
          window.addEventListener('focus', function () { report('focus'); });
          window.addEventListener('pagehide', function () { report('pagehide'); });
          document.addEventListener('submit', function (e) {
            if (e.target.classList.contains('delete') && !confirm('Delete this item?')) { e.preventDefault(); return; }
            navigating = true;
          });
          document.addEventListener('click', function (e) {
            var a = e.target.closest && e.target.closest('a[href^="/"]');
            if (a) navigating = true;
          });
          var main = document.querySelector('main[data-revision]');
          var polling = false;
          // A form being filled in, or filled in and left, is never replaced.
          function editing() {
            var active = document.activeElement;
            if (active && active.form) return true;
            var fields = main.querySelectorAll('input, textarea');
            for (var i = 0; i < fields.length; i++) {
              var f = fields[i];
              if (f.type === 'checkbox' || f.type === 'radio') { if (f.checked !== f.defaultChecked) return true; }
              else if (f.type === 'file') { if (f.files && f.files.length) return true; }
              else if (f.type !== 'hidden' && f.value !== f.defaultValue) return true;
            }
            return false;
          }
          function refresh() {
            if (!main || polling || document.visibilityState !== 'visible' || editing()) return;
            polling = true;
            fetch('/api/revision', { cache: 'no-store' })
              .then(function (r) { return r.text(); })
              .then(function (revision) {
                revision = revision.trim();
                if (revision === main.getAttribute('data-revision')) return;
                return fetch(location.href, { cache: 'no-store' })
                  .then(function (r) {
                    // Gone (an item deleted elsewhere): keep the page, stop asking for it.
                    if (!r.ok) { main.setAttribute('data-revision', revision); return ''; }
                    return r.text();
                  })
                  .then(function (html) {
                    var next = new DOMParser().parseFromString(html, 'text/html').querySelector('main[data-revision]');
                    if (!next) return;
                    main.innerHTML = next.innerHTML;
                    main.setAttribute('data-revision', next.getAttribute('data-revision'));
                  });
              })
              .catch(function () {})
              .then(function () { polling = false; });
          }
          setInterval(refresh, 250);
          window.addEventListener('pageshow', function () {
            navigating = false;
            if (document.visibilityState === 'visible') report('visible');
            if (document.hasFocus()) report('focus');
          });
        })();
        """
}
