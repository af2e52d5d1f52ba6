#!/usr/bin/env bash
# The Swift products' public API against the committed baseline (api/): `make api-check` (in `make test`).
#
# swift-api-digester dumps the public API of Essence2Kit and Expression2 from the release build's modules
# (.build/release/Modules: `make` builds them; nothing is compiled here) and diagnoses the differences from
# api/<module>.json. A breaking change (a removed or renamed declaration, a changed type or signature, a lost
# conformance) fails with the digester's own words. An addition is not a break: the check says the baseline is
# behind, and `tools/check_api.sh --update` (make api-baseline) writes the new one, to commit with a release.
# There are no release tags yet, so the baseline is committed rather than dumped from a tag.
#
# Environment: API_MODULES (default .build/release/Modules), SWIFT_API_DIGESTER (default: beside `swift`).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib/swift_modules.sh

update=0
[ "${1:-}" = "--update" ] && update=1
DIGESTER=${SWIFT_API_DIGESTER:-$(swift_tool swift-api-digester)}

tmp=$(mktemp -d /tmp/essence2-api.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
swift_modules_init "$tmp"

status=0
for m in $SWIFT_PRODUCTS; do
    if ! "$DIGESTER" -dump-sdk -module "$m" -o "$tmp/$m.raw.json" -I "$MODULES" "${MODULE_MAPS[@]}" \
            -target "$SWIFT_TARGET" 2>"$tmp/$m.log"; then
        cat "$tmp/$m.log" >&2
        echo "check_api: swift-api-digester could not read $m's module (above)" >&2
        exit 1
    fi
    # The digester's arguments (temporary paths) are not part of the API.
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["ABIRoot"].pop("tool_arguments", None)
json.dump(d, open(sys.argv[2], "w"), indent=1, sort_keys=True); open(sys.argv[2], "a").write("\n")' \
        "$tmp/$m.raw.json" "$tmp/$m.json"
    if [ $update = 1 ]; then
        mkdir -p api
        cp "$tmp/$m.json" "api/$m.json"
        echo "api: wrote api/$m.json"
        continue
    fi
    if [ ! -f "api/$m.json" ]; then
        echo "check_api: no baseline api/$m.json: write it with tools/check_api.sh --update (make api-baseline)" >&2
        exit 1
    fi
    "$DIGESTER" -diagnose-sdk -compiler-style-diags --input-paths "api/$m.json" --input-paths "$tmp/$m.json" \
        >"$tmp/$m.diag" 2>&1 || true
    breaks=$(grep -vE '^\s*$|^/\*.*\*/$' "$tmp/$m.diag" || true)
    if [ -n "$breaks" ]; then
        printf '%s\n' "$breaks" | sed "s/^/$m: /" >&2
        echo "check_api: $m's public API breaks compatibility with api/$m.json (above): keep the old declarations" \
             "(deprecate them), or, for a new major version, update the baseline (make api-baseline) and say so" >&2
        status=1
    elif ! cmp -s "api/$m.json" "$tmp/$m.json"; then
        echo "api: $m: no breaking change; the API has additions, so api/$m.json is behind (make api-baseline to update it)"
    else
        echo "api: $m: the public API equals api/$m.json"
    fi
done
exit $status
