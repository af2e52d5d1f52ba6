#!/usr/bin/env bash
# Reference documentation with DocC from the `///` and `/** */` comments: `make docs`, into build/docs.
#
#   build/docs/Essence2Kit, build/docs/Expression2   the Swift products: symbol graphs extracted from the release
#                                                    build's modules (swift-symbolgraph-extract; nothing compiled)
#   build/docs/essence2.h, build/docs/expression2.h  a page per C header: clang -extract-api's symbol graph of the
#                                                    header, its opening comment as the overview
#   build/docs/index.html                            links to the four
# Each is converted by `docc convert` for static hosting: serve build/docs (python3 -m http.server -d build/docs)
# and open http://localhost:8000/. (`swift package generate-documentation` would need the swift-docc-plugin
# package, which the build does not fetch.)
#
# Environment: API_MODULES (default .build/release/Modules), DOCS_OUT (default build/docs).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib/swift_modules.sh

OUT=${DOCS_OUT:-build/docs}
DOCC=$(swift_tool docc)
EXTRACT=$(swift_tool swift-symbolgraph-extract)
CLANG=$(swift_tool clang)

tmp=$(mktemp -d /tmp/essence2-docs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
swift_modules_init "$tmp"
rm -rf "$OUT"
mkdir -p "$OUT"

# convert NAME SYMBOLGRAPH_DIR [CATALOG]: one DocC site in $OUT/NAME, its warnings counted in $tmp/NAME.log.
convert() {
    local name=$1 graphs=$2 catalog=${3:-}
    local id
    id="org.essence2.$(printf '%s' "$name" | tr -c 'A-Za-z0-9\n' '-')"
    # shellcheck disable=SC2086
    if ! "$DOCC" convert $catalog --additional-symbol-graph-dir "$graphs" \
            --fallback-display-name "$name" --fallback-bundle-identifier "$id" \
            --transform-for-static-hosting --hosting-base-path "$name" \
            --output-path "$OUT/$name" >"$tmp/$name.log" 2>&1; then
        cat "$tmp/$name.log" >&2
        echo "make_docs: docc convert failed for $name (above)" >&2
        exit 1
    fi
    echo "docs: $OUT/$name ($(grep -c 'warning:' "$tmp/$name.log" || true) DocC warnings)"
}

for m in $SWIFT_PRODUCTS; do
    mkdir -p "$tmp/graphs/$m"
    "$EXTRACT" -module-name "$m" -I "$MODULES" "${MODULE_MAPS[@]}" -target "$SWIFT_TARGET" \
        -minimum-access-level public -output-dir "$tmp/graphs/$m"
    convert "$m" "$tmp/graphs/$m"
done

for header in include/*.h; do
    name=$(basename "$header")
    stem=${name%.h}
    mkdir -p "$tmp/graphs/$name" "$tmp/catalog/$name/$stem.docc"
    "$CLANG" -extract-api --product-name="$stem" -I. -Iinclude -x c-header "$header" \
        -o "$tmp/graphs/$name/$stem.symbols.json"
    # The root page: the header's opening comment (its synopsis, linking, threads, errors) as the overview.
    python3 - "$header" "$stem" >"$tmp/catalog/$name/$stem.docc/$stem.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
match = re.search(r"/\*\*?(.*?)\*/", text, flags=re.S)
lines = [re.sub(r"^\s*\* ?", "", line) for line in (match.group(1) if match else "").splitlines()]
print(f"# ``{sys.argv[2]}``\n\nThe C interface of `{sys.argv[1]}`.\n\n## Overview\n\n```")
print("\n".join(lines).strip("\n"))
print("```")
PY
    convert "$name" "$tmp/graphs/$name" "$tmp/catalog/$name/$stem.docc"
done

{
    echo '<!doctype html><meta charset="utf-8"><title>essence2 reference</title>'
    echo '<h1>essence2 reference documentation</h1><ul>'
    for m in $SWIFT_PRODUCTS; do
        echo "<li><a href=\"$m/documentation/$(printf '%s' "$m" | tr 'A-Z' 'a-z')/\">$m</a> (Swift)</li>"
    done
    for header in include/*.h; do
        name=$(basename "$header")
        echo "<li><a href=\"$name/documentation/${name%.h}/\">$name</a> (C)</li>"
    done
    echo '</ul>'
} >"$OUT/index.html"
echo "docs: $OUT/index.html (serve with: python3 -m http.server -d $OUT)"
