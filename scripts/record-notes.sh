#!/usr/bin/env bash
# Records the notes example's transcripts through `mcp-replay record`: the
# official Python SDK client against examples/notes.rs, once in its default
# era probe (2026-07-28 through server/discover) and once with the legacy
# `initialize` handshake, and the official TypeScript SDK client (which
# negotiates 2025-11-25).
#
# Usage: scripts/record-notes.sh [SCRATCH_DIR]
#
# Installs `mcp` from PyPI into a virtualenv and `@modelcontextprotocol/sdk`
# from npm in SCRATCH_DIR (a fresh temporary directory by default; pass one
# to reuse its installs), builds mcp-replay and the example, and writes
# examples/notes/transcripts/python-sdk.jsonl, python-sdk-legacy.jsonl and
# typescript-sdk.jsonl. The SDK versions can be changed with
# PYTHON_SDK_VERSION and TS_SDK_VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
python_sdk=${PYTHON_SDK_VERSION:-2.3.0}
ts_sdk=${TS_SDK_VERSION:-1.32.2}
scratch=${1:-$(mktemp -d)}
mkdir -p "$scratch/ts"

cargo build --bin mcp-replay --example notes
[ -x "$scratch/venv/bin/python" ] || python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$python_sdk"
(
    cd "$scratch/ts"
    [ -f package.json ] || npm init -y >/dev/null
    npm install --silent --no-audit --no-fund "@modelcontextprotocol/sdk@$ts_sdk"
)
# Node resolves the SDK from the directory of the importing file.
cp scripts/real-clients/typescript-sdk-notes.mjs "$scratch/ts/"

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
echo "==> TypeScript SDK client (@modelcontextprotocol/sdk $ts_sdk)" >&2
node "$scratch/ts/typescript-sdk-notes.mjs" \
    "${record[@]}" -o "$out/typescript-sdk.jsonl" -- target/debug/examples/notes
echo "==> $out/{python-sdk,python-sdk-legacy,typescript-sdk}.jsonl" >&2
