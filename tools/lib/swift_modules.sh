# Sourced by tools/check_api.sh and tools/make_docs.sh: what reading the release build's Swift modules needs
# (swift-api-digester, swift-symbolgraph-extract), with nothing compiled.
#   swift_modules_init DIR   sets MODULES (API_MODULES, default .build/release/Modules), fails when a product's
#                            module is missing, and fills MODULE_MAPS with -Xcc -fmodule-map-file=... for the C
#                            modules the Swift modules import, written into DIR from the sources (SwiftPM's
#                            generated module maps hold absolute paths of the tree that built them)
#   swift_tool NAME          the toolchain's NAME: on PATH, or beside `swift`
#   SWIFT_TARGET             the target triple the modules were built for
SWIFT_PRODUCTS="Essence2Kit Expression2"
SWIFT_TARGET="$(uname -m)-unknown-linux-gnu"

swift_tool() {
    if command -v "$1" >/dev/null 2>&1; then command -v "$1"
    else echo "$(dirname "$(readlink -f "$(command -v "${SWIFT:-swift}")")")/$1"; fi
}

swift_modules_init() {
    MODULES=${API_MODULES:-.build/release/Modules}
    local m c
    for m in $SWIFT_PRODUCTS; do
        if [ ! -f "$MODULES/$m.swiftmodule" ]; then
            echo "$(basename "$0"): $MODULES/$m.swiftmodule is missing: build first (make build)" >&2
            exit 1
        fi
    done
    MODULE_MAPS=()
    for c in CEssence2Weights CCurlLoader CCharacterWeights; do
        printf 'module %s {\n    umbrella "%s"\n    export *\n}\n' "$c" "$PWD/Sources/$c/include" >"$1/$c.modulemap"
        MODULE_MAPS+=(-Xcc "-fmodule-map-file=$1/$c.modulemap")
    done
    MODULE_MAPS+=(-Xcc "-fmodule-map-file=$PWD/Sources/Essence2/include/module.modulemap")
}
