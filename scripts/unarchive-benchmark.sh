#!/usr/bin/env bash
# `keepsake unarchive --format json` against Foundation's NSKeyedUnarchiver, as whole
# processes, on an archive of ITEMS Homepwner items that Foundation's NSKeyedArchiver
# writes at run time (swift-corelibs Foundation's writer: every key string stored
# once per object). Foundation decodes the items and prints their count; keepsake
# renders the whole object graph as JSON to standard output, which hyperfine discards.
# Prints both medians, their ratio, each side's peak RSS (GNU time) and the
# instructions of the keepsake process (callgrind). keepsake is built as the README
# says to install it (--static-swift-stdlib), into .build-static.
# Writing 100k items takes Foundation minutes: its archiver is quadratic on Linux.
# Usage: scripts/unarchive-benchmark.sh [RUNS] [ITEMS]   (needs hyperfine, /usr/bin/time, valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
items=${2:-100000}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
swift build -c release --product keepsake --static-swift-stdlib --build-path .build-static >/dev/null
swift build -c release --package-path Benchmarks --product FoundationArchives >/dev/null
foundation=Benchmarks/.build/release/FoundationArchives
keepsake=.build-static/release/keepsake
archive=$data/items.archive
$foundation write "$items" "$archive"
echo "archive: $(stat -c %s "$archive") bytes, $($foundation read "$archive") items;" \
    "JSON: $($keepsake unarchive --format json "$archive" | wc -c) bytes"
hyperfine -N --warmup 1 --runs "$runs" --export-json "$data/times.json" \
    "$foundation read $archive" "$keepsake unarchive --format json $archive"
python3 -c 'import json, sys
foundation, keepsake = json.load(open(sys.argv[1]))["results"]
for result in (foundation, keepsake):
    print("median %.1f ms: %s" % (result["median"] * 1000, result["command"]))
print("keepsake is %.2fx faster (medians)" % (foundation["median"] / keepsake["median"]))' "$data/times.json"
for command in "$foundation read $archive" "$keepsake unarchive --format json $archive"; do
    /usr/bin/time -f "peak RSS %M KB: $command" $command >/dev/null
done
valgrind --tool=callgrind --callgrind-out-file="$data/callgrind.out" \
    $keepsake unarchive --format json "$archive" >/dev/null 2>"$data/callgrind.log"
echo "instructions: $(grep -m1 '^summary:' "$data/callgrind.out" | awk '{print $2}'): keepsake unarchive --format json"
