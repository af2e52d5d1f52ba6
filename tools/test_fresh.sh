#!/bin/sh
# make test-fresh: the README's two commands as a newcomer meets them. Builds a minimal Debian 12 root with
# mmdebstrap from Debian's packages (what a machine with only the Swift toolchain has: the toolchain's own
# run-time libraries, a C compiler, make and git), bind-mounts only the Swift toolchain (read-only), clones
# this repository inside it, checks that plain `make` says in one line what to run and that `make lib` builds
# libessence2.so with nothing else installed, then runs `make demo` and `make test` exactly as the README
# writes them, as root, and prints each one's time and the Debian packages they installed.
#
#   tools/test_fresh.sh [REPOSITORY]      (default: this checkout; its committed HEAD is what is cloned)
#
# Needs root, mmdebstrap and Debian's mirror. The root lives in a temporary directory under /var/tmp and is
# removed at the end (FRESH_KEEP=1 keeps it); the whole log goes to build/test-fresh.log, the package list to
# build/test-fresh-packages.txt. Exit status 0 only when every step passed.
set -eu
REPO=$(cd "${1:-$(dirname "$0")/..}" && pwd)
SWIFT_DIR=${SWIFT_DIR:-/opt/swift}
SUITE=bookworm
# The Swift toolchain's run-time dependencies on Debian 12 (ldd of swift-frontend, swift-build and clang; the
# linker and C runtime files that swiftc and clang call), a C compiler, make, git and CA certificates: a
# machine "with only the Swift toolchain". Nothing the project itself needs: `make deps` must bring that.
BASE="binutils gcc libc6-dev libstdc++-12-dev libgcc-12-dev libcurl4 libxml2 libedit2 libsqlite3-0 libncurses6 \
libicu72 libpython3.11 libuuid1 libz3-4 tzdata make git ca-certificates"

[ "$(id -u)" = 0 ] || { echo "test-fresh: run as root (it builds a Debian root and chroots into it)" >&2; exit 2; }
command -v mmdebstrap >/dev/null 2>&1 || { echo "test-fresh: mmdebstrap is needed (apt-get install mmdebstrap)" >&2; exit 2; }
[ -x "$SWIFT_DIR/usr/bin/swift" ] || { echo "test-fresh: no Swift toolchain at $SWIFT_DIR (set SWIFT_DIR)" >&2; exit 2; }
mkdir -p "$REPO/build"
LOG="$REPO/build/test-fresh.log"
PKGS="$REPO/build/test-fresh-packages.txt"
ROOT=$(mktemp -d /var/tmp/essence2-fresh.XXXXXX)

cleanup() {
    for m in proc sys dev/shm dev/pts dev opt/swift src; do
        mountpoint -q "$ROOT/$m" 2>/dev/null && umount -l "$ROOT/$m" 2>/dev/null
    done
    if [ "${FRESH_KEEP:-0}" = 1 ]; then echo "test-fresh: root kept in $ROOT"; else rm -rf --one-file-system "$ROOT"; fi
}
trap cleanup EXIT INT TERM

echo "test-fresh: Debian 12 ($SUITE) root in $ROOT; log: $LOG"
start=$(date +%s)
mmdebstrap --variant=minbase --include="$(echo $BASE | tr ' ' ',')" "$SUITE" "$ROOT" \
    "deb http://deb.debian.org/debian $SUITE main" "deb http://deb.debian.org/debian $SUITE-updates main" \
    "deb http://deb.debian.org/debian-security $SUITE-security main" >"$LOG" 2>&1 \
    || { echo "test-fresh: mmdebstrap failed (see $LOG)" >&2; tail -5 "$LOG" >&2; exit 1; }
echo "test-fresh: root built in $(($(date +%s) - start)) s"

