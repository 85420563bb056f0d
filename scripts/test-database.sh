#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests, listening on 127.0.0.1 only.
#   scripts/test-database.sh installed # exit 0 when PostgreSQL's server programs are here
#   scripts/test-database.sh start   # prints KEEPSAKE_TEST_DATABASE_URL's value
#   scripts/test-database.sh pause   # stops the server, keeping its data
#   scripts/test-database.sh crash   # kills it as a crash would (immediate stop), keeping its data
#   scripts/test-database.sh freeze  # SIGSTOPs every server process: connections hang, nothing answers
#   scripts/test-database.sh thaw    # SIGCONTs them
#   scripts/test-database.sh resume  # starts it again
#   scripts/test-database.sh stop    # stops it and removes its data
#   scripts/test-database.sh sql [ROLE]  # runs the SQL on standard input as ROLE (default: the
#                                        # cluster's owner); prints each row's values, |-separated
# The cluster lives in $KEEPSAKE_TEST_DATABASE_DIR (default /tmp/keepsake-test-database)
# on $KEEPSAKE_TEST_DATABASE_PORT (default 54329), and belongs to the user keepsake-pg
# (made when run as root, since PostgreSQL refuses to run as root).
set -euo pipefail
data=${KEEPSAKE_TEST_DATABASE_DIR:-/tmp/keepsake-test-database}
port=${KEEPSAKE_TEST_DATABASE_PORT:-54329}
# Debian keeps the server's programs out of PATH, in /usr/lib/postgresql/VERSION/bin.
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$bin" ] || bin=$(dirname "$(readlink -f "$(command -v pg_ctl || echo /nonexistent/pg_ctl)")")
run() {
    if [ "$(id -u)" = 0 ]; then
        id keepsake-pg >/dev/null 2>&1 || useradd --system --no-create-home keepsake-pg
        su keepsake-pg -s /bin/sh -c "$*"
    else
        sh -c "$*"
    fi
}
user=$([ "$(id -u)" = 0 ] && echo keepsake-pg || id -un)
case "${1:-}" in
installed)
    [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ]
    ;;
start)
    run "$bin/pg_ctl -D $data status" >/dev/null 2>&1 && run "$bin/pg_ctl -D $data stop -m fast" >/dev/null
    rm -rf "$data"
    mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown keepsake-pg "$data"
    run "$bin/initdb -D $data -A trust -U $user" >/dev/null
    run "$bin/pg_ctl -D $data -w -l $data/server.log \
        -o \"-p $port -k $data -c listen_addresses=127.0.0.1\" start" >/dev/null
    run "$bin/createdb -h 127.0.0.1 -p $port -U $user keepsake_test"
    echo "postgres://$user@127.0.0.1:$port/keepsake_test"
    ;;
pause)
    run "$bin/pg_ctl -D $data stop -m fast" >/dev/null
    ;;
crash)
    run "$bin/pg_ctl -D $data stop -m immediate" >/dev/null
    ;;
freeze | thaw)
    signal=$([ "$1" = freeze ] && echo STOP || echo CONT)
    # The postmaster's pid heads postmaster.pid; its children are the backends.
    main=$(head -1 "$data/postmaster.pid")
    kill -s "$signal" "$main" $(pgrep -P "$main" || true)
    ;;
resume)
    run "$bin/pg_ctl -D $data -w -l $data/server.log \
        -o \"-p $port -k $data -c listen_addresses=127.0.0.1\" start" >/dev/null
    ;;
stop)
    run "$bin/pg_ctl -D $data stop -m fast" >/dev/null 2>&1 || true
    rm -rf "$data"
    ;;
sql)
    run "$bin/psql -q -X -t -A -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $port -U ${2:-$user} -d keepsake_test"
    ;;
*)
    echo "usage: $0 installed|start|pause|crash|freeze|thaw|resume|stop|sql" >&2
    exit 2
    ;;
esac
