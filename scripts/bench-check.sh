#!/usr/bin/env bash
# Benchmarks `mcp-replay check` on this machine, each figure beside the
# reference it is judged against, measured in the same run.
#
# Usage: scripts/bench-check.sh        (ROUNDS=30, CORPUS=50 by default)
#        BEFORE=/path/to/an/older/mcp-replay scripts/bench-check.sh
#
# With BEFORE, figure (1) also runs that build's checker in the same rounds
# (against the same server), so that a change is measured before and after
# in one machine state.
#
# The server is `mcp-replay demo-server` (built on the core library) and the
# transcript the bundled transcripts/python-sdk-demo.jsonl. It measures:
#
# 1. one replay, probes off (`check --no-probes T`), against the floor: a
#    minimal client (scripts/bench/floor-client.rs) that spawns the server,
#    pipes the same client lines, reads the recorded number of answers and
#    waits for a clean exit. Target: at most 1.05x the floor.
# 2. the whole law suite (`check --no-replay -- mcp-replay demo-server`:
#    from the repository root a bare `check` would also replay
#    transcripts/, whose serve transcripts name another server). Target: no
#    more than the quiet-before-serving settle window plus 0.2 s.
# 3. a corpus of CORPUS copies of the transcript with `--jobs` = the cores,
#    against the floor of the corpus divided by the cores (the floor client
#    run once per transcript, one after the other). Also `--jobs 1`.
# 4. the peak RSS of each run above, from GNU time (%M: the largest of the
#    checker and the servers it waited for). Target: below 15 MiB.
# 5. the law suite alone (`check --no-replay -- python server.py`) against
#    a server that starts slowly: a FastMCP server on the official Python
#    SDK (`mcp<2`, installed from PyPI into a scratch virtualenv), against
#    the floor of one whole session of it (the floor client: spawn,
#    initialize, tools/list, clean exit). Target: at most 2x one session.
#    SLOW=0 skips it (it needs PyPI).
#
# The floor and the replay run in pairs, swapping places each round, so that
# load on the machine weighs on both alike; the law suite and the corpus run
# after them, each in a phase of its own. The figures are medians over the
# rounds, and for (1) also the median of the per-round ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-30}
corpus_n=${CORPUS:-50}
settle_ms=${SETTLE_MS:-1000}
cores=$(nproc)

# The shipped build (Cargo.toml's `dist` profile): the figures are those of
# what users install. BEFORE=target/release/mcp-replay (`cargo build
# --release`) times the README's build beside it.
cargo build --profile dist --bin mcp-replay >&2
bin=${CARGO_TARGET_DIR:-$PWD/target}/dist/mcp-replay
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rustc -O --edition 2024 -o "$scratch/floor" scripts/bench/floor-client.rs
# For reading figure (1): what starting a process costs, without any work.
echo 'fn main() {}' > "$scratch/empty.rs"
rustc -O --edition 2024 -o "$scratch/empty" "$scratch/empty.rs"

# One transcript whose command is the benchmarked binary's demo server, and a
# corpus of copies of it.
transcript=transcripts/python-sdk-demo.jsonl
mkdir -p "$scratch/one" "$scratch/corpus"
python3 - "$transcript" "$scratch" "$bin" "$corpus_n" <<'PY'
import json, sys
source, scratch, binary, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lines = open(source).read().splitlines()
header = json.loads(lines[0])
header["command"] = [binary, "demo-server"]
header.pop("cwd", None)
text = json.dumps(header) + "\n" + "\n".join(lines[1:]) + "\n"
open(f"{scratch}/one/t.jsonl", "w").write(text)
for i in range(n):
    open(f"{scratch}/corpus/t{i:03}.jsonl", "w").write(text)
# The floor's script: each client line, with the number of server lines
# recorded after it (before the next client line).
script, pending = [], None
for line in lines[1:]:
    event = json.loads(line)
    if event.get("dir") == "c2s":
        if pending:
            script.append(pending)
        pending = [0, json.dumps(event["msg"], separators=(",", ":"))]
    elif event.get("dir") == "s2c" and pending:
        pending[0] += 1
script.append(pending)
open(f"{scratch}/floor.script", "w").write("".join(f"{c}\t{m}\n" for c, m in script))
PY

# A server that starts slowly: FastMCP on the official Python SDK.
slow_python=
if [ "${SLOW:-1}" != 0 ]; then
    python3 -m venv "$scratch/py" >&2
    "$scratch/py/bin/pip" install --quiet --disable-pip-version-check 'mcp<2' >&2
    cat > "$scratch/server.py" <<'PY'
from mcp.server.fastmcp import FastMCP

server = FastMCP("bench")


@server.tool()
def echo(text: str) -> str:
    """Answers with its text."""
    return text


server.run()
PY
    init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}}'
    printf '1\t%s\n0\t%s\n1\t%s\n' "$init" \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' > "$scratch/slow.script"
    slow_python=$scratch/py/bin/python
fi

