#!/usr/bin/env bash
# Benchmarks the demo server (examples/demo-server.rs, the core server library
# at work) against two references, in one run on one machine:
#
# - floor: a bare Rust loop that parses each line with serde_json and answers
#   with its id;
# - rmcp: an rmcp stdio server with the same `echo` tool.
#
# Both references and the driver are built from scripts/bench-server/ in a
# scratch directory outside the crate. Measured: spawn to first answer,
# lockstep `tools/call echo` round trips per second with p50/p99 latency,
# pipelined messages per second, and peak RSS (VmHWM) at several sizes.
# Lockstep runs twice: hot (each request goes out as soon as the answer is
# in, which shows what a server costs per message), and idle (each request
# after a pause long enough for the server's CPU to go idle, so each round
# trip also pays for waking it, as with a host that sends now and then).
# For comparison, `mcp-replay demo-server` (the same server inside the full
# binary) runs too, and so does lib-echo: the core library with only the echo
# tool, with and without the capture guard, which isolates what the capture
# costs per call.
#
# Requirements: Linux (/proc/<pid>/status), taskset (util-linux), cargo, and crates.io reachable on
# the first run (rmcp, tokio, schemars, serde_json); about 1 GB of disk in the
# scratch directory. Paths must not contain spaces.
#
# Settings (environment):
#   BENCH_DIR        scratch directory (default: ${TMPDIR:-/tmp}/mcp-replay-bench-<hash of
#                    this checkout's path>, so two checkouts never build against each other)
#   BENCH_LOCKSTEP   timed lockstep round trips per server (default 40000)
#   BENCH_SLICES     slices the servers take turns in during lockstep (default 200)
#   BENCH_PIPELINED  pipelined sizes, comma-separated (default 10000,100000,500000)
#   BENCH_IDLE       timed idle lockstep round trips per server (default 4000)
#   BENCH_IDLE_GAP_US  the pause before each idle round trip, in µs (default 1000)
#   BENCH_SPAWNS     spawns timed to the first answer, per round (default 20)
#   BENCH_ROUNDS     rounds of the pipelined and spawn runs; figures are medians (default 3)
#   BENCH_BASELINE   another demo-server binary (say, built from an earlier commit) to run
#                    beside the others as `baseline`, for a before/after comparison in one run
set -euo pipefail
cd "$(dirname "$0")/.."

checkout="$(printf %s "$PWD" | cksum | cut -d' ' -f1)"
scratch="${BENCH_DIR:-${TMPDIR:-/tmp}/mcp-replay-bench-$checkout}"
target="${CARGO_TARGET_DIR:-$PWD/target}"

mkdir -p "$scratch"
cp scripts/bench-server/floor.rs scripts/bench-server/rmcp-echo.rs scripts/bench-server/lib-echo.rs \
    scripts/bench-server/driver.rs "$scratch/"
sed "s|@CRATE@|$PWD|" scripts/bench-server/Cargo.toml.in >"$scratch/Cargo.toml"

# The shipped build (Cargo.toml's `dist` profile); BENCH_BASELINE=
# target/release/examples/demo-server (`cargo build --release --example
# demo-server`) runs the README's build beside it.
echo "==> building the demo server" >&2
cargo build --profile dist --quiet --example demo-server --bin mcp-replay
echo "==> building the references and the driver in $scratch" >&2
(cd "$scratch" && CARGO_TARGET_DIR="$scratch/target" cargo build --release --quiet)

baseline=()
if [ -n "${BENCH_BASELINE:-}" ]; then
    baseline=("baseline=$BENCH_BASELINE")
fi

echo "==> running (this takes a few minutes)" >&2
"$scratch/target/release/driver" \
    "demo-server=$target/dist/examples/demo-server" \
    "floor=$scratch/target/release/floor" \
    "rmcp=$scratch/target/release/rmcp-echo" \
    "mcp-replay-demo-server=$target/dist/mcp-replay demo-server" \
    "lib-echo=$scratch/target/release/lib-echo" \
    "lib-echo-no-capture=$scratch/target/release/lib-echo --no-capture" \
    "${baseline[@]}"
