#!/usr/bin/env bash
# Full-size check of `keepsake sandbox backup|restore` against a ZIP bomb.
#
#   scripts/zip-bomb.sh            # uses $(swift build --show-bin-path)/keepsake
#   KEEPSAKE=path/to/keepsake scripts/zip-bomb.sh
#   ZIP_BOMB_ALLOWED=1 scripts/zip-bomb.sh   # also restore the 1 GiB entry with the limits raised (writes 1 GiB)
#
# 1. A 1 GiB file of zeros deflated to ~1 MiB: restore must be refused (ratio limit),
#    the container unchanged, peak RSS under 100 MiB.
# 2. The same bomb declaring a 1000-byte entry in its headers: only streaming can
#    catch it; same checks.
# 3. Backup of a container holding a 1 GiB file: peak RSS under 100 MiB.
# Peak RSS is `Maximum resident set size` from /usr/bin/time -v.
set -euo pipefail
cd "$(dirname "$0")/.."

limit_kib=$((100 * 1024))
keepsake=${KEEPSAKE:-$(swift build --show-bin-path)/keepsake}
[ -x "$keepsake" ] || { echo "zip-bomb: $keepsake not built (swift build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "zip-bomb: /usr/bin/time (GNU time) is needed" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/keepsake-zip-bomb.XXXXXX")
trap 'rm -rf "$work"' EXIT
app=com.example.Bomb
root="$work/containers/$app"
mkdir -p "$root/Documents" "$root/Library/Preferences"
echo "keep me" >"$root/Documents/keep.txt"
echo "<plist/>" >"$root/Library/Preferences/$app.plist"

python3 - "$work/bomb.zip" "$work/liar.zip" <<'EOF'
import struct, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    with z.open("Documents/zeros.bin", "w", force_zip64=True) as f:
        chunk = bytes(1 << 20)
        for _ in range(1024):
            f.write(chunk)
# The liar: the same archive, its local header and central directory declaring 1000 bytes.
data = bytearray(open(sys.argv[1], "rb").read())
zip64 = 0xFFFFFFFF
local = data.find(b"PK\x03\x04")
central = data.find(b"PK\x01\x02")
for offset, extra in ((local + 22, local + 30 + struct.unpack_from("<H", data, local + 26)[0]),
                      (central + 24, central + 46 + struct.unpack_from("<H", data, central + 28)[0])):
    if struct.unpack_from("<I", data, offset)[0] == zip64:
        # ZIP64 extra field: header id 1, size, then the uncompressed size first.
        assert struct.unpack_from("<H", data, extra)[0] == 1
        struct.pack_into("<Q", data, extra + 4, 1000)
    else:
        struct.pack_into("<I", data, offset, 1000)
open(sys.argv[2], "wb").write(data)
EOF

state() { (cd "$root" && find . -printf '%p %y %m %s\n' | sort && find . -type f -exec sha256sum {} + | sort); }
before=$(state)
failed=0

# measure NAME EXPECTED-STATUS COMMAND...: runs under GNU time, prints the figures.
measure() {
    local name=$1 expected=$2
    shift 2
    local status=0
    /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" || status=$?
    local rss seconds
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
    seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
    printf '%-34s exit %d  peak RSS %6.1f MiB  wall %s\n' "$name" "$status" "$(echo "$rss / 1024" | bc -l)" "$seconds"
    sed 's/^/    /' "$work/err.txt" | head -3
    if [ "$status" != "$expected" ]; then echo "    FAIL: expected exit $expected" >&2; failed=1; fi
    if [ "$rss" -ge "$limit_kib" ]; then echo "    FAIL: peak RSS not under 100 MiB" >&2; failed=1; fi
}

ls -l "$work/bomb.zip" | awk '{printf "bomb: %d bytes compressed, 1073741824 declared\n", $5}'
measure "restore 1 GiB bomb" 1 "$keepsake" sandbox restore "$app" --containers "$work/containers" "$work/bomb.zip"
measure "restore bomb declaring 1000 bytes" 1 \
    "$keepsake" sandbox restore "$app" --containers "$work/containers" "$work/liar.zip"
if [ "$(state)" != "$before" ]; then echo "FAIL: the container changed" >&2; failed=1; else echo "container unchanged"; fi

if [ "${ZIP_BOMB_ALLOWED:-0}" = 1 ]; then
    measure "restore 1 GiB, limits raised" 0 "$keepsake" sandbox restore "$app" --containers "$work/containers" \
        --max-ratio 5000 "$work/bomb.zip"
    rm -f "$root/Documents/zeros.bin"
fi

truncate -s 1G "$root/Documents/big.bin"
measure "backup of a 1 GiB container" 0 \
    "$keepsake" sandbox backup "$app" --containers "$work/containers" -o "$work/backup.zip"
ls -l "$work/backup.zip" | awk '{printf "backup: %d bytes\n", $5}'

exit $failed
