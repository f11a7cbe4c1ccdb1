#!/usr/bin/env bash
# The interop suite: real MCP stdio servers from npm, PyPI and crates.io,
# driven by real host SDKs through `mcp-replay record`, then checked back with
# `mcp-replay check` under both profiles, RUNS times each.
#
# Usage: scripts/interop.sh [SCRATCH_DIR]
#
# Everything is installed into SCRATCH_DIR (a fresh temporary directory by
# default; pass one to reuse its installs), from the registries only, each
# PyPI server into a virtual environment of its own:
#   servers  npm: @modelcontextprotocol/server-everything, -filesystem,
#            -memory, -sequential-thinking (TypeScript SDK 1.x), -github
#            (an older TypeScript SDK 1.x), mcp-hello-world, @eslint/mcp,
#            @upstash/context7-mcp; a small server on the TypeScript SDK 2.x
#            (@modelcontextprotocol/server) and one on the TypeScript
#            FastMCP framework (npm's fastmcp), written here;
#            PyPI: mcp-server-time, -git, -fetch, duckduckgo-mcp-server
#            (Python SDK 2.x), mcp-server-calculator, mcp-shell-server,
#            mcp-server-bmi-calculator (Python SDK 1.x), mcp-server-sqlite (on
#            an older Python SDK 1.x); small servers on FastMCP in both its
#            packages (mcp.server.fastmcp of the Python SDK 1.x, and the
#            standalone fastmcp 2.x and 4.x), written here;
#            crates.io: a small rmcp server, written here
#   hosts    the Python SDK client 1.x and 2.x, the TypeScript SDK client
# The suite
#   1. records one session per server and host (initialize, ping, the lists the
#      server offers, read-only calls built from its tools' schemas, a clean
#      close) into SCRATCH_DIR/transcripts/<server>-<host>.jsonl;
#   2. runs the same session without the recorder and asserts the host got the
#      same answers (dates, times and UUIDs masked), so recording is invisible;
#   3. checks each server's transcripts against it under `--profile core` and
#      `--profile spec`, RUNS times (default 10), and compares every verdict
#      (exit status, the laws with findings, the replay) with
#      scripts/interop-expected.txt;
#   4. fuzzes each server's tools that change nothing (`mcp-replay fuzz
#      --seed 1`) under both profiles, once, and compares each verdict (exit
#      status, the laws with findings, the tools called) with
#      scripts/fuzz-expected.txt (FUZZ=0 leaves this out).
# It exits 1 on any unexpected verdict, any verdict that differs between runs
# (a flaky replay or law), or any answer the recorder changed; 2 when an
# install or a recording fails.
#
# Settings: RUNS=N (default 10); RMCP=0 leaves the rmcp server out (its first
# build compiles tokio and serde: about two minutes on two cores, and it needs
# crates.io); ONLY="time git" checks only those servers, and ONLY=python the
# Python servers (`RUNS=5 ONLY=python`: the same verdicts in every run);
# FUZZ=0 leaves the fuzz phase out (it fuzzes the first six servers and
# rmcp, whose tools docs/real-servers.md argues).
#
# CI does not run this suite (.ci/run leaves it out): it needs npm, PyPI and
# crates.io, a run takes ten minutes or more, and while the servers and SDKs
# are pinned their own dependencies are not, so its verdicts can follow the
# registries' releases rather than this repository's changes. Run it by hand
# when the laws, the probes or the replay change, and when the pinned versions
# below are moved; docs/real-servers.md holds its results.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${RUNS:-10}
with_rmcp=${RMCP:-1}
if [ -n "${1:-}" ]; then
    mkdir -p "$1" && scratch=$(cd "$1" && pwd)
else
    scratch=$(mktemp -d)
fi

