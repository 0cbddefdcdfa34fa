#!/usr/bin/env bash
# `make bench`, the watch part: reach watch beside ip monitor in a private namespace
# (latency, idle wake-ups and CPU, memory and descriptors after flaps). See bench-watch.py.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/bench-watch.py "$@"
