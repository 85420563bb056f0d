#!/usr/bin/env bash
# The cloud stores on PostgreSQL, in one run against one throwaway server on loopback:
# Benchmarks' CloudRatios (change-to-notification latency, key-value writes per
# second, the shared item store against the file backend), then pgbench's one-row
# INSERT transactions with 1 and 4 clients on the same server: the ceiling for
# changes committed one at a time.
# Usage: scripts/cloud-benchmark.sh   (starts and stops scripts/test-database.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product CloudRatios >/dev/null
url=$(scripts/test-database.sh start)
trap 'scripts/test-database.sh stop' EXIT
Benchmarks/.build/release/CloudRatios "$url"

bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
user=${url#postgres://}
user=${user%%@*}
script=$(mktemp)
trap 'rm -f "$script"; scripts/test-database.sh stop' EXIT
echo "INSERT INTO pgbench_kv (key, value) VALUES ('key', '\\x0102030405060708');" >"$script"
run_psql() { "$bin/psql" -q -h 127.0.0.1 -p 54329 -U "$user" -d keepsake_test "$@"; }
pgbench() { "$bin/pgbench" -n -h 127.0.0.1 -p 54329 -U "$user" -f "$script" -T 5 "$@" keepsake_test; }
run_psql -c "CREATE TABLE pgbench_kv (position bigserial PRIMARY KEY, key text, value bytea)"
echo
echo "## pgbench: one-row INSERT transactions, same server"
echo
echo "| clients | transactions/s |"
echo "|--:|--:|"
for clients in 1 4; do
    tps=$(pgbench -c "$clients" -j "$clients" | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    echo "| $clients | ${tps%.*} |"
done
