#!/usr/bin/env bash
# The test command: every test of every package in the repository. Builds each package
# first (the CLI and app tests run the built binaries), then runs every suite, then
# checks that a user of the library resolves no networking package. Tests that need a
# peer (python3, plistutil, chromium) skip with a message when it is missing.
# Arguments go to each `swift test` (a --filter matching nothing in a package is fine).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
swift test --skip-build "$@"
swift build --package-path Apps --build-tests
swift test --package-path Apps --skip-build "$@"
if [ $# -eq 0 ]; then
    scripts/check-library-dependencies.sh .build/library-consumer
fi
