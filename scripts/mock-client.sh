#!/usr/bin/env bash
# The client test of `mcp-replay mock`: the official TypeScript and Python SDK
# clients, each driven through a session against `mcp-replay mock` of a
# recorded `@modelcontextprotocol/server-everything` session, must get the
# answers they got from the real server.
#
# Usage: scripts/mock-client.sh [--record] [SCRATCH_DIR]
#
# The recorded session is tests/data/server-everything.jsonl (the TypeScript
# client's, through `mcp-replay record`); the answers each client got from
# the real server are tests/data/server-everything.{typescript,python}-answers.json.
# The session is scripts/real-clients/{typescript,python}-sdk-session.*
# with scripts/real-clients/everything-plan.json: the handshake, ping, the
# three lists, tool calls (one twice with other arguments, one with bad
# arguments), a resource read and two prompts. The Python client (SDK 2.x)
# asks `server/discover` first and falls back to `initialize`, and its
# requests differ from the recorded ones (client info, absent arguments), so
# it gets its answers through the matching's loose strategies. With
# --record, server-everything is installed from npm and all three files are
# made anew first.
#
# Then the same clients are hosts under test: each runs
# scripts/real-clients/{typescript,python}-sdk-host.* (declaring roots,
# sampling and elicitation, cancelling a slow call; the Python client in
# both eras) against `mcp-replay mock exercise`, which judges the host
# against the host laws, and must end with the mock's report saying exit
# status 0. With --record, those sessions are recorded anew, through
# `mcp-replay record`, into tests/data/hosts/, where the test suite holds
# them to the host laws.
#
# The test itself needs `@modelcontextprotocol/sdk` from npm and `mcp` from
# PyPI (installed into SCRATCH_DIR, a fresh temporary directory by default;
# pass one to reuse its installs) and the release build. It exits 1 when an
# answer differs, 2 when an install or a session fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
ts_sdk=${TS_SDK_VERSION:-1.32.2}
python_sdk=${PYTHON_SDK_VERSION:-2.3.0}
everything=${EVERYTHING_VERSION:-2026.8.31}
record=0
if [ "${1:-}" = --record ]; then
    record=1
    shift
fi
if [ -n "${1:-}" ]; then
    mkdir -p "$1" && scratch=$(cd "$1" && pwd)
else
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
fi
transcript=tests/data/server-everything.jsonl
answers=tests/data/server-everything
plan=scripts/real-clients/everything-plan.json

log() { echo "==> $*" >&2; }

cargo build --release --quiet --bin mcp-replay
mcp_replay=$root/target/release/mcp-replay

packages=("@modelcontextprotocol/sdk@$ts_sdk")
[ "$record" = 0 ] || packages+=("@modelcontextprotocol/server-everything@$everything")
log "installing ${packages[*]} into $scratch/npm"
mkdir -p "$scratch/npm"
(
    cd "$scratch/npm"
    [ -f package.json ] || npm init -y >/dev/null
    npm install --silent --no-audit --no-fund "${packages[@]}"
) || { echo "mock-client: the npm install failed" >&2; exit 2; }
log "installing mcp==$python_sdk into $scratch/venv"
if ! { [ -x "$scratch/venv/bin/python" ] || python3 -m venv "$scratch/venv"; } \
    || ! "$scratch/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$python_sdk"; then
    echo "mock-client: the pip install failed" >&2
    exit 2
fi
# Node resolves the SDK from the directory of the importing file.
cp scripts/real-clients/typescript-sdk-session.mjs scripts/real-clients/typescript-sdk-host.mjs "$scratch/npm/"
declare -A session label=([typescript]=TypeScript [python]=Python)
session[typescript]="node $scratch/npm/typescript-sdk-session.mjs"
session[python]="$scratch/venv/bin/python $root/scripts/real-clients/python-sdk-session.py"

# run CLIENT ANSWERS SERVER...: one session, its answers to ANSWERS.
run() {
    local client=$1 out=$2
    shift 2
    # shellcheck disable=SC2086 # the session command is words
    ${session[$client]} "$plan" "$out" "$@" 2>"$scratch/$client.stderr" \
        || { cat "$scratch/$client.stderr" >&2; echo "mock-client: the $client session against $* failed" >&2; exit 2; }
}

