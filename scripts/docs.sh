#!/usr/bin/env bash
# Builds the DocC documentation of every library into .build/docs/MODULE, ready for
# static hosting; open .build/docs/MODULE/documentation/<module>/index.html through
# any web server (e.g. python3 -m http.server -d .build/docs).
# Usage: scripts/docs.sh [MODULE ...]
set -euo pipefail
cd "$(dirname "$0")/.."
modules=${*:-PropertyList KeyedArchive AppRuntime AppSandbox AppDefaults AppLifecycle AppStores}
mkdir -p .build/docs
for module in $modules; do
    swift package --allow-writing-to-directory .build/docs generate-documentation \
        --target "$module" --disable-indexing --transform-for-static-hosting \
        --hosting-base-path "$module" --output-path ".build/docs/$module"
done
echo "DocC documentation in .build/docs/: $modules"
