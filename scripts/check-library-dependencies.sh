#!/usr/bin/env bash
# Checks what a newcomer gets from the README: a package made of the README's own
# Package.swift (pasted as it is, with this repository cloned beside it as `keepsake`)
# and the README's first example as its program must resolve no networking package
# (SwiftNIO, Hummingbird, AsyncHTTPClient, swift-crypto families), compile no web server
# or app, and print the example's output. Fails when the README's lines drift from what
# works. Prints one line per check; exits 1 on a failure.
# Usage: scripts/check-library-dependencies.sh [SCRATCH-DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${1:-$(mktemp -d)}
mkdir -p "$scratch"
# The README's lines name the clone `../keepsake`, whatever this checkout's folder is.
ln -sfn "$root" "$scratch/keepsake"
work=$scratch/consumer
rm -rf "$work/Sources"
mkdir -p "$work"
# The README's Package.swift: its ```swift block that starts with the tools version.
awk '/^```swift$/ { inside = 1; first = 1; next }
     inside && /^```$/ { if (found) exit; inside = 0; next }
     inside && first { first = 0; if ($0 ~ /^\/\/ swift-tools-version/) found = 1 }
     inside && found' "$root/README.md" >"$work/Package.swift"
if ! grep -q 'swift-tools-version' "$work/Package.swift"; then
    echo "FAIL: the README shows no Package.swift (a \`\`\`swift block starting with // swift-tools-version)"
    exit 1
fi
# Its executable target's name: the first `name:` after `.executableTarget(`.
target=$(awk '/\.executableTarget\(/ { inside = 1 }
    inside && match($0, /name: "[^"]*"/) { print substr($0, RSTART + 7, RLENGTH - 8); exit }' "$work/Package.swift")
mkdir -p "$work/Sources/$target"
# The program is the README's first example, as a newcomer would paste it.
awk '/^```swift$/ { inside = 1; next } inside && /^```$/ { exit } inside' "$root/README.md" \
    >"$work/Sources/$target/main.swift"

failed=0
forbidden='swift-nio|hummingbird|async-http-client|swift-crypto|swift-nio-ssl|swift-nio-http2|swift-nio-extras|swift-certificates|swift-asn1|postgres-nio'
swift package --package-path "$work" resolve >"$work/resolve.log" 2>&1 || { cat "$work/resolve.log"; exit 1; }
resolved=$(swift package --package-path "$work" show-dependencies --format flatlist 2>/dev/null || true)
if [ -z "$resolved" ]; then
    resolved=$(ls "$work/.build/checkouts")
fi
if offenders=$(printf '%s\n' "$resolved" | grep -E -i "$forbidden"); then
    echo "FAIL: a user of the library resolves: $(echo $offenders)"
    failed=1
else
    echo "ok: resolves $(printf '%s\n' "$resolved" | grep -c .) packages, none of them networking: $(echo $resolved)"
fi

swift build --package-path "$work" >"$work/build.log" 2>&1 || { cat "$work/build.log"; echo "FAIL: the consumer does not build"; exit 1; }
built=$(ls "$work/.build/debug/Modules" 2>/dev/null || ls "$work/.build/debug")
if printf '%s\n' "$built" | grep -E -i -q 'hummingbird|^NIO|homepwner|foodtracker'; then
    echo "FAIL: swift build compiled: $(printf '%s\n' "$built" | grep -E -i 'hummingbird|^NIO|homepwner|foodtracker' | tr '\n' ' ')"
    failed=1
else
    echo "ok: swift build compiles no web server and no app"
fi
if [ "$("$work/.build/debug/$target")" != "Rusty Spork" ]; then
    echo "FAIL: the README's first example does not print Rusty Spork"
    failed=1
else
    echo "ok: the README's Package.swift and first example build, run and print Rusty Spork"
fi
exit $failed
