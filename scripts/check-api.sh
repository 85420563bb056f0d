#!/usr/bin/env bash
# Compares the public API of the library's products with the last release and fails on
# every change that would break a user of it: a removed or renamed declaration, a
# changed signature. Additions pass.
#
# The baseline is the release's commit, named in API/BASELINE: committed, so every clone
# with the history has it (a release tag, which clones often lack, is not needed).
# Breaking changes made on purpose since then are listed in API/BREAKAGES, each line the
# exact message of one after a comment giving its reason, and each has its note in
# CHANGELOG.md. A release names its commit in API/BASELINE and empties API/BREAKAGES.
#
# Usage: scripts/check-api.sh           compare HEAD's working tree with the baseline
#        scripts/check-api.sh --prove   remove a public declaration in a scratch copy
#                                       of HEAD and show the comparison fail on it
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
baseline=$(awk 'NF && $1 !~ /^#/ { print $1; exit }' API/BASELINE)
if ! git rev-parse --verify --quiet "$baseline^{commit}" >/dev/null; then
    echo "check-api: the baseline $baseline (API/BASELINE) is not in this clone's history;" \
        "a shallow clone needs git fetch --unshallow" >&2
    exit 1
fi
products=(Keepsake PropertyList KeyedArchive AppRuntime AppSandbox AppDefaults AppLifecycle AppStores)
# The baseline's API, built once and kept: the proof compares against it too.
baseline_dir=$root/.build/api-baseline/$baseline

# The digester reads only the messages: the file's comments, which give the reasons, stay out.
allowed=$(mktemp)
trap 'rm -f "$allowed"' EXIT
grep -v -e '^#' -e '^[[:space:]]*$' API/BREAKAGES >"$allowed" || true

# Runs the comparison in the package at $1 for the products after it; prints its report.
compare() {
    local package=$1
    shift
    (cd "$package" && swift package diagnose-api-breaking-changes "$baseline" --products "$@" \
        --baseline-dir "$baseline_dir" --breakage-allowlist-path "$allowed")
}

if [ "${1:-}" != "--prove" ]; then
    echo "check-api: the public API of ${products[*]} against $baseline (API/BASELINE)"
    compare "$root" "${products[@]}"
    exit 0
fi

# The proof: ImageKind.mimeType, public since 0.1.0 and used by no other module of the
# package, removed from a copy of HEAD.
scratch_parent=$(mktemp -d)
scratch=$scratch_parent/copy
trap 'git worktree remove --force "$scratch" 2>/dev/null || true; rm -rf "$scratch_parent" "$allowed"' EXIT
# A worktree: the comparison resolves the baseline in the copy's history.
git worktree add --quiet --detach "$scratch" HEAD
python3 - "$scratch/Sources/AppStores/BlobStore.swift" <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path).read()
cut = re.sub(r"\n    /// The media type to serve it as\.\n    public var mimeType: String \{.*?\n    \}\n", "\n", text,
             count=1, flags=re.S)
if cut == text:
    sys.exit("check-api --prove: ImageKind.mimeType is not where the proof expects it")
open(path, "w").write(cut)
EOF
echo "check-api --prove: ImageKind.mimeType removed in a copy of HEAD; the check must fail on it"
if report=$(compare "$scratch" AppStores 2>&1); then
    echo "$report"
    echo "check-api --prove: the check passed with a public declaration removed" >&2
    exit 1
fi
if ! grep -q "mimeType" <<<"$report"; then
    echo "$report"
    echo "check-api --prove: the check failed, but not on the removed declaration" >&2
    exit 1
fi
grep "mimeType" <<<"$report"
echo "check-api --prove: the removed declaration failed the check, as it must"
