#!/usr/bin/env bash
# The library's tests (and the keepsake command they run) built and run under a
# sanitizer: address (AddressSanitizer with LeakSanitizer) or thread (ThreadSanitizer).
# Each builds in its own scratch folder. Tests that measure time or memory bounds skip,
# since the instrumentation inflates both (KEEPSAKE_SANITIZER tells them). Errors in
# code that is not ours are suppressed in scripts/asan.supp, each with its reason.
# Leak detection is off: at exit it reports what threads still running hold (the
# defaults' directory watcher) and what Foundation and ZIPFoundation never free, in the
# test process and in every keepsake it runs; sorting ours from theirs is still to do.
# ThreadSanitizer runs only where it can see Synchronization's Mutex, which guards all of
# our shared state: in this toolchain the Mutex locks inside the uninstrumented
# Synchronization library, so TSan sees no ordering between two threads that take it
# and reports every access it guards. A probe (four threads appending under one Mutex,
# which NSLock passes) tells which toolchain this is; on one that fails the probe the
# stage says so and skips, and runs by itself once a toolchain passes it.
# Usage: scripts/sanitize.sh address|thread [swift test arguments, e.g. --filter X]
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizer=${1:?usage: scripts/sanitize.sh address|thread}
shift
scratch=.build-$sanitizer
export KEEPSAKE_SANITIZER=$sanitizer
export ASAN_OPTIONS=detect_leaks=0:suppressions=$PWD/scripts/asan.supp
# A report fails the test process: a data race is a failure, not a warning.
export TSAN_OPTIONS=halt_on_error=1
if [ "$sanitizer" = thread ]; then
    probe=$(mktemp -d)
    trap 'rm -rf "$probe"' EXIT
    cat >"$probe/main.swift" <<'SWIFT'
import Foundation
import Synchronization
let shared = Mutex([Int]())
let threads = (0..<4).map { index in
    Thread { for value in 0..<1_000 { shared.withLock { $0.append(index * 1_000 + value) } } }
}
threads.forEach { $0.start() }
while shared.withLock({ $0.count }) < 4_000 { usleep(1_000) }
SWIFT
    swiftc -sanitize=thread "$probe/main.swift" -o "$probe/probe"
    if ! "$probe/probe" 2>"$probe/report"; then
        echo "sanitize: skipped: ThreadSanitizer reports a race on four threads that take one Synchronization.Mutex correctly:"
        grep -m1 -A3 "WARNING: ThreadSanitizer" "$probe/report" || true
        echo "sanitize: it cannot see that lock in this toolchain, and every report on our code would be this one"
        exit 0
    fi
fi
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --disable-xctest "$@"