# Pinned versions: what docs/real-servers.md describes.
npm_servers=(
    @modelcontextprotocol/server-everything@2026.8.31
    @modelcontextprotocol/server-filesystem@2026.8.31
    @modelcontextprotocol/server-memory@2026.8.31
    @modelcontextprotocol/server-sequential-thinking@2026.8.31
    @modelcontextprotocol/server-github@2025.4.8
    mcp-hello-world@1.1.2
    @eslint/mcp@0.3.13
    @upstash/context7-mcp@4.1.1
)
ts_sdk=1.32.2
ts_sdk_v2=2.4.0
ts_fastmcp=4.20.16
python_sdk_v2=2.3.0
python_sdk_v1=1.30.0
mcp_server_time=2026.10.19
mcp_server_git=2026.10.19
rmcp_version=3.11.0
# Each PyPI server in a virtual environment of its own: its name, then what
# pip installs (the SDK pinned where the server leaves it open).
py_servers=(
    "fetch mcp-server-fetch==2026.10.24 mcp==$python_sdk_v2"
    "ddg duckduckgo-mcp-server==0.7.0 mcp==$python_sdk_v2"
    "bmi mcp-server-bmi-calculator==0.2.2 mcp==$python_sdk_v1"
    "calc mcp-server-calculator==0.2.1 mcp==$python_sdk_v1"
    "shell mcp-shell-server==1.1.14 mcp==$python_sdk_v1"
    "sqlite mcp-server-sqlite==2025.4.25 mcp==1.9.4 pydantic==2.10.6"
    "fastmcp2 fastmcp==2.12.5 pydantic==2.11.9"
    "fastmcp4 fastmcp==4.1.6"
)

log() { echo "==> $*" >&2; }
started=$(date +%s)

cargo build --release --bin mcp-replay
export PATH="$root/target/release:$PATH"

# --- Installs (each skipped when already there) ---------------------------

log "installing into $scratch"
mkdir -p "$scratch/npm"
(
    cd "$scratch/npm"
    [ -f package.json ] || npm init -y >/dev/null
    npm install --silent --no-audit --no-fund "${npm_servers[@]}" "@modelcontextprotocol/sdk@$ts_sdk"
)
cp scripts/real-clients/typescript-sdk-session.mjs "$scratch/npm/"
pip_install() {
    local venv=$1
    shift
    [ -x "$scratch/$venv/bin/python" ] || python3 -m venv "$scratch/$venv"
    "$scratch/$venv/bin/pip" install --quiet --disable-pip-version-check "$@"
}
pip_install py2 "mcp==$python_sdk_v2" "mcp-server-time==$mcp_server_time" "mcp-server-git==$mcp_server_git"
pip_install py1 "mcp==$python_sdk_v1"
for entry in "${py_servers[@]}"; do
    read -r -a words <<<"$entry"
    pip_install "py-${words[0]}" "${words[@]:1}"
done

# The servers written here on the TypeScript SDK 2.x and on npm's FastMCP,
# in a package of their own (beside the SDK 1.x they would share its zod).
mkdir -p "$scratch/npm2"
(
    cd "$scratch/npm2"
    [ -f package.json ] || npm init -y >/dev/null
    npm install --silent --no-audit --no-fund "@modelcontextprotocol/server@$ts_sdk_v2" "fastmcp@$ts_fastmcp" zod
)
cat >"$scratch/npm2/ts-sdk-v2-server.mjs" <<'EOF'
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
    const server = new McpServer({ name: "interop-ts-sdk-v2", version: "1.0.0" });
    server.registerTool(
        "add",
        {
            description: "Add two integers.",
            inputSchema: z.object({ a: z.number().int(), b: z.number().int() }),
            annotations: { readOnlyHint: true },
        },
        async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
    );
    return server;
});
EOF
cat >"$scratch/npm2/fastmcp-ts-server.mjs" <<'EOF'
import { FastMCP } from "fastmcp";
import { z } from "zod";

const server = new FastMCP({ name: "interop-fastmcp-ts", version: "1.0.0" });
server.addTool({
    name: "add",
    description: "Add two integers.",
    parameters: z.object({ a: z.number().int(), b: z.number().int() }),
    annotations: { readOnlyHint: true },
    execute: async ({ a, b }) => String(a + b),
});
server.start({ transportType: "stdio" });
EOF

# The server written here on the standalone FastMCP (2.x and 4.x): the same
# two tools as the Python SDK 1.x's FastMCP server below.
cat >"$scratch/fastmcp_standalone_server.py" <<'EOF'
from fastmcp import FastMCP

server = FastMCP("interop-fastmcp-standalone")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    server.run()
EOF

# The FastMCP server on the Python SDK 1.x: two tools, a resource, a prompt.
cat >"$scratch/fastmcp_v1_server.py" <<'EOF'
from mcp.server.fastmcp import FastMCP

server = FastMCP("interop-fastmcp")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


@server.resource("config://app")
def config() -> str:
    """The app's configuration."""
    return "mode=interop"


