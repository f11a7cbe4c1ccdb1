#!/usr/bin/env bash
# Benchmarks `mcp-replay fuzz` against a minimal client sending the same
# calls, measured in the same run, with the machine's load beside them.
#
# Usage: scripts/bench-fuzz.sh        (ROUNDS=15, CASES=100 by default)
#        PREBUILT=DIR scripts/bench-fuzz.sh   (DIR/mcp-replay and
#        DIR/fixture-server instead of a release build)
#        BEFORE=PATH scripts/bench-fuzz.sh    (another mcp-replay, run beside
#        this one in parts 4 and 5, in the same rounds)
#        EVERYTHING="node .../server-everything/dist/index.js stdio"
#        scripts/bench-fuzz.sh   (part 5 against that server; install it with
#        `npm install @modelcontextprotocol/server-everything` into a scratch
#        directory outside the repository)
#
# The server is `fixture-server --fuzz-tools`: five tools that change
# nothing (their calls answer at once), so what is measured is the client's
# cost. It measures:
#
# 1. one fuzz run of CASES cases per tool (500 calls by default, pipelined 8
#    at a time, shrinking and transcripts off since the server is correct),
#    against the floor: a minimal client (scripts/bench/fuzz-floor.rs) that
#    spawns the server and sends the very same client lines (recorded once
#    through `mcp-replay record` between fuzz and the server), at most 8
#    requests unanswered at once, and reads one answer per request. Target:
#    the run costs little more than the floor.
# 2. the same with a server that takes 2 ms over each call (`--slow-call 2`),
#    where the server's own time dominates: the run against its floor.
# 3. the same lockstep (`--pipeline 1`), against the floor with a window of 1.
#
# 4. what a failure costs: a whole fuzz run (findings shrunk, confirmed and
#    written) of a tool that hangs on one input (`--fuzz-bug hang`, `--tool
#    convert`, `--timeout 1s`) and of one that crashes on some
#    (`--fuzz-bug crash`, `--tool search`), with and without a `--budget`
#    shorter than the run, against one whole session of the same server
#    (scripts/bench/floor-client.rs: spawn, initialize, initialized,
#    tools/list, a clean exit) measured in the same rounds. Target: a hang
#    costs about two call deadlines (the call, then the call alone on a
#    fresh process, whose session is the finding's transcript), and a run
#    never outlasts its budget by more than a server's kill.
# 5. with EVERYTHING set, `fuzz --budget ${EVERYTHING_BUDGET:-60s}` against
#    that server, beside one session of it (ROUNDS_EVERYTHING rounds, 1 by
#    default).
#
# The two sides run in pairs, swapping places each round, so that load on the
# machine weighs on both alike. The figures are medians over the rounds, and
# the median of the per-round ratios; /proc/loadavg is read before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-15}
cases=${CASES:-100}

if [ -n "${PREBUILT:-}" ]; then
    bin=$(cd "$PREBUILT" && pwd)/mcp-replay
    fixture=$(cd "$PREBUILT" && pwd)/fixture-server
else
    cargo build --release --bin mcp-replay --example fixture-server >&2
    bin=$PWD/target/release/mcp-replay
    fixture=$PWD/target/release/examples/fixture-server
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rustc -O --edition 2024 -o "$scratch/floor" scripts/bench/fuzz-floor.rs
rustc -O --edition 2024 -o "$scratch/session" scripts/bench/floor-client.rs
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}}'
printf '1\t%s\n0\t%s\n1\t%s\n' "$init" \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' > "$scratch/session.script"

# The calls of one run, as the server received them.
record() {
    local name=$1
    shift
    "$bin" fuzz --seed 1 --cases "$cases" --no-findings --no-shrink "$@" -- \
        "$bin" record --force -o "$scratch/$name.jsonl" -- "$fixture" --fuzz-tools "${server_args[@]}" >/dev/null
    python3 - "$scratch/$name.jsonl" "$scratch/$name.script" <<'PY'
import json, sys
source, target = sys.argv[1], sys.argv[2]
out = []
for line in open(source).read().splitlines()[1:]:
    event = json.loads(line)
    if event.get("dir") != "c2s":
        continue
    message = event["msg"]
    kind = "R" if "id" in message and "method" in message else "N"
    out.append(f"{kind}\t{json.dumps(message, separators=(',', ':'))}")
open(target, "w").write("\n".join(out) + "\n")
PY
}
server_args=()
record fast
server_args=(--slow-call 2)
record slow
server_args=()
record lockstep --pipeline 1

