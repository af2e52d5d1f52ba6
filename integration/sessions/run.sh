#!/usr/bin/env bash
# integration/sessions/run.sh - the session contract end to end (see run.py), bounded to 10 minutes.
# Run after `make build`. SERVICE_PYTHON: a python with the reference service installed (default
# build/venv-service/bin/python; without one, run.py uses its own stub of the protocol).
set -u
cd "$(dirname "$0")/../.."
exec timeout 600 python3 integration/sessions/run.py "$@"