mkdir -p "$ROOT/opt/swift" "$ROOT/src" "$ROOT/dev/shm"
mount -t proc proc "$ROOT/proc"
mount -t sysfs sysfs "$ROOT/sys"
mount --bind /dev "$ROOT/dev"
mount -t devpts devpts "$ROOT/dev/pts" -o newinstance,ptmxmode=0666 2>/dev/null || true
mount -t tmpfs tmpfs "$ROOT/dev/shm"
mount --bind "$SWIFT_DIR" "$ROOT/opt/swift" && mount -o remount,bind,ro "$ROOT/opt/swift"
mount --bind "$REPO" "$ROOT/src" && mount -o remount,bind,ro "$ROOT/src"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
# This machine's own network setup, not the project's: the local CA certificates its egress needs and pip's
# configuration, so the root reaches Debian's mirror and PyPI as the machine itself does (a new machine of
# this kind has them too). Proxy variables are passed on below.
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    mkdir -p "$ROOT/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
    chroot "$ROOT" update-ca-certificates >>"$LOG" 2>&1 || { echo "test-fresh: update-ca-certificates failed" >&2; exit 1; }
fi
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$ROOT/etc/pip.conf"
PASS_ENV=""
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY PIP_INDEX_URL PIP_CERT PIP_DEFAULT_TIMEOUT \
         SSL_CERT_FILE REQUESTS_CA_BUNDLE; do
    eval "val=\${$v-}"
    [ -n "$val" ] && PASS_ENV="$PASS_ENV $v=$val"
done

# One step inside the root, timed: "NAME seconds status" goes to $ROOT/times.
cat >"$ROOT/step.sh" <<'EOF'
#!/bin/sh
name=$1; shift
t0=$(date +%s)
sh -c "$*"
status=$?
echo "$name $(($(date +%s) - t0)) $status" >>/times
exit $status
EOF
chmod +x "$ROOT/step.sh"
inside() {
    chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb $PASS_ENV \
        PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/sh -c "cd /root && $1"
}

inside "dpkg-query -W -f '\${Package}\n' | sort" >"$ROOT/before.txt"
inside "git clone -q /src essence2" >>"$LOG" 2>&1 || { echo "test-fresh: git clone failed" >&2; exit 1; }
failed=0
# Plain `make` before `make deps`: one line naming what to run, not a compiler error.
inside "cd essence2 && make" >"$ROOT/make.out" 2>&1 && plain=0 || plain=$?
cat "$ROOT/make.out" >>"$LOG"
if [ "$plain" != 0 ] && grep -q "run: make deps" "$ROOT/make.out" && [ "$(grep -c . "$ROOT/make.out")" -le 2 ]; then
    echo "ok   make without the packages stops with one line: $(grep 'make deps' "$ROOT/make.out" | head -1)"
else
    echo "FAIL make without the packages (status $plain) did not stop with one line naming make deps:"; tail -5 "$ROOT/make.out"
    failed=1
fi
if inside "cd essence2 && /step.sh 'make lib' make lib" >>"$LOG" 2>&1; then
    echo "ok   make lib builds libessence2.so with only the toolchain (no SDL2, GStreamer, libcurl headers)"
else
    echo "FAIL make lib without the packages (see $LOG)"; failed=1
fi
inside "rm -f /times"
# The README's two commands, exactly as written.
for cmd in "make demo" "make test"; do
    echo "test-fresh: $cmd ..."
    if inside "cd essence2 && /step.sh '$cmd' $cmd" >>"$LOG" 2>&1; then
        echo "ok   $cmd ($(awk -v c="$cmd" '$1" "$2 == c { print $3 }' "$ROOT/times") s)"
    else
        echo "FAIL $cmd ($(awk -v c="$cmd" '$1" "$2 == c { print $3 }' "$ROOT/times") s); the end of the log:"
        tail -30 "$LOG" | sed 's/^/     | /'
        failed=1
        break
    fi
done
[ -s "$ROOT/root/essence2/out/demo.mp4" ] && echo "     out/demo.mp4: $(wc -c <"$ROOT/root/essence2/out/demo.mp4") bytes"
inside "dpkg-query -W -f '\${Package}\n' | sort" >"$ROOT/after.txt"
comm -13 "$ROOT/before.txt" "$ROOT/after.txt" >"$PKGS"
echo "     packages installed by the README's commands: $(wc -l <"$PKGS") ($PKGS); asked for by name:"
inside "cd essence2 && make -s -pn deps 2>/dev/null | sed -n 's/^DEB_PKGS := //p'" | fold -s -w 110 | sed 's/^/       /'
echo "test-fresh: total $(($(date +%s) - start)) s"
[ "$failed" = 0 ] && echo "test-fresh: 2 passed, 0 failed" || echo "test-fresh: failed"
exit "$failed"
