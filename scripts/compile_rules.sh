#!/usr/bin/env bash
# Build a copy of the checkout whose rules (both rulesets) are compiled with mypyc, then run a
# command inside it (the copy's root comes first on sys.path, so its compiled modules win).
#
#   scripts/compile_rules.sh                                        # build only
#   scripts/compile_rules.sh .venv/bin/python -m benchmarks.rules_benchmark
#   TEOTI_EXPECT_COMPILED_RULES=1 scripts/compile_rules.sh .venv/bin/pytest services/games
#
# Uses the project's .venv (mypy ships mypyc; setup.py says what is compiled) and gcc.
# The copy lives in build/compiled-rules (git-ignored); the checkout itself stays pure
# Python, so an edited .py file is never shadowed by a stale compiled one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${TEOTI_VENV:-$root/.venv}"
dest="$root/build/compiled-rules"

rm -rf "$dest"
mkdir -p "$dest"
cp -r "$root/services" "$root/tests" "$root/benchmarks" "$root/proto" "$root/docs" "$root/deploy" \
  "$root/clients" "$root/conftest.py" "$root/pyproject.toml" "$root/setup.py" "$root/README.md" \
  "$dest/"
find "$dest" -name __pycache__ -prune -exec rm -rf {} +
"$venv/bin/python" -m pip install --quiet 'setuptools>=77' wheel
(cd "$dest" && TEOTI_COMPILE_RULES=1 "$venv/bin/python" setup.py --quiet build_ext --inplace -j 2 >build.log 2>&1) \
  || { tail -40 "$dest/build.log"; exit 1; }
echo "compiled rules: $(find "$dest/services" -name '*.so' | wc -l) extension modules in $dest" >&2

if [ "$#" -gt 0 ]; then
  # Relative commands (.venv/bin/...) are meant from the checkout root.
  cmd="$1"; shift
  case "$cmd" in /*) ;; */*) cmd="$root/$cmd" ;; esac
  cd "$dest"
  exec env PYTHONPATH="$dest${PYTHONPATH:+:$PYTHONPATH}" "$cmd" "$@"
fi
