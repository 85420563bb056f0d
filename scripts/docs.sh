#!/usr/bin/env bash
# Builds the DocC documentation of every library into .build/docs/MODULE, ready for
# static hosting; open .build/docs/MODULE/documentation/<module>/index.html through
# any web server (e.g. python3 -m http.server -d .build/docs). `Keepsake` holds the
# articles (Getting Started, Porting, one per layer), whose code is the Snippets/
# programs that `swift build` compiles.
# Fails when DocC or the compiler warns. SwiftPM's note that a dependency ships files
# it does not declare (ZIPFoundation's privacy manifest) is not ours to fix, and is
# left out of the count.
# Usage: scripts/docs.sh [MODULE ...]
set -euo pipefail
cd "$(dirname "$0")/.."
modules=${*:-Keepsake PropertyList KeyedArchive AppRuntime AppSandbox AppDefaults AppLifecycle AppStores Locking}
mkdir -p .build/docs
log=.build/docs/build.log
: >"$log"
for module in $modules; do
    swift package --allow-writing-to-directory .build/docs generate-documentation \
        --target "$module" --disable-indexing --transform-for-static-hosting \
        --hosting-base-path "$module" --output-path ".build/docs/$module" 2>&1 | tee -a "$log"
done
warnings=$(grep 'warning:' "$log" | grep -v -c "which are unhandled; explicitly declare them" || true)
echo "DocC documentation in .build/docs/: $modules ($warnings warnings)"
if [ "$warnings" -ne 0 ]; then
    grep 'warning:' "$log" | grep -v "which are unhandled; explicitly declare them" | sort -u
    exit 1
fi
