#!/usr/bin/env bash
# The library's tests (and the keepsake command they run) built and run under a
# sanitizer: address (AddressSanitizer with LeakSanitizer) or thread (ThreadSanitizer).
# Each builds in its own scratch folder. Tests that measure time or memory bounds skip,
# since the instrumentation inflates both (KEEPSAKE_SANITIZER tells them). Errors in
# code that is not ours are suppressed in scripts/asan.supp, each with its reason.
# Leak detection is off: at exit it reports what threads still running hold (the
# defaults' directory watcher) and what Foundation and ZIPFoundation never free, in the
# test process and in every keepsake it runs; sorting ours from theirs is still to do.
# ThreadSanitizer sees our locks because they are pthread mutexes (Locking's `Locked`);
# it would not see Synchronization's Mutex, whose futex word it does not intercept.
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
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --disable-xctest "$@"
