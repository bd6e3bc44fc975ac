#!/bin/sh
# Regenerates man/, completions/ and docs/json/ from the CLI definition (`locker util generate-docs`).
#   scripts/gen-docs.sh           rewrite them in this checkout (then commit the result)
#   scripts/gen-docs.sh --check   exit 1 if the committed files differ from the generated ones
set -eu

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
cd "$root"

case "${1:-}" in
    '')
        cargo run --quiet --locked -- util generate-docs --out-dir "$root"
        ;;
    --check)
        tmp="$(mktemp -d)"
        trap 'rm -rf "$tmp"' EXIT
        cargo run --quiet --locked -- --quiet util generate-docs --out-dir "$tmp"
        status=0
        for dir in man completions docs/json; do
            diff -r "$root/$dir" "$tmp/$dir" >/dev/null || {
                echo "gen-docs: $dir/ is out of date with the CLI:" >&2
                diff -r "$root/$dir" "$tmp/$dir" | head -n 40 >&2 || true
                status=1
            }
        done
        if [ "$status" -ne 0 ]; then
            echo "gen-docs: run scripts/gen-docs.sh and commit man/, completions/ and docs/json/" >&2
        fi
        exit "$status"
        ;;
    -h | --help)
        awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"
        ;;
    *)
        echo "gen-docs: unknown argument: $1 (try --help)" >&2
        exit 2
        ;;
esac
