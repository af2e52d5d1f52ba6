# integration/cli/checks.sh - what the command's check scripts share; sourced after BIN (the essence2 binary)
# and T (the scratch directory) are set. Each check prints "ok   ..." or "FAIL ..." and is counted.
passed=0; failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -s "$T/err" ] && sed 's/^/     | /' "$T/err" | head -8; }
# check DESC COMMAND...: ok when the one command succeeds.
check() { desc=$1; shift; if "$@"; then ok "$desc"; else bad "$desc"; fi; }
# verdict DESC: ok when the command list just before it succeeded (all of an `A && B && C` chain), else FAIL.
verdict() { if [ $? = 0 ]; then ok "$1"; else bad "$1"; fi; }
# run WANT_STATUS ARGS...: runs essence2, stdout in $T/out, stderr in $T/err; true when the status is WANT.
run() { want=$1; shift; "$BIN" "$@" >"$T/out" 2>"$T/err"; status=$?; [ "$status" = "$want" ]; }
# fails_with STATUS PATTERN DESC ARGS...: a failure with that status and an "essence2...: ..." message matching PATTERN.
fails_with() {
    want=$1; pattern=$2; desc=$3; shift 3
    if run "$want" "$@" && grep -q "^essence2[ :]" "$T/err" && grep -qi -- "$pattern" "$T/err"; then
        ok "$desc (exit $want)"
    else
        bad "$desc: want exit $want and a message matching '$pattern', got exit $status"
    fi
}
