#!/usr/bin/env bash
# Runs a command with a PostgreSQL for the database tests: KEEPSAKE_TEST_DATABASE_URL
# when it is set, else a throwaway server of the command's own (scripts/test-database.sh,
# on a free port, stopped when the command ends), when PostgreSQL is installed. Without
# one the database tests skip, unless KEEPSAKE_REQUIRE_DATABASE=1 (CI sets it) makes that
# a failure.
# Usage: scripts/with-test-database.sh COMMAND [ARGUMENTS...]
set -euo pipefail
cd "$(dirname "$0")/.."

no_database() {
    if [ "${KEEPSAKE_REQUIRE_DATABASE:-}" = 1 ]; then
        echo "test: FAIL: $1, and KEEPSAKE_REQUIRE_DATABASE=1"
        exit 1
    fi
    echo "test: $1: the database tests will skip"
}

export KEEPSAKE_TEST_DATABASE_CHOSEN=1
if [ -n "${KEEPSAKE_TEST_DATABASE_URL:-}" ]; then
    echo "test: PostgreSQL tests use KEEPSAKE_TEST_DATABASE_URL"
elif ! scripts/test-database.sh installed; then
    no_database "PostgreSQL is not installed (apt-get install postgresql)"
else
    # A cluster of this run's own on a free port, so that two runs on one machine never
    # stop each other's. Not inside a folder private to root: as root, the server runs
    # as keepsake-pg.
    KEEPSAKE_TEST_DATABASE_DIR=$(mktemp -d /tmp/keepsake-test-database.XXXXXX)
    KEEPSAKE_TEST_DATABASE_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    export KEEPSAKE_TEST_DATABASE_DIR KEEPSAKE_TEST_DATABASE_PORT
    started_log=$(mktemp)
    if KEEPSAKE_TEST_DATABASE_URL=$(scripts/test-database.sh start 2>"$started_log"); then
        export KEEPSAKE_TEST_DATABASE_URL KEEPSAKE_TEST_DATABASE_SCRIPT=$PWD/scripts/test-database.sh
        trap 'scripts/test-database.sh stop' EXIT
        echo "test: a throwaway PostgreSQL for the database tests at $KEEPSAKE_TEST_DATABASE_URL"
    else
        sed 's/^/    /' "$started_log"
        no_database "PostgreSQL is installed but did not start"
    fi
    rm -f "$started_log"
fi
"$@"