python3 - "$bin" "$fixture" "$scratch" "$rounds" "$cases" <<'PY'
import os, statistics, subprocess, sys, time
binary, fixture, scratch, rounds, cases = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]

def load():
    return open("/proc/loadavg").read().split()[:3]

def timed(argv):
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=scratch)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{argv} exited {done.returncode}")
    return elapsed

def fuzz(extra, server):
    return [binary, "fuzz", "--seed", "1", "--cases", cases, "--no-findings", "--no-shrink", *extra, "--", fixture, "--fuzz-tools", *server]

def floor(script, window, server):
    return [f"{scratch}/floor", f"{scratch}/{script}.script", str(window), "--", fixture, "--fuzz-tools", *server]

calls = {name: sum(1 for line in open(f"{scratch}/{name}.script") if line.startswith("R")) for name in ["fast", "slow", "lockstep"]}
cases_run = [
    ("pipelined (8 in flight)", fuzz([], []), floor("fast", 8, []), "fast"),
    ("server 2 ms per call", fuzz([], ["--slow-call", "2"]), floor("slow", 8, ["--slow-call", "2"]), "slow"),
    ("lockstep (--pipeline 1)", fuzz(["--pipeline", "1"], []), floor("lockstep", 1, []), "lockstep"),
]
before = load()
print(f"/proc/loadavg before: {' '.join(before)}  (cores: {os.cpu_count()})")
print(f"| run | requests | fuzz (median) | floor (median) | ratio (median of rounds) |")
print(f"|---|---|---|---|---|")
for label, ours, reference, script in cases_run:
    timed(ours); timed(reference)
    a, b, ratios = [], [], []
    for round in range(rounds):
        if round % 2 == 0:
            x = timed(ours); y = timed(reference)
        else:
            y = timed(reference); x = timed(ours)
        a.append(x); b.append(y); ratios.append(x / y)
    print(f"| {label} | {calls[script]} | {statistics.median(a)*1000:.1f} ms | {statistics.median(b)*1000:.1f} ms | {statistics.median(ratios):.2f} |")
print(f"/proc/loadavg after: {' '.join(load())}")
PY

# 4 and 5: what a failure costs, and a budget, against one session.
python3 - "$bin" "$fixture" "$scratch" "$rounds" "${BEFORE:-}" "${EVERYTHING:-}" "${EVERYTHING_BUDGET:-60s}" "${ROUNDS_EVERYTHING:-1}" <<'PY'
import os, shlex, statistics, subprocess, sys, time
binary, fixture, scratch, rounds, before, everything, budget, rounds_everything = sys.argv[1:9]
rounds, rounds_everything = int(rounds), int(rounds_everything)
builds = [("now", binary)] + ([("before", before)] if before else [])

def timed(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=scratch)
    return time.perf_counter() - start

def session(server):
    return [f"{scratch}/session", f"{scratch}/session.script", "--", *server]

def fuzz(build, args, server):
    out = f"{scratch}/findings-{os.getpid()}"
    return [build, "fuzz", "--seed", "11", "--findings", out, *args, "--", *server]

def measure(label, server, args, n):
    runs = {name: [] for name, _ in builds}
    one = []
    for round in range(n):
        order = builds if round % 2 == 0 else list(reversed(builds))
        one.append(timed(session(server)))
        for name, build in order:
            runs[name].append(timed(fuzz(build, args, server)))
    base = statistics.median(one)
    cells = "   ".join(
        f"{name} {statistics.median(times):7.2f} s ({statistics.median(times) / base:6.1f} sessions)"
        for name, times in runs.items()
    )
    print(f"{label:<44} one session {base * 1000:6.0f} ms   {cells}")

print(f"/proc/loadavg before: {' '.join(open('/proc/loadavg').read().split()[:3])}")
hang = [fixture, "--fuzz-bug", "hang"]
crash = [fixture, "--fuzz-bug", "crash"]
measure("hang on one input, --timeout 1s", hang, ["--tool", "convert", "--timeout", "1s"], rounds)
measure("hang on one input, --timeout 1s --budget 2s", hang, ["--tool", "convert", "--timeout", "1s", "--budget", "2s"], rounds)
measure("crash on non-ASCII text", crash, ["--tool", "search"], rounds)
measure("crash on non-ASCII text, --budget 500ms", crash, ["--tool", "search", "--budget", "500ms"], rounds)
if everything:
    measure(f"server-everything, --budget {budget}", shlex.split(everything), ["--budget", budget], rounds_everything)
print(f"/proc/loadavg after: {' '.join(open('/proc/loadavg').read().split()[:3])}")
PY
