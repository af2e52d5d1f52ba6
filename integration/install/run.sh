#!/usr/bin/env bash
# integration/install/run.sh - `make install` into a temporary prefix, then use it as a user would: compile a C
# program with nothing but `pkg-config --cflags --libs essence2`, run it, and run the installed command
# from another directory (it must find the installed avatars). Ends with "install: N passed, M failed".
set -u
cd "$(dirname "$0")/../.."
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }

prefix=$(mktemp -d /tmp/essence2-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT

if make --no-print-directory install PREFIX="$prefix" >"$prefix/install.log" 2>&1; then
  ok "make install PREFIX=$prefix"
else
  fail "make install"; cat "$prefix/install.log"
  echo "install: $passed passed, $failed failed"; exit 1
fi
for f in lib/libessence2.so include/essence2.h lib/pkgconfig/essence2.pc bin/essence2 \
         share/essence2/avatars/grace-hopper.imx share/essence2/models/face_detection_short_range.tflite \
         share/essence2/models/face_landmark.tflite share/essence2/models/LICENSE.mediapipe; do
  if [ -e "$prefix/$f" ]; then ok "installed $f"; else fail "missing $f"; fi
done

version=$(sed -n 's/^#define ESSENCE2_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' include/essence2.h | paste -sd.)
if [ -f "$prefix/lib/libessence2.so.$version" ] && [ ! -L "$prefix/lib/libessence2.so.$version" ] \
   && [ "$(readlink "$prefix/lib/libessence2.so.1")" = "libessence2.so.$version" ] \
   && [ "$(readlink "$prefix/lib/libessence2.so")" = "libessence2.so.1" ]; then
  ok "installed libessence2.so.$version with the links libessence2.so.1 and libessence2.so"
else
  fail "installed library file and links"; ls -l "$prefix/lib"
fi
if readelf -d "$prefix/lib/libessence2.so.$version" | grep -q 'Library soname: \[libessence2.so.1\]'; then
  ok "the installed library's SONAME is libessence2.so.1"
else
  fail "SONAME of the installed library"
fi

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs essence2) || flags=""
if [ -n "$flags" ]; then ok "pkg-config --cflags --libs essence2: $flags"; else fail "pkg-config knows essence2"; fi
# The program sees only the installed header and library.
if ${CC:-cc} -std=c11 -Wall -Wextra -Werror examples/render_file.c -o "$prefix/render_file" $flags \
     $(pkg-config --cflags --libs sndfile) -Wl,-rpath,"$prefix/lib" 2>"$prefix/cc.log"; then
  ok "cc examples/render_file.c \$(pkg-config --cflags --libs essence2)"
else
  fail "compile against the installed library"; cat "$prefix/cc.log"
fi
if [ -x "$prefix/render_file" ] && (cd "$prefix" && ./render_file "$prefix/share/essence2/avatars/grace-hopper.imx" \
     "$OLDPWD/examples/audio/demo.wav" out.y4m out.wav >run.log 2>&1) && [ -s "$prefix/out.y4m" ]; then
  if ldd "$prefix/render_file" | grep -q "libessence2.so.1 => $prefix/lib/libessence2.so.1"; then
    ok "the program runs on the installed library"
  else
    fail "the program did not load the installed library"; ldd "$prefix/render_file"
  fi
else
  fail "render_file with the installed library"; cat "$prefix/run.log" 2>/dev/null
fi
if (cd "$prefix" && "$prefix/bin/essence2" --version >/dev/null 2>&1); then ok "essence2 --version"; else fail "essence2 --version"; fi
# From a directory without avatars/, the default avatar comes from PREFIX/share/essence2/avatars.
if (cd "$prefix" && "$prefix/bin/essence2" render "$OLDPWD/examples/audio/demo.wav" -o "$prefix/default.y4m" \
     >"$prefix/render.log" 2>&1) && [ -s "$prefix/default.y4m" ]; then
  ok "installed essence2 render finds the installed default avatar"
else
  fail "installed essence2 render with the default avatar"; cat "$prefix/render.log"
fi
# From a directory without models/, avatar build uses PREFIX/share/essence2/models.
if (cd "$prefix" && "$prefix/bin/essence2" avatar build "$OLDPWD/avatars/sources/grace_hopper.jpg" -o "$prefix/me.imx" \
     >"$prefix/build.log" 2>&1) && [ -s "$prefix/me.imx" ]; then
  ok "installed essence2 avatar build finds the installed face models"
else
  fail "installed essence2 avatar build with the installed models"; cat "$prefix/build.log"
fi

echo "install: $passed passed, $failed failed"
[ "$failed" = 0 ]
