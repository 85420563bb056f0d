#!/usr/bin/env bash
# Instructions one operation takes, counted by callgrind: the InstructionCounts
# benchmark run once with REPEATS=1 and once with REPEATS=0 (the fixture alone).
# Counts stay put when the machine's speed swings, so they compare two commits.
# Swift seeds its hashing per process, which moves dictionary-heavy counts by up to
# 0.4% between runs; SWIFT_DETERMINISTIC_HASHING fixes the seed.
# Usage: scripts/instruction-counts.sh [PACKAGE-ROOT] [OPERATION ITEMS]...
#   e.g. scripts/instruction-counts.sh . read-binary 100000 decode-archive 100000
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
shift || true
[ $# -ge 2 ] || set -- read-binary 100000 decode-archive 1000 decode-archive 100000 encode-archive 100000
swift build -c release --package-path "$root/Benchmarks" --product InstructionCounts >/dev/null
binary=$root/Benchmarks/.build/release/InstructionCounts
count() {
    local out
    out=$(mktemp)
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$out" "$binary" "$@" >/dev/null 2>&1
    local total
    total=$(grep -m1 '^summary:' "$out" | awk '{print $2}')
    rm -f "$out"
    echo "$total"
}
while [ $# -ge 2 ]; do
    with=$(count "$1" "$2" 1)
    without=$(count "$1" "$2" 0)
    printf '%-16s %8s items: %s instructions\n' "$1" "$2" "$(( with - without ))"
    shift 2
done
