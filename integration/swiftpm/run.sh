#!/bin/sh
# Essence2Kit as another Swift package uses it:
#  1. examples/swift (depends on this repository by path) builds, and `swift run RenderFrames` renders
#     examples/audio/demo.wav to frames with `import Essence2Kit` alone;
#  2. a package that depends on essence2 by URL and version (a clone of this repository's HEAD, tagged with the
#     header's version) builds against the Essence2Kit product: no unsafe flags on its path (SwiftPM refuses
#     unsafe flags in versioned dependencies).
#
#   integration/swiftpm/run.sh
set -u
cd "$(dirname "$0")/../.." || exit 2
SWIFT=${SWIFT:-swift}
T=$(mktemp -d "${TMPDIR:-/tmp}/essence2-swiftpm-test.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
passed=0; failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -s "$T/log" ] && tail -15 "$T/log" | sed 's/^/     | /'; }

echo "Swift package checks"
mkdir -p "$T/frames"
if (cd examples/swift && "$SWIFT" build >"$T/log" 2>&1 && "$SWIFT" run RenderFrames ../audio/demo.wav \
        ../../avatars/grace-hopper.imx "$T/frames" >>"$T/log" 2>&1); then
    count=$(ls "$T/frames" | grep -c '^frame_[0-9]*\.ppm$')
    if [ "$count" -ge 214 ] && [ "$(head -c 2 "$T/frames/frame_00000.ppm")" = P6 ]; then
        ok "examples/swift: swift run RenderFrames wrote $count frames with Essence2Kit"
    else
        bad "examples/swift wrote $count frames"
    fi
else
    bad "examples/swift does not build or run"
fi

version=$(sed -n 's/^#define ESSENCE2_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' include/essence2.h | paste -sd.)
git clone -q . "$T/essence2" && git -C "$T/essence2" tag "$version"
mkdir -p "$T/app/Sources/App"
cat >"$T/app/Package.swift" <<PACKAGE
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "app",
    dependencies: [.package(url: "file://$T/essence2", from: "$version")],
    targets: [.executableTarget(name: "App", dependencies: [.product(name: "Essence2Kit", package: "essence2")])]
)
PACKAGE
printf 'import Essence2Kit\nprint("Essence2Kit", Essence2Engine.framesPerSecond)\n' >"$T/app/Sources/App/main.swift"
if (cd "$T/app" && "$SWIFT" build >"$T/log" 2>&1 && .build/debug/App | grep -q "Essence2Kit 25"); then
    ok "a package depending on essence2 from: \"$version\" (by URL) builds and runs with the Essence2Kit product"
else
    bad "a package depending on essence2 by version"
fi

echo "integration/swiftpm: $passed passed, $failed failed"
[ "$failed" = 0 ]
