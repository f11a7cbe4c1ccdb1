#!/usr/bin/env bash
# Benchmarks `mcp-replay record` against a direct pipe to the same server.
#
# Usage: scripts/bench-record.sh            (ROUNDS=5 by default)
#
# For two servers, `mcp-replay demo-server` (a real MCP server built on the
# core library: it parses, dispatches and answers each tools/call) and an
# echo floor (a server that does no work at all, so only the pipe is left),
# it measures, each round alternating between the direct pipe, the recorder
# and a minimal Python recording shim (scripts/bench/py-shim.py, the kind of
# recorder the issue compares against):
#
# - lockstep round trips, one message in flight: p50 and p99 in microseconds;
# - pipelined throughput of 100k small messages, in messages per second;
# - whole sessions (start, first answer, end of input, exit): the median time
#   to the first answer and to exit;
# and then the recorder's peak RSS (VmHWM) over sessions of 10k, 100k and 1M
# messages, which must not grow with the session's length, and over streams
# that never end their lines, which must not grow with the line.
#
# The figures are medians over the rounds; "added" is recorder minus direct
# within the same run, so load on the machine weighs on both alike. For the
# pipelined runs it also reports the CPU time per message of the process the
# driver started: the server itself when direct, the recorder alone (not its
# server) when recording.
#
# BASE=/path/to/another/mcp-replay adds that build's recorder to every round,
# as a column of its own: a before/after comparison in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
lockstep_n=${LOCKSTEP_N:-20000}
pipelined_n=${PIPELINED_N:-100000}
sessions=${SESSIONS:-50}
base=${BASE:-}

# The shipped build (Cargo.toml's `dist` profile): the figures are those of
# what users install. BASE=target/release/mcp-replay (`cargo build
# --release`) times the README's build beside it.
cargo build --profile dist --bin mcp-replay >&2
bin=${CARGO_TARGET_DIR:-$PWD/target}/dist/mcp-replay
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rustc -O --edition 2024 -o "$scratch/driver" scripts/bench/driver.rs
rustc -O --edition 2024 -o "$scratch/echo" scripts/bench/echo-server.rs
driver=$scratch/driver
results=$scratch/results

run() { # run LABEL SERVER MODE N -- COMMAND...
    local label=$1 server=$2 mode=$3 n=$4
    shift 5
    printf '%s %s %s\n' "$label" "$server" "$("$driver" "$mode" "$n" -- "$@")" | tee -a "$results" >&2
}

