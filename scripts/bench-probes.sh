#!/usr/bin/env bash
# The cost of the law probes against real servers: `mcp-replay check
# --no-replay --profile spec -- <server>` beside one whole session of the
# same server through a minimal client (scripts/bench/floor-client.rs:
# spawn, initialize, notifications/initialized, tools/list, close stdin, a
# clean exit), measured in pairs that swap places each round, in one run.
#
# Usage: scripts/bench-probes.sh SCRATCH_DIR
#
# SCRATCH_DIR is the directory scripts/interop.sh installed its servers
# into (`scripts/interop.sh SCRATCH_DIR` once); ONLY="time git" picks
# servers (default: every one installed). ROUNDS=N (default 5). BIN=PATH
# times another build (default: the shipped one, built here). LOAD=1
# measures each pair again while a parallel build runs (`cargo build
# --release` of this crate into a target directory of its own, started
# again whenever it ends), as a busy CI machine has it.
#
# Target (docs/performance.md): the probe suite costs at most 1.5x one
# session of the slowest server, at rest and under the build, and reports
# no "not checked" from load alone.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${1:?usage: scripts/bench-probes.sh SCRATCH_DIR (where scripts/interop.sh installed its servers)}
scratch=$(cd "$scratch" && pwd)
rounds=${ROUNDS:-5}

# The shipped build (Cargo.toml's `dist` profile) unless BIN names another.
if [ -z "${BIN:-}" ]; then
    cargo build --profile dist --bin mcp-replay >&2
    BIN=${CARGO_TARGET_DIR:-$PWD/target}/dist/mcp-replay
fi
bin=$BIN
work=$(mktemp -d)
trap 'jobs -p | xargs -r kill 2>/dev/null; rm -rf "$work"' EXIT
rustc -O --edition 2024 -o "$work/floor" scripts/bench/floor-client.rs
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}}'
printf '1\t%s\n0\t%s\n1\t%s\n' "$init" \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' > "$work/session.script"

# The servers as scripts/interop.sh starts them.
npm_bin=$scratch/npm/node_modules/@modelcontextprotocol
declare -A cmd
[ -d "$npm_bin/server-everything" ] && cmd[everything]="node $npm_bin/server-everything/dist/index.js stdio"
[ -d "$npm_bin/server-memory" ] && cmd[memory]="env MEMORY_FILE_PATH=$work/memory.jsonl node $npm_bin/server-memory/dist/index.js"
[ -x "$scratch/py2/bin/python" ] && cmd[time]="$scratch/py2/bin/python -m mcp_server_time --local-timezone Etc/UTC"
[ -x "$scratch/py2/bin/python" ] && [ -d "$scratch/repo" ] && cmd[git]="$scratch/py2/bin/python -m mcp_server_git --repository $scratch/repo"
[ -x "$scratch/py1/bin/python" ] && [ -f "$scratch/fastmcp_v1_server.py" ] && cmd[fastmcp-v1]="$scratch/py1/bin/python $scratch/fastmcp_v1_server.py"
[ -x "$scratch/rmcp/target/release/rmcp-sum" ] && cmd[rmcp]="$scratch/rmcp/target/release/rmcp-sum"
# The older Python SDK servers, which leave every request before
# `initialize` unanswered (the modern probe's `server/discover` among them).
[ -x "$scratch/py-calc/bin/python" ] && cmd[calc]="$scratch/py-calc/bin/python -m mcp_server_calculator"
[ -x "$scratch/py-sqlite/bin/mcp-server-sqlite" ] && cmd[sqlite]="$scratch/py-sqlite/bin/mcp-server-sqlite --db-path $work/sqlite.db"
[ "${#cmd[@]}" -gt 0 ] || { echo "no server found under $scratch: run scripts/interop.sh $scratch first" >&2; exit 2; }
names=${ONLY:-${!cmd[*]}}

measure() {
    python3 - "$bin" "$work" "$rounds" "$1" $names <<'PY'
import statistics, subprocess, sys, time
binary, work, rounds, phase = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
names = sys.argv[5:]
import os
cmds = {}
for name in names:
    cmds[name] = os.environ[f"CMD_{name.replace('-', '_')}"].split()
def timed(argv):
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, done
for name in names:
    server = cmds[name]
    floor = [f"{work}/floor", f"{work}/session.script", "--"] + server
    laws = [binary, "check", "--no-replay", "--profile", "spec", "--format", "json", "--"] + server
    times = {"floor": [], "laws": []}
    unchecked = 0
    for round in range(rounds):
        order = ("floor", "laws") if round % 2 == 0 else ("laws", "floor")
        for what in order:
            took, done = timed(floor if what == "floor" else laws)
            times[what].append(took)
            if what == "laws":
                unchecked += done.stdout.count(b'"status":"not-checked"') + done.stdout.count(b"not checked")
    f, l = statistics.median(times["floor"]), statistics.median(times["laws"])
    print(f"{phase:<6} {name:<11} one session {f*1000:8.0f} ms   probes {l*1000:8.0f} ms   ratio {l/f:5.2f}x   not checked {unchecked}")
PY
}
for name in "${!cmd[@]}"; do export "CMD_${name//-/_}=${cmd[$name]}"; done

echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at rest; $(nproc) cores; $rounds rounds each"
measure rest
if [ "${LOAD:-0}" = 1 ]; then
    ( while :; do cargo build --release --quiet --target-dir "$work/load-target" >/dev/null 2>&1; rm -rf "$work/load-target"; done ) &
    sleep 20
    echo "load average $(cut -d' ' -f1-3 /proc/loadavg) under a parallel build"
    measure build
fi
