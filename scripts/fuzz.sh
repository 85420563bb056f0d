#!/usr/bin/env bash
# Builds one libFuzzer target per property-list reader, one for the lazy binary
# document, one for the keyed unarchiver and one for `keepsake unarchive`'s renderer
# (-sanitize=fuzzer,address), and runs each for RUNS executions (default 1,000,000),
# seeded with the corpus files.
# Usage: scripts/fuzz.sh [RUNS] [binary|lazy|xml|openstep|json|archive|unarchive ...]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
shift || true
targets=${*:-binary xml openstep json}
out=.build-fuzz
mkdir -p "$out"
seeds="$out/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"
if [ -d ../shared/corpus ]; then
    find ../shared/corpus -type f ! -name '*.md' ! -name '*.csv' -exec cp {} "$seeds/" \; 2>/dev/null || true
fi
# The lazy document's inputs start with a key path: its length in one byte, then its
# bytes. Each binary seed goes in with no path and with the path "0".
lazy_seeds="$out/seeds-lazy"
rm -rf "$lazy_seeds" && mkdir -p "$lazy_seeds"
for seed in "$seeds"/*; do
    [ "$(head -c 6 "$seed")" = bplist ] || continue
    { printf '\000'; cat "$seed"; } >"$lazy_seeds/$(basename "$seed").none"
    { printf '\001'; printf '0'; cat "$seed"; } >"$lazy_seeds/$(basename "$seed").first"
done
sources=$(find Sources/PropertyList -name '*.swift')
# Locking, which the readers import, is a module of its own: one object every target links.
mkdir -p "$out/modules"
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name Locking -wmo -emit-module \
    -emit-module-path "$out/modules/Locking.swiftmodule" -c Sources/Locking/*.swift -o "$out/Locking.o"
failed=0
for target in $targets; do
    binary="$out/fuzz-$target"
    extra=""
    if [ "$target" = archive ] || [ "$target" = unarchive ]; then extra=$(find Sources/KeyedArchive -path Sources/KeyedArchive/Files -prune -o -name '*.swift' -print); fi
    swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name PropertyListFuzz -package-name keepsake \
        -I "$out/modules" "$out/Locking.o" $sources $extra Fuzz/FuzzCheck.swift "Fuzz/fuzz-$target.swift" -o "$binary" 2>&1 \
        | { grep -v "Cannot export local symbol" || true; }
    # A fresh corpus folder each run: what an earlier run grew is not this run's start.
    work="$out/work-$target"
    rm -rf "$work"
    mkdir -p "$work" Fuzz/artifacts
    echo "== $target: $runs runs"
    target_seeds=$seeds
    if [ "$target" = lazy ]; then target_seeds=$lazy_seeds; fi
    status=0
    "$binary" "$work" "$target_seeds" -runs="$runs" -max_len=8192 -timeout=5 -rss_limit_mb=2048 \
        -artifact_prefix=Fuzz/artifacts/"$target"- -print_final_stats=1 >"$out/log-$target" 2>&1 || status=$?
    grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)' \
        "$out/log-$target" || true
    if [ "$status" -ne 0 ]; then
        echo "FAIL: $target stopped with status $status: a crash, a leak, a timeout or too much memory" \
            "(the input is in Fuzz/artifacts/$target-*, the log in $out/log-$target)"
        failed=1
    fi
done
exit $failed
