#!/usr/bin/env bash
# `keepsake extract 50000.name raw` against the toolchain's `plutil -extract` on the
# 100k-record binary plist the property-list benchmarks use: whole processes timed by
# hyperfine (with `keepsake --help`, the cost of a start), their medians, and the
# peak resident memory of each (GNU time's maximum RSS). keepsake
# is built as the README says to install it, with the Swift libraries linked in
# (--static-swift-stdlib), into .build-static.
# Usage: scripts/extract-benchmark.sh [RUNS]   (needs hyperfine and /usr/bin/time)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
swift build -c release --product keepsake --static-swift-stdlib --build-path .build-static >/dev/null
swift build -c release --package-path Benchmarks --product PeerRatios >/dev/null
Benchmarks/.build/release/PeerRatios --write-data "$data"
file=$data/records-100k.bplist
keepsake=.build-static/release/keepsake
echo "file: $(stat -c %s "$file") bytes; value: $($keepsake extract 50000.name raw "$file")"
hyperfine -N --warmup 5 --runs "$runs" --export-json "$data/times.json" \
    "$keepsake --help" \
    "$keepsake extract 50000.name raw $file" \
    "plutil -extract 50000.name raw $file"
python3 -c 'import json, sys
for result in json.load(open(sys.argv[1]))["results"]:
    print("median %.2f ms: %s" % (result["median"] * 1000, result["command"]))' "$data/times.json"
for command in "$keepsake --help" "$keepsake extract 50000.name raw $file" "plutil -extract 50000.name raw $file"; do
    /usr/bin/time -f "peak RSS %M KB: $command" $command >/dev/null
done
