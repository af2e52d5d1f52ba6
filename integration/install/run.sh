#!/usr/bin/env bash
# integration/install/run.sh - `make install` into a temporary prefix, then use it as a user would: compile a C
# program with nothing but `pkg-config --cflags --libs essence2` and an rpath, run it, and run the installed
# command from another directory (it must find the installed avatars and models) with the Swift toolchain's
# libraries out of reach. As root it also installs to a system prefix (/usr/local by default, SYSTEM_PREFIX to
# change it), where ldconfig lets a program built without an rpath find the library, and uninstalls again.
# Ends with "install: N passed, M failed".
set -u
cd "$(dirname "$0")/../.."
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
skip() { echo "skip $1"; }

prefix=$(mktemp -d /tmp/essence2-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT

if make --no-print-directory install PREFIX="$prefix" >"$prefix/install.log" 2>&1; then
  ok "make install PREFIX=$prefix"
else
  fail "make install"; cat "$prefix/install.log"
  echo "install: $passed passed, $failed failed"; exit 1
fi
if grep -q "is not in the dynamic loader's search path" "$prefix/install.log" && grep -q -- "-Wl,-rpath,$prefix/lib" "$prefix/install.log"; then
  ok "make install to a private prefix says how programs find the library (rpath, LD_LIBRARY_PATH, ldconfig)"
else
  fail "make install to a private prefix gives no linking advice"; cat "$prefix/install.log"
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
  ok "cc examples/render_file.c \$(pkg-config --cflags --libs essence2) -Wl,-rpath,PREFIX/lib"
else
  fail "compile against the installed library"; cat "$prefix/cc.log"
fi
if [ -x "$prefix/render_file" ] && (cd "$prefix" && ./render_file "$prefix/share/essence2/avatars/grace-hopper.imx" \
     "$OLDPWD/examples/audio/demo.wav" out.y4m out.wav >run.log 2>&1) && [ -s "$prefix/out.y4m" ]; then
  if ldd "$prefix/render_file" | grep -q "libessence2.so.1 => $prefix/lib/libessence2.so.1"; then
    ok "the program runs on the installed library (found by its rpath)"
  else
    fail "the program did not load the installed library"; ldd "$prefix/render_file"
  fi
else
  fail "render_file with the installed library"; cat "$prefix/run.log" 2>/dev/null
fi
# Without an rpath a private prefix needs LD_LIBRARY_PATH, as make install said.
if ${CC:-cc} -std=c11 examples/render_file.c -o "$prefix/render_file_norpath" $flags $(pkg-config --cflags --libs sndfile) \
     2>/dev/null && (cd "$prefix" && LD_LIBRARY_PATH="$prefix/lib" ./render_file_norpath --help >/dev/null 2>&1; [ $? = 2 ]); then
  ok "without an rpath the program runs with LD_LIBRARY_PATH=PREFIX/lib"
else
  fail "a program without an rpath and LD_LIBRARY_PATH"
fi

# The installed command carries its own Swift runtime: run it with the toolchain hidden (an empty directory
# mounted over it in a private mount namespace), which needs root; else check that it does not link to it.
swift_dir=$(dirname "$(dirname "$(command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)")")
if ldd "$prefix/bin/essence2" | grep -qi "libswift\|libFoundation\|libdispatch\|$swift_dir"; then
  fail "the installed command links to the Swift toolchain's libraries"; ldd "$prefix/bin/essence2"
else
  ok "the installed command links no Swift toolchain library"
fi
hide_toolchain() { unshare -m sh -c "mount -t tmpfs none '$swift_dir' && exec \"\$@\"" sh "$@"; }
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && hide_toolchain true 2>/dev/null; then
  if (cd "$prefix" && hide_toolchain "$prefix/bin/essence2" render "$OLDPWD/examples/audio/demo.wav" -o "$prefix/hidden.y4m" \
       >"$prefix/hidden.log" 2>&1) && [ -s "$prefix/hidden.y4m" ]; then
    ok "the installed command renders with the Swift toolchain ($swift_dir) out of reach"
  else
    fail "the installed command without the toolchain"; cat "$prefix/hidden.log"
  fi
else
  skip "running the command with the toolchain hidden needs root and unshare"
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

# The GStreamer element: installed into PREFIX/lib/gstreamer-1.0, it loads the installed library (its rpath) and
# finds the installed avatar by name, with the build tree out of its search paths.
if command -v gst-launch-1.0 >/dev/null 2>&1; then
  if [ -f "$prefix/lib/gstreamer-1.0/libgstessence2.so" ]; then ok "installed lib/gstreamer-1.0/libgstessence2.so"
  else fail "missing lib/gstreamer-1.0/libgstessence2.so"; fi
  if (cd "$prefix" && GST_PLUGIN_PATH="$prefix/lib/gstreamer-1.0" GST_REGISTRY="$prefix/registry.bin" \
        timeout 60 gst-launch-1.0 -q audiotestsrc num-buffers=25 samplesperbuffer=320 ! \
        audio/x-raw,format=S16LE,rate=16000,channels=1 ! essence2avatar avatar=grace-hopper name=a \
        a.video ! fakesink a.audio ! fakesink >gst.log 2>&1) \
     && ldd "$prefix/lib/gstreamer-1.0/libgstessence2.so" | grep -q "libessence2.so.1 => $prefix/lib/\(gstreamer-1.0/../\)\?libessence2.so.1"; then
    ok "the installed element runs a pipeline on the installed library with the installed avatar (avatar=grace-hopper)"
  else
    fail "the installed GStreamer element"; cat "$prefix/gst.log" 2>/dev/null; ldd "$prefix/lib/gstreamer-1.0/libgstessence2.so"
  fi
fi

# A system prefix: ldconfig makes the library findable without an rpath.
system=${SYSTEM_PREFIX:-/usr/local}
if [ "$(id -u)" = 0 ] && [ -w "$system" ] && ! [ -e "$system/lib/libessence2.so.1" ]; then
  if make --no-print-directory install PREFIX="$system" >"$prefix/system.log" 2>&1; then
    ok "make install PREFIX=$system (runs ldconfig)"
    if ${CC:-cc} -std=c11 examples/render_file.c -o "$prefix/render_file_system" $(PKG_CONFIG_PATH="$system/lib/pkgconfig" pkg-config --cflags --libs essence2) \
         $(pkg-config --cflags --libs sndfile) 2>"$prefix/cc2.log" \
       && (cd "$prefix" && ./render_file_system "$system/share/essence2/avatars/grace-hopper.imx" "$OLDPWD/examples/audio/demo.wav" \
             sys.y4m sys.wav >sys.log 2>&1) && [ -s "$prefix/sys.y4m" ]; then
      ok "a program built without an rpath runs on $system/lib (found through ldconfig's cache)"
    else
      fail "program against the system prefix"; cat "$prefix/cc2.log" "$prefix/sys.log" 2>/dev/null
    fi
    if grep -q "is not in the dynamic loader's search path" "$prefix/system.log"; then
      fail "make install to $system printed the private-prefix advice"
    else
      ok "make install to $system gives no linking advice (none needed)"
    fi
  else
    fail "make install PREFIX=$system"; cat "$prefix/system.log"
  fi
  make --no-print-directory uninstall PREFIX="$system" >/dev/null 2>&1
  if [ -e "$system/lib/libessence2.so.1" ] || ldconfig -p | grep -q "libessence2.so.1 .*$system"; then
    fail "make uninstall PREFIX=$system left the library behind"
  else
    ok "make uninstall PREFIX=$system removes it and refreshes the loader's cache"
  fi
else
  skip "installing to the system prefix $system needs root, a writable $system and no essence2 there already"
fi

echo "install: $passed passed, $failed failed"
[ "$failed" = 0 ]