for server in demo echo; do
    case $server in
        demo) cmd=("$bin" demo-server) ;;
        echo) cmd=("$scratch/echo") ;;
    esac
    for round in $(seq "$rounds"); do
        echo "== $server, round $round/$rounds" >&2
        for mode in lockstep:$lockstep_n pipelined:$pipelined_n session:$sessions; do
            m=${mode%%:*} n=${mode#*:}
            run direct "$server" "$m" "$n" -- "${cmd[@]}"
            if [ "$m" = session ]; then
                # A new transcript per session, as with the default name.
                run record "$server" "$m" "$n" -- "$bin" record -o "$scratch/s-$server-$round-{n}.jsonl" -- "${cmd[@]}"
                # The same transcript replaced each time, as a host config with --force does.
                run force "$server" "$m" "$n" -- "$bin" record -o "$scratch/t.jsonl" --force -- "${cmd[@]}"
                if [ -n "$base" ]; then
                    run base "$server" "$m" "$n" -- "$base" record -o "$scratch/b-$server-$round-{n}.jsonl" -- "${cmd[@]}"
                    run baseforce "$server" "$m" "$n" -- "$base" record -o "$scratch/b.jsonl" --force -- "${cmd[@]}"
                fi
                if [ "$round" = 1 ]; then
                    run pyshim "$server" "$m" 10 -- python3 scripts/bench/py-shim.py "$scratch/p.jsonl" -- "${cmd[@]}"
                fi
                rm -f "$scratch"/s-*.jsonl "$scratch"/b-*.jsonl
                continue
            fi
            run record "$server" "$m" "$n" -- "$bin" record -o "$scratch/t.jsonl" --force -- "${cmd[@]}"
            if [ -n "$base" ]; then
                run base "$server" "$m" "$n" -- "$base" record -o "$scratch/b.jsonl" --force -- "${cmd[@]}"
            fi
            run pyshim "$server" "$m" "$n" -- python3 scripts/bench/py-shim.py "$scratch/p.jsonl" -- "${cmd[@]}"
        done
    done
done
for n in 10000 100000 1000000; do
    run record echo rss "$n" -- "$bin" record -o "$scratch/t.jsonl" --force -- "$scratch/echo"
done

# Streams that never end their lines: the recorder's peak RSS must stay flat.
# Zeros without end on the host's stdin (the server reads half a gigabyte of
# them, then exits; a figure near 2 GiB is a recorder stopped by the limit
# below), a 100 MB line on stdout, and 100 MB
# of a progress bar on stderr (`\r`, never `\n`). GNU time reports the peak:
# a process started by a bigger one (the driver, Python) would count the
# starter's pages in its own peak.
stress() { # stress LABEL BIN
    local label=$1 binary=$2 out=$scratch/stress-rss
    # A recorder that holds the zeros waiting for a newline never ends and
    # would take the machine's memory: 2 GiB of address space stop it.
    (
        ulimit -v 2097152
        exec /usr/bin/time -f %M -o "$out" \
            "$binary" record -o "$scratch/stress.jsonl" --force -- sh -c 'head -c 500000000 >/dev/null' \
            </dev/zero >/dev/null 2>&1
    ) || true
    echo "$label stress stdin-zeros maxrss_kib=$(tail -1 "$out")" | tee -a "$results" >&2
    /usr/bin/time -f %M -o "$out" \
        "$binary" record -o "$scratch/stress.jsonl" --force -- sh -c "head -c 100000000 /dev/zero | tr '\\0' x; echo" \
        </dev/null >/dev/null 2>&1
    echo "$label stress stdout-100MB-line maxrss_kib=$(tail -1 "$out")" | tee -a "$results" >&2
    /usr/bin/time -f %M -o "$out" \
        "$binary" record -o "$scratch/stress.jsonl" --force -- sh -c "yes 50% | tr '\\n' '\\r' | head -c 100000000 >&2" \
        </dev/null >/dev/null 2>&1
    echo "$label stress stderr-progress-bar maxrss_kib=$(tail -1 "$out")" | tee -a "$results" >&2
}
if [ -x /usr/bin/time ]; then
    stress record "$bin"
    if [ -n "$base" ]; then
        stress base "$base"
    fi
else
    echo "no /usr/bin/time (GNU time): the stream stress figures are left out" >&2
fi

python3 - "$results" "$base" <<'EOF'
import statistics, sys
rows = []
for line in open(sys.argv[1]):
    label, server, mode, *fields = line.split()
    rows.append((label, server, mode, dict(f.split("=") for f in fields)))
has_base = bool(sys.argv[2])

def med(label, server, mode, key):
    values = [float(r[3][key]) for r in rows if r[:3] == (label, server, mode)]
    return statistics.median(values) if values else float("nan")

labels = ["direct", "record"] + (["base"] if has_base else []) + ["pyshim"]
names = {"direct": "direct", "record": "record", "base": "base", "pyshim": "py shim"}
print(f"{'server':<6} {'figure':<38}" + "".join(
    f" {names[l]:>10}" + ("" if l == "direct" else f" {'added/ratio':>12}") for l in labels
))
for server in ("demo", "echo"):
    def line(name, mode, key, unit, ratio=False, pairs=None, digits=1):
        pairs = pairs or {l: l for l in labels}
        d = med(pairs["direct"], server, mode, key)
        rel = (lambda x: f"{x / d:.2f}x" if d else "n/a") if ratio else (lambda x: f"{x - d:+.1f}")
        cells = ""
        for l in labels:
            v = med(pairs[l], server, mode, key)
            cells += f" {v:>10.{digits}f}" + ("" if l == "direct" else f" {rel(v):>12}")
        print(f"{server:<6} {name + ' (' + unit + ')':<38}{cells}")
    line("lockstep p50", "lockstep", "p50_us", "us")
    line("lockstep p99", "lockstep", "p99_us", "us")
    line("pipelined throughput", "pipelined", "msgs_per_s", "msg/s", ratio=True)
    line("pipelined CPU per message", "pipelined", "cpu_us_per_msg", "us", ratio=True, digits=3)
    line("session: first answer", "session", "first_answer_us", "us")
    line("session: start to exit", "session", "whole_session_us", "us")
    force = {"direct": "direct", "record": "force", "base": "baseforce", "pyshim": "pyshim"}
    line("session, --force: first answer", "session", "first_answer_us", "us", pairs=force)
    line("session, --force: start to exit", "session", "whole_session_us", "us", pairs=force)
for r in rows:
    if r[2] == "rss":
        print(f"record peak RSS over {int(r[3]['n']):>8} messages: {r[3]['vmhwm_kib']} KiB")
for r in rows:
    if r[1] == "stress":
        print(f"{r[0]} peak RSS, {r[2]}: {r[3]['maxrss_kib']} KiB")
EOF
