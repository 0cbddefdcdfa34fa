#!/usr/bin/env bash
# `make bench`, the exporter part: reach-exporter beside blackbox_exporter at a steady load
# in private namespaces (probe durations, CPU per probe, peak RSS). See bench-exporter.py.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/bench-exporter.py "$@"
