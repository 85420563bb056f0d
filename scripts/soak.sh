#!/usr/bin/env bash
# The Jepsen-style check of Homepwner, run long: three replicas on one PostgreSQL, a
# client each doing random creates, edits, deletes and settings changes, and a fault
# every 1.5 to 3.5 s (kill -9 and restart, SIGSTOP/SIGCONT, PostgreSQL immediate stop
# and start, dropped LISTEN connections, poison rows). Each kind must happen at least
# 10 times; the checker then reports lost writes, read-your-writes and monotonic-read
# violations, and how long the replicas took to converge.
#   scripts/soak.sh [SECONDS] [SEED]   # default: 1800 s (30 minutes), seed 28
# Uses a throwaway PostgreSQL of its own (scripts/test-database.sh), stopped at the end.
# Prints the run's summary, the lines starting with "jepsen:".
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-1800}
seed=${2:-28}
if ! scripts/test-database.sh installed; then
    echo "soak: PostgreSQL's server programs are not installed (apt-get install postgresql)" >&2
    exit 1
fi
KEEPSAKE_TEST_DATABASE_DIR=$(mktemp -d /tmp/keepsake-soak-database.XXXXXX)
KEEPSAKE_TEST_DATABASE_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export KEEPSAKE_TEST_DATABASE_DIR KEEPSAKE_TEST_DATABASE_PORT
trap 'scripts/test-database.sh stop' EXIT
KEEPSAKE_TEST_DATABASE_URL=$(scripts/test-database.sh start)
export KEEPSAKE_TEST_DATABASE_URL KEEPSAKE_TEST_DATABASE_SCRIPT=$PWD/scripts/test-database.sh
swift build --package-path Apps --traits Database --build-tests
log=$(mktemp /tmp/keepsake-soak.XXXXXX.log)
echo "soak: $seconds s, seed $seed; the whole output goes to $log"
status=0
KEEPSAKE_JEPSEN_SECONDS=$seconds KEEPSAKE_JEPSEN_SEED=$seed KEEPSAKE_JEPSEN_MIN_FAULTS=10 \
    swift test --package-path Apps --traits Database --skip-build --filter JepsenTests >"$log" 2>&1 || status=$?
grep '^jepsen:' "$log" || true
grep -E '^(✔|✘) Test run' "$log" || true
exit $status
