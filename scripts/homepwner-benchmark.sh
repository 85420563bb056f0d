#!/usr/bin/env bash
# Homepwner's acknowledged creates per second with 1 and 50 clients, and the p50/p99 of
# an acknowledgement, embedded (its container only) and shared (a throwaway PostgreSQL on
# loopback), from one run of the release binary.
# Usage: scripts/homepwner-benchmark.sh [SECONDS]   (starts and stops scripts/test-database.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
swift build -c release --package-path Apps --traits Database --product homepwner >/dev/null
binary=Apps/.build/release/homepwner
url=$(scripts/test-database.sh start)
trap 'scripts/test-database.sh stop' EXIT
echo "| mode | clients | creates/s | ack p50 | ack p99 | creates |"
echo "|:--|--:|--:|--:|--:|--:|"
python3 scripts/homepwner-benchmark.py "$binary" --seconds "$seconds"
python3 scripts/homepwner-benchmark.py "$binary" --seconds "$seconds" --database "$url"
