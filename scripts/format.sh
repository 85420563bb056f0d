#!/usr/bin/env bash
# Formats every Swift file of the repository's packages to .swift-format, or with
# --check only reports what differs and exits 1 (what CI runs). Apps/Ports is left out:
# the seeds' ports keep the books' own formatting, since their edits are counted.
# Usage: scripts/format.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Snippets Apps/Package.swift Apps/Sources Apps/Tests
    Benchmarks/Package.swift Benchmarks/Sources Benchmarks/Benchmarks Tools/Package.swift Tools/Sources Tools/Tests
    Cloud/Package.swift Cloud/Sources Cloud/Tests
    Fuzz)
if [ "${1:-}" = "--check" ]; then
    swift format lint --strict --recursive --parallel "${paths[@]}"
    echo "format: every file matches .swift-format"
else
    swift format format --in-place --recursive --parallel "${paths[@]}"
fi
