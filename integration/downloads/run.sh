#!/usr/bin/env bash
# integration/downloads/run.sh - avatar downloads end to end (see run.py), bounded to 5 minutes.
# Run after `make build` (or `swift build`: the debug library and command are used when build/ has none).
# SERVICE_PYTHON: a python with the reference service installed (default build/venv-service/bin/python).
set -u
cd "$(dirname "$0")/../.."
exec timeout 300 python3 integration/downloads/run.py "$@"
