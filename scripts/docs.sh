#!/usr/bin/env bash
# Builds the DocC documentation of every library into .build/docs/MODULE, ready for
# static hosting; open .build/docs/MODULE/documentation/<module>/index.html through
# any web server (e.g. python3 -m http.server -d .build/docs). `Keepsake` holds the
# articles (Getting Started, Porting, one per layer), whose code is the Snippets/
# programs that `swift build` compiles. It is built with the symbols of every module it
# re-exports, so that the articles link them absolutely (``/AppStores/ItemStore``):
# a renamed or removed symbol is then an unresolved link, which DocC warns of.
# Fails when DocC or the compiler warns, and when an article names a symbol in code
# without linking it (scripts/link-symbols.py links them). SwiftPM's note that a
# dependency ships files it does not declare (ZIPFoundation's privacy manifest) is not
# ours to fix, and is left out of the count.
# Usage: scripts/docs.sh [MODULE ...]
#        scripts/docs.sh --prove   renames a linked symbol in a copy of the symbol
#                                  graphs; the Keepsake build must fail on it
set -euo pipefail
cd "$(dirname "$0")/.."
libraries="PropertyList KeyedArchive AppRuntime AppSandbox AppDefaults AppLifecycle AppStores Locking"
articles=(Sources/Keepsake/Keepsake.docc/*.md)
graphs=.build/docs/symbol-graphs
mkdir -p .build/docs
log=.build/docs/build.log
: >"$log"

generate() { # MODULE OUTPUT [docc arguments...]
    local module=$1 output=$2
    shift 2
    swift package --allow-writing-to-directory .build/docs generate-documentation \
        --target "$module" --disable-indexing --transform-for-static-hosting \
        --hosting-base-path "$module" --output-path "$output" "$@" 2>&1 | tee -a "$log"
}

# The public symbol graphs of the libraries and of Keepsake, without the extensions of
# other modules' types (module@Other), whose comments link relative to their own
# module; and the snippets' graph, which the plugin writes afresh before DocC reads it.
collect_graphs() {
    swift package dump-symbol-graph --minimum-access-level public >/dev/null
    local dumped=.build/$(uname -m)-unknown-linux-gnu/symbolgraph
    [ -d "$dumped" ] || dumped=$(dirname "$(find .build -path '*/symbolgraph/Keepsake.symbols.json' | head -1)")
    rm -rf "$graphs"
    mkdir -p "$graphs"
    for module in $libraries Keepsake; do cp "$dumped/$module.symbols.json" "$graphs/"; done
    # The plugin names the folder after the package and the checkout's folder.
    local snippets
    snippets=$(find "$PWD/.build/plugins/Swift-DocC/outputs/.build/symbol-graphs/snippet-symbol-graphs" \
        -name Keepsake-snippets.symbols.json 2>/dev/null | head -1)
    [ -n "$snippets" ] || { echo "docs: no snippets' symbol graph; build a library's docs first" >&2; exit 1; }
    ln -s "$snippets" "$graphs/"
}

if [ "${1:-}" = --prove ]; then
    collect_graphs
    # What a rename of ItemStore.allItems would leave: the graph without that name.
    sed -i 's/"allItems"/"allItemsRenamed"/g' "$graphs/AppStores.symbols.json"
    generate Keepsake .build/docs/renamed-symbol --additional-symbol-graph-dir "$graphs" >/dev/null 2>&1 || true
    if ! grep -q "'allItems' doesn't exist" "$log"; then
        echo "docs --prove: the articles still built with ItemStore.allItems renamed" >&2
        exit 1
    fi
    echo "docs --prove: with ItemStore.allItems renamed, the Keepsake build warned, as it must:"
    grep "'allItems' doesn't exist" "$log" | sort -u | sed 's/^/  /'
    exit 0
fi

modules=${*:-$libraries Keepsake}
for module in $modules; do
    [ "$module" = Keepsake ] || generate "$module" ".build/docs/$module"
done
if [[ " $modules " == *" Keepsake "* ]]; then
    collect_graphs
    generate Keepsake .build/docs/Keepsake --additional-symbol-graph-dir "$graphs"
    { python3 scripts/link-symbols.py "$graphs" --check "${articles[@]}" 2>&1 || true; } |
        sed 's/^link-symbols/warning: link-symbols/' | tee -a "$log"
fi
warnings=$(grep 'warning:' "$log" | grep -v -c "which are unhandled; explicitly declare them" || true)
echo "DocC documentation in .build/docs/: $modules ($warnings warnings)"
if [ "$warnings" -ne 0 ]; then
    grep 'warning:' "$log" | grep -v "which are unhandled; explicitly declare them" | sort -u
    exit 1
fi
