#!/usr/bin/env bash
# What a create costs as the inventory grows, embedded and shared (a throwaway
# PostgreSQL on loopback): CPU per create, ack p50/p99, lag to a second instance, its
# first sync, RSS and container size, from one run of the release binary.
# Usage: scripts/sharing-benchmark.sh [SIZES]   (default 1000,10000,99800)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Apps --traits Database --product homepwner >/dev/null
url=$(scripts/test-database.sh start)
trap 'scripts/test-database.sh stop' EXIT
python3 scripts/sharing-benchmark.py Apps/.build/release/homepwner --database "$url" --sizes "${1:-1000,10000,99800}"