python3 - "$bin" "$scratch" "$rounds" "$corpus_n" "$cores" "$settle_ms" "${BEFORE:-}" "$slow_python" <<'PY'
import os, statistics, subprocess, sys, time
binary, scratch, rounds, corpus_n, cores, settle_ms, before = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
slow_python = sys.argv[8]
floor = [f"{scratch}/floor", f"{scratch}/floor.script", "--", binary, "demo-server"]
commands = {
    "empty": [f"{scratch}/empty"],
    "version": [binary, "--version"],
    "floor": floor,
    "replay": [binary, "check", "--no-probes", f"{scratch}/one/t.jsonl"],
    "laws": [binary, "check", "--no-replay", "--settle", f"{settle_ms}ms", "--", binary, "demo-server"],
    "corpus-jobs": [binary, "check", "--no-probes", "--jobs", str(cores), f"{scratch}/corpus"],
    "corpus-1": [binary, "check", "--no-probes", "--jobs", "1", f"{scratch}/corpus"],
}
if before:
    commands["before"] = [before, "check", "--no-probes", f"{scratch}/one/t.jsonl"]
if slow_python:
    slow = [slow_python, f"{scratch}/server.py"]
    commands["slow-floor"] = [f"{scratch}/floor", f"{scratch}/slow.script", "--"] + slow
    # The spec profile: a correct SDK server, graded as the SDKs are.
    commands["slow-laws"] = [binary, "check", "--profile", "spec", "--no-replay", "--"] + slow

def run(argv):
    """Wall time in seconds."""
    start = time.perf_counter()
    code = subprocess.call(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if code != 0:
        sys.exit(f"{argv} exited with {code}")
    return elapsed

def peak_rss(argv):
    """Peak RSS in KiB, from GNU time: a small process that forks and execs,
    so its own size does not count (a fork of this Python would)."""
    out = f"{scratch}/rss"
    code = subprocess.call(["/usr/bin/time", "-f", "%M", "-o", out] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if code != 0:
        sys.exit(f"{argv} exited with {code}")
    return int(open(out).read().split()[-1])

times = {name: [] for name in commands}
floor_corpus = []
# Phase by phase, so that a heavy run does not weigh on the light one after
# it; within the first phase the floor and the replay swap places each round.
for round in range(rounds):
    pair = ["floor", "replay"] + (["before"] if before else [])
    if round % 2:
        pair.reverse()
    for name in pair + ["empty", "version"]:
        times[name].append(run(commands[name]))
for name in ("laws", "corpus-jobs", "corpus-1"):
    for round in range(max(5, rounds // 3)):
        times[name].append(run(commands[name]))
if slow_python:
    for round in range(max(3, rounds // 10)):
        for name in ("slow-floor", "slow-laws") if round % 2 == 0 else ("slow-laws", "slow-floor"):
            times[name].append(run(commands[name]))
# The floor of the corpus: the floor client once per transcript, in turn.
for round in range(max(3, rounds // 10)):
    floor_corpus.append(sum(run(floor) for _ in range(corpus_n)))
have_time = os.path.exists("/usr/bin/time")
rss = {name: max(peak_rss(argv) for _ in range(3)) for name, argv in commands.items() if name not in ("empty", "version", "before", "slow-floor", "slow-laws")} if have_time else {}

med = {name: statistics.median(values) for name, values in times.items()}
ms = lambda s: f"{s * 1000:8.2f} ms"
fc = statistics.median(floor_corpus)
print(f"machine: {cores} cores; {rounds} rounds; medians")
# Each round runs the floor and the replay back to back, so the ratio within
# a round is the least disturbed by load that drifts over the run.
paired = statistics.median(r / f for r, f in zip(times["replay"], times["floor"]))
q = lambda v: statistics.quantiles(v, n=4)
print(f"(1) one replay, probes off    {ms(med['replay'])}   floor {ms(med['floor'])}   ratio {med['replay'] / med['floor']:.3f}x, paired {paired:.3f}x (target <= 1.05x)")
if before:
    paired_before = statistics.median(r / f for r, f in zip(times["before"], times["floor"]))
    print(f"    before: {before}  {ms(med['before'])}   ratio {med['before'] / med['floor']:.3f}x, paired {paired_before:.3f}x")
print(f"    start-up alone: mcp-replay --version {ms(med['version'])}, an empty Rust program {ms(med['empty'])}")
print(f"    quartiles: replay {ms(q(times['replay'])[0])} .. {ms(q(times['replay'])[2])}, floor {ms(q(times['floor'])[0])} .. {ms(q(times['floor'])[2])}")
budget = settle_ms / 1000 + 0.2
print(f"(2) the whole law suite        {ms(med['laws'])}   settle {settle_ms} ms + 200 ms = {ms(budget)} ({'within' if med['laws'] <= budget else 'over'} target)")
print(f"(3) {corpus_n} transcripts, --jobs {cores}  {ms(med['corpus-jobs'])}   floor/cores {ms(fc / cores)}   ratio {med['corpus-jobs'] / (fc / cores):.3f}x")
print(f"    {corpus_n} transcripts, --jobs 1  {ms(med['corpus-1'])}   floor {ms(fc)}   ratio {med['corpus-1'] / fc:.3f}x")
if not have_time:
    print("(4) peak RSS: not measured (no /usr/bin/time)")
if slow_python:
    ratio = med["slow-laws"] / med["slow-floor"]
    print(f"(5) the law suite, Python SDK server {ms(med['slow-laws'])}   one session {ms(med['slow-floor'])}   ratio {ratio:.2f}x (target <= 2x)")
for name in rss:
    print(f"(4) peak RSS {name:<12} {rss[name] / 1024:6.1f} MiB" + ("" if name == "floor" else "  (target < 15 MiB)"))
PY
