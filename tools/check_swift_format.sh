#!/usr/bin/env bash
# swift-format's rules on the Swift sources, with the committed configuration (.swift-format). `make test-format`.
#
# What is checked: every rule the configuration enables (naming, documentation comments, `///` over `/** */`,
# shorthand types, no force-unwrapped optionals declared implicitly, one case per line, ...). A finding fails
# the check with swift-format's own file:line:column message.
#
# What is not: the pretty printer's layout findings (Indentation, LineLength, AddLines, RemoveLine, Spacing,
# TrailingComma, EndOfLineComment, TrailingWhitespace). The code aligns continuation lines and columns by hand,
# which the pretty printer would re-indent in about 260 files; `swift-format format` is not applied to the tree,
# so the layout stays the authors'. The configuration still records the style (4 spaces, lines of 120) for
# editors and for `swift-format format` on new files.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT_FORMAT=${SWIFT_FORMAT:-}
if [ -z "$SWIFT_FORMAT" ]; then
    if command -v swift-format >/dev/null 2>&1; then SWIFT_FORMAT=swift-format
    else SWIFT_FORMAT="${SWIFT:-swift} format"; fi
fi

LAYOUT='Indentation|LineLength|AddLines|RemoveLine|Spacing|SpacingCharacter|TrailingComma|EndOfLineComment|EndOfLine|TrailingWhitespace'
out=$($SWIFT_FORMAT lint --configuration .swift-format --parallel --recursive Sources Tests fuzz/Sources Package.swift 2>&1) || true
# Anything that is not a finding (a file swift-format could not parse, a bad configuration) fails as well.
other=$(printf '%s\n' "$out" | grep -vE '^[^ ]+\.swift:[0-9]+:[0-9]+: (warning|error|note): \[' | grep -v '^$' || true)
if [ -n "$other" ]; then
    printf '%s\n' "$other" >&2
    echo "check_swift_format: swift-format could not check the sources (above)" >&2
    exit 1
fi
findings=$(printf '%s\n' "$out" | grep -E '^[^ ]+\.swift:[0-9]+:[0-9]+: (warning|error): \[' | grep -vE "\[($LAYOUT)\]" || true)
layout=$(printf '%s\n' "$out" | grep -cE "\[($LAYOUT)\]" || true)
if [ -n "$findings" ]; then
    printf '%s\n' "$findings" >&2
    n=$(printf '%s\n' "$findings" | wc -l)
    echo "check_swift_format: $n finding(s) of the rules .swift-format enables (above); fix them, or, for a rule the" >&2
    echo "  code should not follow, set it to false in .swift-format (docs/building.md, 'Style')" >&2
    exit 1
fi
echo "swift-format: no rule findings in Sources, Tests, fuzz/Sources, Package.swift ($layout layout findings not checked)"
