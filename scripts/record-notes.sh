#!/usr/bin/env bash
# Records the notes example's transcripts: the official Python SDK client
# against examples/notes.rs through `mcp-replay record`, once in its default
# era probe (2026-07-28 through server/discover) and once with the legacy
# `initialize` handshake.
#
# Usage: scripts/record-notes.sh [SCRATCH_DIR]
#
# Installs `mcp` from PyPI into a virtualenv in SCRATCH_DIR (a fresh
# temporary directory by default; pass one to reuse its install), builds
# mcp-replay and the example, and writes
# examples/notes/transcripts/python-sdk.jsonl and python-sdk-legacy.jsonl.
# The SDK version can be changed with PYTHON_SDK_VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
python_sdk=${PYTHON_SDK_VERSION:-2.3.0}
scratch=${1:-$(mktemp -d)}

cargo build --bin mcp-replay --example notes
[ -x "$scratch/venv/bin/python" ] || python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$python_sdk"

out=examples/notes/transcripts
mkdir -p "$out"
# The server's version is ignored where each era carries it.
record=(target/debug/mcp-replay record --force --ignore /result/serverInfo/version
    --ignore '/result/_meta/io.modelcontextprotocol~1serverInfo/version')
for mode in auto legacy; do
    name=python-sdk
    flag=()
    if [ "$mode" = legacy ]; then
        name=python-sdk-legacy
        flag=(--legacy)
    fi
    echo "==> Python SDK client (mcp $python_sdk), $mode" >&2
    "$scratch/venv/bin/python" scripts/real-clients/python-sdk-notes.py "${flag[@]}" \
        "${record[@]}" -o "$out/$name.jsonl" -- target/debug/examples/notes
done
echo "==> $out/python-sdk{,-legacy}.jsonl" >&2
