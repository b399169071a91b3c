#!/usr/bin/env bash
# Refresh constraints.txt: the exact version of every package the server and its dev
# extra install (issue 34, "Reproducible installs"), resolved by pip-tools from
# pyproject.toml. .ci/run, the Dockerfile and the README's install command install with
# `-c constraints.txt`, so every install gets these versions. Run it after changing a
# dependency in pyproject.toml, or to take newer releases; review the diff, run .ci/run,
# commit both. The client library (clients/python) keeps its loose pins: it is not here.
set -euo pipefail
cd "$(dirname "$0")/.."

PIP_TOOLS_VERSION=7.7.0
if command -v python3.11 >/dev/null 2>&1; then PY=python3.11; else PY=python3; fi
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
"$PY" -m venv "$tools"
"$tools/bin/pip" install --quiet "pip-tools==$PIP_TOOLS_VERSION"
# --upgrade: resolve afresh, not from the current file; no index URLs in the output
# (they are this machine's, not the project's).
CUSTOM_COMPILE_COMMAND=scripts/lock_dependencies.sh "$tools/bin/pip-compile" --quiet --upgrade --strip-extras --extra dev \
  --no-emit-index-url --no-emit-find-links --no-emit-trusted-host \
  --output-file constraints.txt pyproject.toml
echo "constraints.txt: $(grep -c '==' constraints.txt) pinned packages"