@server.prompt()
def review(code: str) -> str:
    """Ask for a review of some code."""
    return f"Please review this code:\n\n{code}"


if __name__ == "__main__":
    server.run()
EOF

# The rmcp server: one tool, on rmcp's stdio transport.
if [ "$with_rmcp" = 1 ]; then
    mkdir -p "$scratch/rmcp/src"
    cat >"$scratch/rmcp/Cargo.toml" <<EOF
[package]
name = "rmcp-sum"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
rmcp = { version = "=$rmcp_version", default-features = false, features = ["server", "macros", "transport-io"] }
serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["macros", "rt", "io-std"] }

[workspace]
EOF
    cat >"$scratch/rmcp/src/main.rs" <<'EOF'
use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{ServerCapabilities, ServerConfig},
    schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt,
};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SumRequest {
    /// The left-hand number.
    a: i64,
    /// The right-hand number.
    b: i64,
}

#[derive(Debug, Clone)]
struct Sum {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Sum {
    #[tool(description = "Add two integers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Sum {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Sum { tool_router: Sum::tool_router() };
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
EOF
    log "building the rmcp server (rmcp $rmcp_version)"
    (cd "$scratch/rmcp" && cargo build --release --quiet)
fi

# --- Fixtures the servers read ------------------------------------------------

# A directory for the filesystem server, a repository for the git server and a
# knowledge graph for the memory server, the same on every run so that their
# answers are too (the commits have fixed dates, so fixed hashes).
fsroot="$scratch/fsroot"
rm -rf "$fsroot" && mkdir -p "$fsroot/sub"
printf 'hello from a file\nsecond line\n' >"$fsroot/notes.txt"
printf 'nested\n' >"$fsroot/sub/nested.txt"
repo="$scratch/repo"
rm -rf "$repo"
(
    export GIT_AUTHOR_NAME=Interop GIT_AUTHOR_EMAIL=interop@example.invalid
    export GIT_COMMITTER_NAME=Interop GIT_COMMITTER_EMAIL=interop@example.invalid
    export GIT_AUTHOR_DATE=2026-01-02T03:04:05Z GIT_COMMITTER_DATE=2026-01-02T03:04:05Z
    git init -q -b main "$repo"
    cd "$repo"
    echo one >a.txt && git add a.txt && git -c commit.gpgsign=false commit -qm "first commit"
    echo two >>a.txt && git -c commit.gpgsign=false commit -qam "second commit"
)
memory="$scratch/memory.jsonl"
cat >"$memory" <<'EOF'
{"type":"entity","name":"Interop","entityType":"project","observations":["checks real servers"]}
{"type":"entity","name":"Replay","entityType":"tool","observations":["records sessions"]}
{"type":"relation","from":"Replay","to":"Interop","relationType":"serves"}
EOF
# Reading the graph must not rewrite it; keep a copy to prove that.
cp "$memory" "$memory.orig"

# --- Servers, their plans, and the hosts -----------------------------------------

npm_bin="$scratch/npm/node_modules/@modelcontextprotocol"
declare -A server_cmd plan
server_cmd[everything]="node $npm_bin/server-everything/dist/index.js stdio"
plan[everything]='[
 {"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello interop"}}},
 {"method":"tools/call","params":{"name":"get-sum","arguments":{"a":2,"b":40}}},
 {"method":"tools/call","params":{"name":"get-tiny-image","arguments":{}}},
 {"method":"tools/call","params":{"name":"get-structured-content","arguments":{"location":"Chicago"}}},
 {"method":"tools/call","params":{"name":"get-annotated-message","arguments":{"messageType":"success"}}},
 {"method":"resources/read","params":{"uri":"demo://resource/static/document/features.md"}},
 {"method":"prompts/get","params":{"name":"simple-prompt","arguments":{}}},
 {"method":"prompts/get","params":{"name":"args-prompt","arguments":{"city":"Paris"}}}]'
