#!/usr/bin/env bash
# Compares the public API of the library's products with the last release (the newest
# tag named like a version, e.g. 0.1.0) and fails on every change that would break a
# user of it: a removed or renamed declaration, a changed signature. Additions pass.
# A breaking change needs a new version and its note in CHANGELOG.md; the tag of that
# version then becomes the baseline.
# Usage: scripts/check-api.sh [BASELINE]   (a tag or commit; default: the newest release tag)
set -euo pipefail
cd "$(dirname "$0")/.."
# Releases only: a pre-release tag (1.0.0-beta) is no baseline.
baseline=${1:-$(git tag --list '[0-9]*.[0-9]*.[0-9]*' --sort=-v:refname | grep -v -- - | head -1 || true)}
if [ -z "$baseline" ]; then
    echo "check-api: skipped: no release tag in this clone (git fetch --tags brings them)"
    exit 0
fi
if ! git rev-parse --verify --quiet "$baseline^{commit}" >/dev/null; then
    echo "check-api: skipped: $baseline is not in this clone's history (a shallow clone?)"
    exit 0
fi
products=(Keepsake PropertyList KeyedArchive AppRuntime AppSandbox AppDefaults AppLifecycle AppStores)
echo "check-api: the public API of ${products[*]} against $baseline"
swift package diagnose-api-breaking-changes "$baseline" --products "${products[@]}"
