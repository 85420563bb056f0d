#!/usr/bin/env bash
# Kills a process that saves numbered versions of one file with SIGKILL at random
# moments, ITERATIONS times (default 1000), and checks after every kill that the
# file is one complete version, no older than the last version the writer reported.
#
#   scripts/crash-loop.sh [ITERATIONS]
#   scripts/crash-loop.sh --homepwner [ROUNDS] [--database URL]
#
# With --homepwner, kills the Homepwner server (release build) right after it
# acknowledged a create or delete, ROUNDS times (default 1000), and checks after every
# restart that nothing acknowledged is lost or undone (scripts/homepwner-crash-loop.py).
#
# Builds SandboxTestHelper (debug) with its own scratch path, works in a fresh
# folder under $TMPDIR, prints a summary, exits non-zero on the first bad file.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${1:-}" = "--homepwner" ]; then
    shift
    swift build -c release --package-path "$root/Apps" --traits Database --product homepwner >/dev/null
    exec python3 "$root/scripts/homepwner-crash-loop.py" "$root/Apps/.build/release/homepwner" "$@"
fi
iterations="${1:-1000}"
scratch="${KEEPSAKE_SCRATCH:-$root/.build-crash}"

if ! log=$(swift build --package-path "$root" --scratch-path "$scratch" --product SandboxTestHelper 2>&1); then
    echo "$log" >&2
    exit 1
fi
helper="$scratch/debug/SandboxTestHelper"

work="$(mktemp -d "${TMPDIR:-/tmp}/keepsake-crash.XXXXXX")"
trap 'rm -rf "$work"' EXIT
file="$work/state.bin"

absent=0 advanced=0 same=0 last=0
start=$(date +%s)
for ((i = 1; i <= iterations; i++)); do
    "$helper" crash-writer "$file" >"$work/out" &
    pid=$!
    # 0–149 ms: process start-up takes part of that, so some kills land before
    # the first save and most inside one of the next few saves.
    sleep "$(printf '0.%03d' $((RANDOM % 150)))"
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true

    reported=$(tail -n 1 "$work/out" | awk '{print $2}')
    reported=${reported:-$last}
    if ! result=$("$helper" verify "$file"); then
        echo "FAIL at iteration $i: torn or corrupt file (last reported save: $reported)" >&2
        exit 1
    fi
    case "$result" in
    absent)
        absent=$((absent + 1)) ;;
    "version "*)
        version=${result#version }
        if ((version < reported || version > reported + 1)); then
            echo "FAIL at iteration $i: version $version, writer had reported $reported" >&2
            exit 1
        fi
        if ((version > last)); then advanced=$((advanced + 1)); else same=$((same + 1)); fi
        last=$version ;;
    esac
done
leftovers=$(find "$work" -name '.keepsake-*' | wc -l)
echo "crash-loop: $iterations kills, $iterations intact ($advanced advanced, $same unchanged, $absent before the first save)," \
    "final version $last, $leftovers stray temporary files, $(( $(date +%s) - start )) s"
