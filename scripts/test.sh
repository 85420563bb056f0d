#!/usr/bin/env bash
# The test command: builds everything (the CLI tests run the built binary) and runs
# every suite. Tests that need a peer (python3, plistutil) skip with a message when
# it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
swift test --skip-build "$@"
