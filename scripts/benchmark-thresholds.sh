#!/usr/bin/env bash
# Builds the whole Benchmarks package, so that no benchmark rots unbuilt, then runs the
# fast ThresholdBenchmarks against the allocation counts committed in
# Benchmarks/Thresholds/. Fails on a count worse or better than committed (beyond the
# benchmark's tolerance): after a change that moves one on purpose, record the new counts
# with
#   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark thresholds update --target ThresholdBenchmarks
# and commit them. With `--prove`, it also checks the check: every committed count
# lowered by 10% must fail it.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"

swift build -c release

# The harness skips a benchmark whose thresholds file is missing, silently: each must have one.
declared=$(grep -c '^    Benchmark("' Benchmarks/ThresholdBenchmarks/ThresholdBenchmarks.swift)
recorded=$(ls Thresholds/ThresholdBenchmarks.*.p90.json | wc -l)
if [ "$declared" != "$recorded" ]; then
    echo "benchmark-thresholds: $declared benchmarks but $recorded thresholds files in Benchmarks/Thresholds" >&2
    exit 1
fi

check() {
    local status=0
    swift package --allow-writing-to-package-directory benchmark thresholds check \
        --target ThresholdBenchmarks --no-progress "$@" >"$log" 2>&1 || status=$?
    grep -E 'EQUAL|WORSE|BETTER|Could not' "$log" || true
    return $status
}
log=$(mktemp)
lowered=$(mktemp -d)
trap 'rm -rf "$log" "$lowered"' EXIT

if ! check; then
    cat "$log" >&2
    echo "benchmark-thresholds: allocation counts differ from Benchmarks/Thresholds (see above)" >&2
    exit 1
fi
echo "benchmark-thresholds: $recorded benchmarks within their thresholds"

if [ "${1:-}" = "--prove" ]; then
    python3 - "$lowered" <<'PY'
import glob, json, os, sys
for path in glob.glob("Thresholds/ThresholdBenchmarks.*.p90.json"):
    counts = json.load(open(path))
    lowered = {metric: int(value * 0.9) for metric, value in counts.items()}
    json.dump(lowered, open(os.path.join(sys.argv[1], os.path.basename(path)), "w"))
PY
    if check --path "$lowered"; then
        echo "benchmark-thresholds: counts lowered by 10% passed the check, which cannot catch a regression" >&2
        exit 1
    fi
    if ! grep -q "Deviations worse than threshold" "$log"; then
        cat "$log" >&2
        echo "benchmark-thresholds: the lowered counts failed the check, but not as a regression" >&2
        exit 1
    fi
    echo "benchmark-thresholds: counts lowered by 10% fail the check, as they must"
fi