server_cmd[filesystem]="node $npm_bin/server-filesystem/dist/index.js $fsroot"
plan[filesystem]='[
 {"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}},
 {"method":"tools/call","params":{"name":"list_directory","arguments":{"path":"'$fsroot'"}}},
 {"method":"tools/call","params":{"name":"list_directory_with_sizes","arguments":{"path":"'$fsroot'"}}},
 {"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"'$fsroot'/notes.txt"}}},
 {"method":"tools/call","params":{"name":"directory_tree","arguments":{"path":"'$fsroot'"}}},
 {"method":"tools/call","params":{"name":"search_files","arguments":{"path":"'$fsroot'","pattern":"*.txt"}}}]'
server_cmd[memory]="env MEMORY_FILE_PATH=$memory node $npm_bin/server-memory/dist/index.js"
plan[memory]='[
 {"method":"tools/call","params":{"name":"read_graph","arguments":{}}},
 {"method":"tools/call","params":{"name":"search_nodes","arguments":{"query":"sessions"}}},
 {"method":"tools/call","params":{"name":"open_nodes","arguments":{"names":["Interop"]}}}]'
server_cmd[time]="$scratch/py2/bin/python -m mcp_server_time --local-timezone Etc/UTC"
plan[time]='[
 {"method":"tools/call","params":{"name":"get_current_time","arguments":{"timezone":"Etc/UTC"}}},
 {"method":"tools/call","params":{"name":"convert_time","arguments":{"source_timezone":"Europe/London","time":"14:30","target_timezone":"Asia/Tokyo"}}}]'
server_cmd[git]="$scratch/py2/bin/python -m mcp_server_git --repository $repo"
plan[git]='[
 {"method":"tools/call","params":{"name":"git_status","arguments":{"repo_path":"'$repo'"}}},
 {"method":"tools/call","params":{"name":"git_log","arguments":{"repo_path":"'$repo'","max_count":5}}},
 {"method":"tools/call","params":{"name":"git_show","arguments":{"repo_path":"'$repo'","revision":"HEAD"}}},
 {"method":"tools/call","params":{"name":"git_branch","arguments":{"repo_path":"'$repo'","branch_type":"local"}}},
 {"method":"tools/call","params":{"name":"git_diff_unstaged","arguments":{"repo_path":"'$repo'"}}}]'
server_cmd[fastmcp-v1]="$scratch/py1/bin/python $scratch/fastmcp_v1_server.py"
plan[fastmcp-v1]='[
 {"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}},
 {"method":"tools/call","params":{"name":"greet","arguments":{"name":"interop"}}},
 {"method":"resources/read","params":{"uri":"config://app"}},
 {"method":"prompts/get","params":{"name":"review","arguments":{"code":"print(1)"}}}]'
server_cmd[sequential-thinking]="node $npm_bin/server-sequential-thinking/dist/index.js"
plan[sequential-thinking]='[]'
server_cmd[github]="node $npm_bin/server-github/dist/index.js"
plan[github]='[]'
server_cmd[hello-world]="node $scratch/npm/node_modules/mcp-hello-world/build/stdio.js"
plan[hello-world]='[]'
server_cmd[eslint]="node $scratch/npm/node_modules/@eslint/mcp/src/mcp-cli.js"
plan[eslint]='[]'
server_cmd[context7]="node $scratch/npm/node_modules/@upstash/context7-mcp/dist/index.js"
plan[context7]='[]'
server_cmd[ts-sdk-v2]="node $scratch/npm2/ts-sdk-v2-server.mjs"
plan[ts-sdk-v2]='[{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}]'
server_cmd[fastmcp-ts]="node $scratch/npm2/fastmcp-ts-server.mjs"
plan[fastmcp-ts]='[{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}]'
server_cmd[fetch]="$scratch/py-fetch/bin/python -m mcp_server_fetch"
plan[fetch]='[]'
server_cmd[ddg]="$scratch/py-ddg/bin/duckduckgo-mcp-server"
plan[ddg]='[]'
server_cmd[bmi]="$scratch/py-bmi/bin/mcp-server-bmi-calculator"
plan[bmi]='[]'
server_cmd[calc]="$scratch/py-calc/bin/python -m mcp_server_calculator"
plan[calc]='[{"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"2 + 40"}}}]'
server_cmd[shell]="env ALLOW_COMMANDS=echo $scratch/py-shell/bin/mcp-shell-server"
plan[shell]='[]'
server_cmd[sqlite]="$scratch/py-sqlite/bin/mcp-server-sqlite --db-path $scratch/sqlite.db"
plan[sqlite]='[]'
server_cmd[fastmcp2]="$scratch/py-fastmcp2/bin/python $scratch/fastmcp_standalone_server.py"
plan[fastmcp2]='[{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}]'
server_cmd[fastmcp4]="$scratch/py-fastmcp4/bin/python $scratch/fastmcp_standalone_server.py"
plan[fastmcp4]='[{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}]'
servers=(everything filesystem memory time git fastmcp-v1 sequential-thinking github hello-world eslint
    context7 ts-sdk-v2 fastmcp-ts fetch ddg bmi calc shell sqlite fastmcp2 fastmcp4)
