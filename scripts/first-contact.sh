#!/usr/bin/env bash
# A newcomer's first contact, timed: the README's `swift run --package-path Apps
# homepwner` from nothing (a fresh scratch folder, so every package is resolved and
# built again) to the first page served. Fails if that build compiled a database client
# or TLS (PostgresNIO, NIOSSL, BoringSSL, swift-crypto), which only the Database trait
# brings, or if `--database` is then accepted by a build that cannot use it.
# Usage: scripts/first-contact.sh [SCRATCH-DIR]   (default .build-first-contact, emptied)
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${1:-$PWD/.build-first-contact}
rm -rf "$scratch"
containers=$(mktemp -d)
log=$(mktemp)
server=
# Homepwner saves on SIGTERM: its container goes once it has exited.
stop() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$containers" "$log"
}
trap stop EXIT

started=$(date +%s%N)
swift run --package-path Apps --scratch-path "$scratch" homepwner --port 0 --container "$containers" >"$log" 2>&1 &
server=$!
port=
while [ -z "$port" ]; do
    if ! kill -0 "$server" 2>/dev/null; then
        cat "$log"
        echo "FAIL: homepwner ended before serving"
        exit 1
    fi
    port=$(sed -n 's|.*is serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log" | head -1)
    sleep 0.2
done
curl -fsS -o /dev/null "http://127.0.0.1:$port/"
elapsed=$((($(date +%s%N) - started) / 1000000000))
echo "first contact: the first Homepwner page $elapsed s after swift run, from nothing"

failed=0
modules=$(ls "$scratch/debug/Modules" 2>/dev/null || ls "$scratch/debug")
if offenders=$(printf '%s\n' "$modules" | grep -E -i 'PostgresNIO|KeepsakeCloud|NIOSSL|BoringSSL|^Crypto' | sort -u); then
    echo "FAIL: the default build compiled: $(echo $offenders)"
    failed=1
else
    echo "ok: the default build compiled no database client and no TLS"
fi
status=0
# Bounded: a build that accepted --database would serve until stopped.
refusal=$(timeout 30 "$scratch/debug/homepwner" --port 0 --database postgres://u@127.0.0.1:1/db \
    --container "$containers" 2>&1) || status=$?
if [ "$status" -eq 64 ] && printf '%s' "$refusal" | grep -q -- '--traits Database'; then
    echo "ok: --database without the Database trait is refused (64) with the command that builds it"
else
    echo "FAIL: --database without the Database trait gave $status: $refusal"
    failed=1
fi
exit $failed
