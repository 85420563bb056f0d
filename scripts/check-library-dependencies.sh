#!/usr/bin/env bash
# Checks what a user of the library gets: a new package that depends on this
# repository by path and uses only the `Keepsake` product must resolve no networking
# package (SwiftNIO, Hummingbird, AsyncHTTPClient, swift-crypto families) and its
# `swift build` must compile no web server. Its program is the README's first example,
# which must build and run. Prints one line per check; exits 1 on a failure.
# Usage: scripts/check-library-dependencies.sh [SCRATCH-DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work/Sources/Consumer"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "Consumer",
    dependencies: [.package(path: "$root")],
    targets: [
        .executableTarget(
            name: "Consumer",
            dependencies: [.product(name: "Keepsake", package: "$(basename "$root")")]
        )
    ]
)
SWIFT
# The consumer's program is the README's first example, as a newcomer would paste it.
awk '/^```swift$/ { inside = 1; next } inside && /^```$/ { exit } inside' "$root/README.md" \
    >"$work/Sources/Consumer/main.swift"

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
if [ "$("$work/.build/debug/Consumer")" != "Rusty Spork" ]; then
    echo "FAIL: the README's first example does not print Rusty Spork"
    failed=1
else
    echo "ok: the README's first example builds against the Keepsake product and runs"
fi
exit $failed
