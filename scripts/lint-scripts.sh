#!/usr/bin/env bash
# make lint: the repository's shell and Python programs.
#   Shell: every file whose first line starts sh or bash (scripts/*.sh, .ci/run, ...)
#   through ShellCheck; a check that does not apply is disabled on its line, with the reason.
#   Python: every *.py file, the tests' helpers too, through `python3 -m py_compile`, a
#   syntax check. The bytecode goes to a temporary directory (PYTHONPYCACHEPREFIX), so no
#   __pycache__ lands in the tree.
# Not looked at: .git, .build* (build products), Fuzz/corpus (fuzzer inputs), debhelper's
# work in debian/ (its generated maintainer scripts).
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(
    find . \( -name .git -o -name '.build*' -o -path ./Fuzz/corpus -o -path ./debian/tmp -o -path ./debian/.debhelper \
        -o -path ./debian/reach -o -path ./debian/reach-exporter \) -prune -o -type f -print |
        sed 's|^\./||' | LC_ALL=C sort
)
mapfile -t shell < <(
    LC_ALL=C awk 'FNR == 1 { if ($0 ~ /^#!.*(\/|env[ \t]+)(ba)?sh([ \t]|$)/) print FILENAME; nextfile }' "${files[@]}"
)
mapfile -t python < <(printf '%s\n' "${files[@]}" | grep '\.py$' || true)

echo "shellcheck: ${#shell[@]} scripts"
shellcheck "${shell[@]}"

echo "py_compile: ${#python[@]} files"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
PYTHONPYCACHEPREFIX="$cache" python3 -m py_compile "${python[@]}"
