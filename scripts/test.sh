#!/usr/bin/env bash
# The test command: every test of every package in the repository (the library, Apps/,
# Tools/, Cloud/). First checks that a user of the library resolves no networking package, then
# builds each package (the CLI and app tests run the built binaries) and runs every suite. Tests that need a peer
# (python3, plistutil, chromium) skip with a message when it is missing, and those that
# need PostgreSQL when KEEPSAKE_TEST_DATABASE_URL is not set (scripts/test-database.sh
# starts a throwaway server and prints it).
# Arguments go to each `swift test`, e.g. --filter (which skips the dependency check).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
    scripts/check-library-dependencies.sh .build/library-consumer
fi
swift build --build-tests
swift test --skip-build "$@"
swift build --package-path Apps --build-tests
swift test --package-path Apps --skip-build --skip SharedInventoryTests "$@"
# Two instances must show each other's changes within a second: measured with no other
# suite competing for the two cores.
swift test --package-path Apps --skip-build --filter SharedInventoryTests "$@"
swift build --package-path Tools --build-tests
swift test --package-path Tools --skip-build "$@"
swift build --package-path Cloud --build-tests
swift test --package-path Cloud --skip-build "$@"