# The servers fuzz runs against: those whose tools docs/real-servers.md
# argues (scripts/fuzz-expected.txt holds their verdicts).
fuzzed=" everything filesystem memory time git fastmcp-v1 rmcp "
if [ "$with_rmcp" = 1 ]; then
    server_cmd[rmcp]="$scratch/rmcp/target/release/rmcp-sum"
    plan[rmcp]='[{"method":"tools/call","params":{"name":"sum","arguments":{"a":2,"b":40}}}]'
    servers+=(rmcp)
fi
# The Python servers, each run with the same verdicts (RUNS=5 ONLY=python).
python_servers="time git fetch ddg bmi calc shell sqlite fastmcp-v1 fastmcp2 fastmcp4"
case "${ONLY:-}" in
    "") ;;
    python) read -r -a servers <<<"$python_servers" ;;
    *) read -r -a servers <<<"$ONLY" ;;
esac

declare -A host_cmd
host_cmd[python-sdk-v1]="$scratch/py1/bin/python $root/scripts/real-clients/python-sdk-session.py"
host_cmd[python-sdk-v2]="$scratch/py2/bin/python $root/scripts/real-clients/python-sdk-session.py"
host_cmd[typescript-sdk]="node $scratch/npm/typescript-sdk-session.mjs"
hosts=(python-sdk-v1 python-sdk-v2 typescript-sdk)

# --- Record, and prove the recorder invisible ----------------------------------

# Whether a transcript's host sent `initialize` while its `server/discover`
# was still unanswered.
discover_timed_out() {
    python3 - "$1" <<'EOF'
import json, sys
pending, late = set(), False
for line in open(sys.argv[1]).read().splitlines()[1:]:
    event = json.loads(line)
    msg = event.get("msg")
    if not isinstance(msg, dict):
        continue
    if event["dir"] == "c2s" and msg.get("method") == "server/discover":
        pending.add(json.dumps(msg["id"]))
    elif event["dir"] == "c2s" and msg.get("method") == "initialize" and pending:
        late = True
    elif event["dir"] == "s2c" and "id" in msg:
        pending.discard(json.dumps(msg["id"]))
sys.exit(0 if late else 1)
EOF
}

# Every server runs from the same directory, so that all the transcripts of
# one server name the same command and its probes run once per check.
work="$scratch/work"
out="$scratch/transcripts"
answers="$scratch/answers"
results="$scratch/results"
rm -rf "$out" "$answers" "$results"
mkdir -p "$work" "$out" "$answers" "$results"
cd "$work"
for server in "${servers[@]}"; do
    echo "{\"calls\": ${plan[$server]}}" >"$answers/$server.plan.json"
    for host in "${hosts[@]}"; do
        name="$server-$host"
        log "recording $name"
        # shellcheck disable=SC2086 # the commands are word lists
        ${host_cmd[$host]} "$answers/$server.plan.json" "$answers/$name.direct.json" \
            ${server_cmd[$server]} 2>"$answers/$name.direct.stderr" ||
            { echo "the session $name failed without the recorder; see $answers/$name.direct.stderr" >&2; exit 2; }
        # The Python SDK 2.x client gives `server/discover` 10 s before it falls
        # back to `initialize`; a server that took longer to start (on a loaded
        # machine) records a session shaped by that timeout, which is no
        # session a host has on a machine at rest: record it again.
        for attempt in 1 2 3; do
            # shellcheck disable=SC2086
            ${host_cmd[$host]} "$answers/$server.plan.json" "$answers/$name.recorded.json" \
                mcp-replay record --force -o "$out/$name.jsonl" -- ${server_cmd[$server]} \
                2>"$answers/$name.recorded.stderr" ||
                { echo "the session $name failed through the recorder; see $answers/$name.recorded.stderr" >&2; exit 2; }
            discover_timed_out "$out/$name.jsonl" || break
            log "the host's server/discover timed out in $name (attempt $attempt); recording it again"
        done
    done
done
cmp -s "$memory" "$memory.orig" || { echo "the memory server changed $memory on read-only calls" >&2; exit 2; }
cd "$root"
recorded=$(date +%s)

# --- Check, RUNS times per server and profile ------------------------------------

