#!/usr/bin/env bash
# The test command: every test of every package in the repository (the library, Apps/
# with its Database trait, Tools/, Cloud/).
#
# First it starts a throwaway PostgreSQL on 127.0.0.1 when PostgreSQL is installed and
# KEEPSAKE_TEST_DATABASE_URL is not set (scripts/with-test-database.sh; stopped at the
# end), and checks that a package built from the README's dependency lines resolves no
# networking package. Then it builds each package (the CLI and app tests run the built
# binaries) and runs every suite. Tests that need a peer (python3, plistutil, chromium,
# PostgreSQL) skip with their reason; the skips are counted at the end, with each
# step's time.
# Arguments go to each `swift test`, e.g. --filter (which skips the dependency check).
set -euo pipefail
cd "$(dirname "$0")/.."
# Once, under a database of its own (or the one KEEPSAKE_TEST_DATABASE_URL names).
[ -n "${KEEPSAKE_TEST_DATABASE_CHOSEN:-}" ] || exec scripts/with-test-database.sh scripts/test.sh "$@"
started=$SECONDS
scratch=$(mktemp -d)
log=$scratch/test.log
steps=()
trap 'rm -rf "$scratch"' EXIT

# Runs "$@" as one step, its output kept in the log for the skip count.
step() {
    local name=$1 begun=$SECONDS
    shift
    "$@" 2>&1 | tee -a "$log"
    steps+=("$(printf '%5ss  %s' $((SECONDS - begun)) "$name")")
}

# There are no XCTest tests: without this, each run prints "Executed 0 tests".
options=(--disable-xctest)
if [ $# -eq 0 ]; then
    step "a package built from the README's lines" scripts/check-library-dependencies.sh .build/library-consumer
fi
step "build the library" swift build --build-tests
step "test the library" swift test --skip-build "${options[@]}" "$@"
step "build Apps" swift build --package-path Apps --traits Database --build-tests
step "test Apps" swift test --package-path Apps --traits Database --skip-build "${options[@]}" \
    --skip SharedInventoryTests --skip JepsenTests --skip IdleConnectionTests "$@"
# Two instances must show each other's changes within a second: measured with no other
# suite competing for the two cores.
step "test Apps' two instances" swift test --package-path Apps --traits Database --skip-build "${options[@]}" \
    --filter SharedInventoryTests "$@"
# Three replicas under faults, and 1,000 idle connections, load both cores: alone, so
# that they slow no timed test of another suite.
step "test Apps under load" swift test --package-path Apps --traits Database --skip-build "${options[@]}" \
    --filter JepsenTests --filter IdleConnectionTests "$@"
step "build Tools" swift build --package-path Tools --build-tests
step "test Tools" swift test --package-path Tools --skip-build "${options[@]}" "$@"
step "build Cloud" swift build --package-path Cloud --build-tests
step "test Cloud" swift test --package-path Cloud --skip-build "${options[@]}" --skip serverRestartLosesNothing "$@"
# Stops and starts PostgreSQL: alone, so that no other suite meets the database away.
step "test Cloud with PostgreSQL restarted" swift test --package-path Cloud --skip-build "${options[@]}" \
    --filter serverRestartLosesNothing "$@"

echo
echo "test: every step passed in $((SECONDS - started)) s:"
printf '%s\n' "${steps[@]}"
# Swift Testing prints `➜ Suite NAME skipped: "REASON"` for a suite it skips whole (and
# nothing for its tests), `➜ Test NAME skipped: "REASON"` for a test on its own.
for kind in Suite Test; do
    skipped=$(grep -E "^➜ $kind .* skipped" "$log" | sort -u || true)
    if [ -z "$skipped" ]; then
        echo "test: no $(echo "$kind" | tr 'A-Z' 'a-z') skipped"
    else
        count=$(printf '%s\n' "$skipped" | wc -l | tr -d ' ')
        noun=$(echo "$kind" | tr 'A-Z' 'a-z')
        [ "$count" = 1 ] || noun=${noun}s
        echo "test: $count $noun skipped, by reason:"
        printf '%s\n' "$skipped" | sed -E 's/.* skipped(: )?//' | sort | uniq -c | sort -rn
    fi
done
