#!/usr/bin/env bash
# Writes the hostile archives of Tests/KeepsakeCLITests/Support/HostileArchives.swift at
# full size (chains of 20,000 and 100,000 links, fan-outs of 20 and 40 levels, cycles,
# lying class tables) into FOLDER, then runs `KEEPSAKE unarchive` on each in every
# output format under /usr/bin/time and reports exit status, wall and CPU time and peak
# memory. Fails when a run ends in a signal or any status but 0 or 1, or takes 2 s or
# more of wall-clock time or 100 MB or more of memory.
# Usage: scripts/hostile-inputs.sh [FOLDER] [KEEPSAKE]
#   FOLDER defaults to .build-hostile, KEEPSAKE to .build/release/keepsake if built,
#   else .build/debug/keepsake.
set -euo pipefail
cd "$(dirname "$0")/.."
folder=${1:-.build-hostile}
keepsake=${2:-}
if [ -z "$keepsake" ]; then
    keepsake=.build/debug/keepsake
    if [ -x .build/release/keepsake ]; then keepsake=.build/release/keepsake; fi
fi
mkdir -p "$folder"
generator="$folder/hostile-inputs"
swiftc -O -module-name HostileInputs -package-name keepsake $(find Sources/PropertyList -name '*.swift') \
    Tests/KeepsakeCLITests/Support/HostileArchives.swift scripts/hostile-inputs.swift -o "$generator"
"$generator" "$folder"
echo "$keepsake"
printf '%-36s %-6s %6s %8s %8s %9s\n' case format status wall_s cpu_s max_rss_kb
failed=0
for file in "$folder"/*.archive; do
    name=$(basename "$file" .archive)
    for format in text json xml1; do
        report=$(/usr/bin/time -f '%x %e %U %S %M' "$keepsake" unarchive "$file" --format "$format" 2>&1 >/dev/null \
            || true)
        read -r status wall user sys rss <<<"$(tail -n 1 <<<"$report")"
        cpu=$(awk "BEGIN { print $user + $sys }")
        verdict=""
        if grep -q 'terminated by signal' <<<"$report"; then verdict="  <- signal"; fi
        if [ "$status" != 0 ] && [ "$status" != 1 ]; then verdict="$verdict  <- not 0 or 1"; fi
        if awk "BEGIN { exit !($wall >= 2) }"; then verdict="$verdict  <- 2 s or more"; fi
        if [ "$rss" -ge 100000 ]; then verdict="$verdict  <- 100 MB or more"; fi
        [ -n "$verdict" ] && failed=1
        printf '%-36s %-6s %6s %8s %8s %9s%s\n' "$name" "$format" "$status" "$wall" "$cpu" "$rss" "$verdict"
    done
done
exit $failed
