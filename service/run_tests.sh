#!/bin/sh
# Tests of the reference service (make test-service): creates or refreshes build/venv-service, then runs pytest.
# `run_tests.sh --load [OPTIONS]` runs the full load test instead (make test-load); `run_tests.sh --venv` only
# creates or refreshes the venv (what the end-to-end tests need of the service: make service-venv).
# Quick when the venv is up to date: a stamp keyed on pyproject.toml's sha256 says so. Exit status: pytest's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
venv="$root/build/venv-service"
stamp="$venv/.ready"
key=$(sha256sum "$here/pyproject.toml" | cut -d' ' -f1)

if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$key" ]; then
    echo "setting up $venv" >&2
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip >&2
    "$venv/bin/python" -m pip install -q -e "$here[test]" >&2
    echo "$key" > "$stamp"
fi

[ "${1:-}" = "--venv" ] && exit 0
cd "$here"
set +e
if [ "${1:-}" = "--load" ]; then  # make test-load: the full load test (tests/loadtest.py), its options after --load
    shift
    "$venv/bin/python" tests/loadtest.py "$@"
    exit $?
fi
"$venv/bin/python" -m pytest "$@"
exit $?