if [ "$record" = 1 ]; then
    server=(node "$scratch/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js" stdio)
    log "recording server-everything $everything into $transcript"
    mkdir -p tests/data
    run typescript "$answers.typescript-answers.json" \
        "$mcp_replay" record --force -o "$transcript" -- "${server[@]}"
    log "the Python SDK client against server-everything"
    run python "$answers.python-answers.json" "${server[@]}"
fi

status=0
for client in typescript python; do
    log "the ${label[$client]} SDK client against mcp-replay mock $transcript"
    run "$client" "$scratch/$client-answers.json" "$mcp_replay" mock "$transcript"
    python3 - "$client" "$answers.$client-answers.json" "$scratch/$client-answers.json" <<'PY' || status=1
import json
import sys

client = sys.argv[1]
expected, got = (json.load(open(path)) for path in sys.argv[2:4])
if expected == got:
    print(f"mock-client: PASS: the {client} client got {len(got)} answers, each the one the real server gave")
    sys.exit(0)
steps = max(len(expected), len(got))
for i in range(steps):
    e = expected[i] if i < len(expected) else None
    g = got[i] if i < len(got) else None
    if e != g:
        print(f"mock-client: FAIL: the {client} client, answer {i + 1}:", file=sys.stderr)
        print("  recorded: " + json.dumps(e, sort_keys=True)[:400], file=sys.stderr)
        print("  mock:     " + json.dumps(g, sort_keys=True)[:400], file=sys.stderr)
sys.exit(1)
PY
done

# The clients as hosts under test: `mcp-replay mock exercise` judges each,
# and its report must say exit status 0.
declare -A host=(
    [typescript]="node $scratch/npm/typescript-sdk-host.mjs"
    [python]="$scratch/venv/bin/python $root/scripts/real-clients/python-sdk-host.py auto"
    [python-legacy]="$scratch/venv/bin/python $root/scripts/real-clients/python-sdk-host.py legacy"
)
for client in typescript python python-legacy; do
    report="$scratch/$client-host.jsonl"
    if [ "$record" = 1 ]; then
        log "recording the $client SDK client as a host into tests/data/hosts/"
        mkdir -p tests/data/hosts
        # shellcheck disable=SC2086 # the host command is words
        env -i HOME="$HOME" PATH="$(dirname "$mcp_replay"):$PATH" ${host[$client]} \
            mcp-replay record --force -o "tests/data/hosts/${client%-legacy}-sdk${client#"${client%-legacy}"}-exercise.jsonl" \
            -- mcp-replay mock exercise 2>"$scratch/$client-host.stderr" \
            || { cat "$scratch/$client-host.stderr" >&2; echo "mock-client: recording the $client host failed" >&2; exit 2; }
    fi
    log "the $client SDK client as a host against mcp-replay mock exercise"
    # shellcheck disable=SC2086 # the host command is words
    ${host[$client]} "$mcp_replay" mock --report "$report" exercise 2>"$scratch/$client-host.stderr" \
        || { cat "$scratch/$client-host.stderr" >&2; echo "mock-client: the $client host session failed" >&2; exit 2; }
    python3 - "$client" "$report" <<'PY' || { cat "$scratch/$client-host.stderr" >&2; status=1; }
import json
import sys

client, path = sys.argv[1:3]
lines = [json.loads(line) for line in open(path)]
host = next(line for line in lines if line["type"] == "host")
summary = lines[-1]
if summary["exit"] == 0 and host["status"] in ("pass", "warn"):
    held = sum(1 for line in lines if line["type"] == "law" and line["status"] == "pass")
    print(f"mock-client: PASS: the {client} host ({host['host']}) kept the host laws: {held} held, the others not exercised")
    sys.exit(0)
for line in lines:
    if line["type"] == "finding":
        print(f"mock-client: FAIL: the {client} host: {line['law']}: {line['message']}", file=sys.stderr)
sys.exit(1)
PY
done
exit $status
