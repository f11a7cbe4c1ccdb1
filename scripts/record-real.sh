#!/usr/bin/env bash
# Records the bundled transcripts: a session of the official Python SDK client
# and one of the official TypeScript SDK client, each against
# `mcp-replay demo-server`, against `mcp-replay serve`, and against
# `mcp-replay mock` of the demo-server session just recorded, through
# `mcp-replay record`.
#
# Usage: scripts/record-real.sh [SCRATCH_DIR]
#
# Installs `mcp` from PyPI into a virtualenv and `@modelcontextprotocol/sdk`
# from npm into SCRATCH_DIR (a fresh temporary directory by default; pass one
# to reuse its installs), builds mcp-replay, and writes
# transcripts/python-sdk-demo.jsonl and transcripts/typescript-sdk-demo.jsonl.
# The SDK versions can be changed with PYTHON_SDK_VERSION and TS_SDK_VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python_sdk=${PYTHON_SDK_VERSION:-2.3.0}
ts_sdk=${TS_SDK_VERSION:-1.32.2}
scratch=${1:-$(mktemp -d)}
mkdir -p "$scratch/ts"

cargo build --release --bin mcp-replay
# The recorded command is `mcp-replay demo-server`, found on PATH here and
# beside the checker's own executable when the transcripts are replayed.
export PATH="$root/target/release:$PATH"

[ -x "$scratch/venv/bin/python" ] || python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$python_sdk"
(
    cd "$scratch/ts"
    [ -f package.json ] || npm init -y >/dev/null
    npm install --silent --no-audit --no-fund "@modelcontextprotocol/sdk@$ts_sdk"
)
# Node resolves the SDK from the directory of the importing file.
cp scripts/real-clients/typescript-sdk-client.mjs "$scratch/ts/"

mkdir -p transcripts
# The server's version is ignored where each era carries it: in the
# initialize result, and in the _meta of every stateless result.
record=(mcp-replay record --force --ignore /result/serverInfo/version
    --ignore '/result/_meta/io.modelcontextprotocol~1serverInfo/version')

echo "==> Python SDK client (mcp $python_sdk)" >&2
"$scratch/venv/bin/python" scripts/real-clients/python-sdk-client.py \
    "${record[@]}" -o transcripts/python-sdk-demo.jsonl -- mcp-replay demo-server

echo "==> TypeScript SDK client (@modelcontextprotocol/sdk $ts_sdk)" >&2
node "$scratch/ts/typescript-sdk-client.mjs" \
    "${record[@]}" -o transcripts/typescript-sdk-demo.jsonl -- mcp-replay demo-server

# The same clients against `mcp-replay serve`, the checker as an MCP server,
# calling its deterministic `laws` tool: the tool gates itself.
cp scripts/real-clients/typescript-sdk-session.mjs "$scratch/ts/"
echo "==> Python SDK client against mcp-replay serve" >&2
"$scratch/venv/bin/python" scripts/real-clients/python-sdk-session.py \
    scripts/real-clients/serve-plan.json "$scratch/answers-py.json" \
    "${record[@]}" -o transcripts/python-sdk-serve.jsonl -- mcp-replay serve
echo "==> TypeScript SDK client against mcp-replay serve" >&2
node "$scratch/ts/typescript-sdk-session.mjs" \
    scripts/real-clients/serve-plan.json "$scratch/answers-ts.json" \
    "${record[@]}" -o transcripts/typescript-sdk-serve.jsonl -- mcp-replay serve

# The same clients against `mcp-replay mock` of their own demo sessions: the
# recorded server served back, so the main job gates the mock too. The
# transcript path is relative to the repository root, the recording's cwd.
echo "==> Python SDK client against mcp-replay mock" >&2
"$scratch/venv/bin/python" scripts/real-clients/python-sdk-client.py \
    "${record[@]}" -o transcripts/python-sdk-mock.jsonl -- \
    mcp-replay mock transcripts/python-sdk-demo.jsonl
echo "==> TypeScript SDK client against mcp-replay mock" >&2
node "$scratch/ts/typescript-sdk-client.mjs" \
    "${record[@]}" -o transcripts/typescript-sdk-mock.jsonl -- \
    mcp-replay mock transcripts/typescript-sdk-demo.jsonl

echo "==> transcripts/{python,typescript}-sdk-{demo,serve,mock}.jsonl" >&2