# The startup allowance is raised from 20 s to 60 s: on a machine shared with
# builds, a Python server that starts in one second at rest can take twenty,
# and the suite judges the servers' answers, not the machine's load. Every
# other deadline (the step timeout, the 2 s grace for an exit) is the default.
log "load average before the checks: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq 1 "$runs"); do
    log "check run $run of $runs"
    for server in "${servers[@]}"; do
        for profile in core spec; do
            status=0
            (cd "$work" && mcp-replay check --format json --color never --profile "$profile" \
                --startup-timeout 60s \
                "$out/$server"-*.jsonl) >"$results/$server.$profile.$run.jsonl" 2>>"$results/stderr.log" ||
                status=$?
            echo "$status" >"$results/$server.$profile.$run.exit"
        done
    done
done
checked=$(date +%s)
log "load average after the checks: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- Fuzz: each server's tools that change nothing, once per profile -------------

# The tools fuzz leaves out or names, per server (docs/real-servers.md,
# "Fuzzing their tools", says why): server-everything's long-running tool
# waits as long as it is asked to, with no bound in its schema; the FastMCP
# and rmcp tools change nothing but carry no annotations to say so. Every run
# gives --read-only: the tools that only add (destructiveHint: false, such as
# filesystem's create_directory or memory's create_entities) would change
# the suite's fixtures.
declare -A fuzz_args
fuzz_args[everything]="--skip-tool trigger-long-running-operation"
fuzz_args[fastmcp-v1]="--tool add --tool greet"
fuzz_args[rmcp]="--tool sum"
fuzz_status=0
if [ "${FUZZ:-1}" = 1 ]; then
    log "fuzzing each server's tools (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    fuzz_run=()
    for server in "${servers[@]}"; do
        [[ "$fuzzed" == *" $server "* ]] && fuzz_run+=("$server")
    done
    for server in "${fuzz_run[@]}"; do
        for profile in core spec; do
            status=0
            # shellcheck disable=SC2086 # the commands and flags are word lists
            (cd "$work" && mcp-replay fuzz --seed 1 --read-only --format json --profile "$profile" \
                --startup-timeout 60s --findings "$results/fuzz-findings/$server-$profile" \
                ${fuzz_args[$server]:-} -- ${server_cmd[$server]}) \
                >"$results/$server.$profile.fuzz.jsonl" 2>>"$results/stderr.log" || status=$?
            echo "$status" >"$results/$server.$profile.fuzz.exit"
        done
    done
    cmp -s "$memory" "$memory.orig" || { echo "the memory server changed $memory on fuzzed read-only calls" >&2; exit 2; }
    python3 - scripts/fuzz-expected.txt "$results" "${fuzz_run[*]}" <<'EOF' || fuzz_status=1
import json, sys
expected_file, results, servers = sys.argv[1], sys.argv[2], sys.argv[3].split()
expected = {}
for line in open(expected_file):
    line = line.split("#")[0].split()
    if line:
        expected[(line[0], line[1])] = (line[2], line[3], line[4])
bad = 0
for server in servers:
    for profile in ("core", "spec"):
        lines = [json.loads(l) for l in open(f"{results}/{server}.{profile}.fuzz.jsonl") if l.strip()]
        exit_status = open(f"{results}/{server}.{profile}.fuzz.exit").read().strip()
        laws = sorted({l["law"] for l in lines if l["type"] == "finding"})
        called = sum(1 for l in lines if l["type"] == "tool" and l["sent"] > 0)
        got = (exit_status, ",".join(laws) or "-", str(called))
        want = expected.get((server, profile))
        bad += got != want
        note = "" if got == want else f"  (expected {want})"
        print(f"{'ok ' if got == want else 'BAD'} fuzz {server:<11} {profile}  exit {got[0]}  laws {got[1]}  tools called {got[2]}{note}")
sys.exit(1 if bad else 0)
EOF
fi

# --- Verdicts -----------------------------------------------------------------------

status=0
python3 scripts/interop-verdicts.py --expected scripts/interop-expected.txt \
    --scratch "$scratch" --runs "$runs" --servers "${servers[*]}" --hosts "${hosts[*]}" || status=$?
[ "$fuzz_status" = 0 ] || status=1
echo "wall time: $((checked - started)) s (installs and recording $((recorded - started)) s, $runs check runs $((checked - recorded)) s); scratch: $scratch"
exit "$status"
